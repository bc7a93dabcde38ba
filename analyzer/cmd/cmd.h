/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * vpath-analyze's commands, as perf's builtin-*.c: one file per command
 * (cmd_*.c), one row each in vp_cmds[] (cmd.c).  A command is its name,
 * its line in `vpath-analyze --help`, its own options (an argp option
 * array and parser, plus the shared option groups it takes), its examples
 * and the function that runs it; `vpath-analyze COMMAND --help` prints
 * all of them.  main.c only finds the command and calls run.
 *
 * Adding a command: a cmd_NAME.c defining `const struct vp_cmd
 * vp_cmd_NAME`, a row in vp_cmds[], its options in man/vpath-analyze.1
 * and completion/vpath.bash (test_man, test_completion check both).
 */
#ifndef VPATH_CMD_H
#define VPATH_CMD_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

struct vp_cmd {
	const char *name;
	const char *summary;  /* its entry in --help's Commands:; '\n' continues on the next line */
	const char *examples; /* its lines of --help's Examples:, NULL: none */
	const char *no_files; /* the one-line error when no FILE is given */
	const struct argp_option *options; /* its own (NULL: none but --help, --version) */
	argp_parser_t parse;		   /* for them; ARGP_KEY_END checks them together */
	/* Shared option groups (cmd_options.c) that parse into the same input; {0}-terminated. */
	const struct argp_child *children;
	/* Parses argv (vp_cmd__parse) and runs: the exit status. */
	int (*run)(const struct vp_cmd *cmd, int argc, char **argv);
};

/* Every command in --help's order; NULL-terminated. */
extern const struct vp_cmd *const vp_cmds[];
/* The command of this name, or NULL. */
const struct vp_cmd *vp_cmd__find(const char *name);

/* --version: the package and the formats it reads (docs/format.md). */
extern const char vp_cmd_version[];

/* The FILE arguments after the options. */
struct vp_cmd_files {
	char **v;
	int n;
};

/*
 * argv[0] is the command's name.  Parses the options into input (the
 * command's parser and the shared groups all get it) and the files; prints
 * one error line for a bad option or value.  --help and --version print
 * and exit 0.  0, or -EINVAL.
 */
int vp_cmd__parse(const struct vp_cmd *cmd, int argc, char **argv, void *input,
		  struct vp_cmd_files *files);

/* "error: invalid value 'ARG' for option --NAME", for a parser to return: EINVAL. */
int vp_cmd__invalid(const char *arg, const char *name);
/* "error: MESSAGE", for a parser to return: EINVAL. */
__attribute__((format(printf, 1, 2))) int vp_cmd__refuse(const char *fmt, ...);
/* A count of 1 to max. */
int vp_cmd__count(const char *arg, uint64_t max, uint64_t *n);
/* A duration of at most VP_OFFSET_MAX, so that adding it to a time cannot overflow. */
int vp_cmd__span(const char *arg, uint64_t *ns);

extern const struct vp_cmd vp_cmd_paths, vp_cmd_show, vp_cmd_table, vp_cmd_patterns, vp_cmd_dot,
	vp_cmd_dump, vp_cmd_local, vp_cmd_calls, vp_cmd_otlp, vp_cmd_sqlite, vp_cmd_report,
	vp_cmd_baseline;

#endif
