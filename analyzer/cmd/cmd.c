// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The command table and what every command's parsing shares (cmd.h): one
 * argp per command made of its own options, the shared groups it takes and
 * --help/--version, with its line of --help and its examples as the doc.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cmd.h"
#include "localfile.h"
#include "parse.h"
#include "vpath/record.h"
#include "vpath/version.h"

const char vp_cmd_version[] = "vpath-analyze " VPATH_VERSION " (recording format " VPATH_STR(
	VPR_VERSION) ", local file format " VPATH_STR(VPL_VERSION) ")\n";

const struct vp_cmd *const vp_cmds[] = {
	&vp_cmd_paths,	&vp_cmd_show,	  &vp_cmd_table, &vp_cmd_patterns, &vp_cmd_dot,
	&vp_cmd_dump,	&vp_cmd_local,	  &vp_cmd_calls, &vp_cmd_otlp,	   &vp_cmd_sqlite,
	&vp_cmd_report, &vp_cmd_baseline, NULL,
};

const struct vp_cmd *vp_cmd__find(const char *name)
{
	for (const struct vp_cmd *const *c = vp_cmds; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

int vp_cmd__invalid(const char *arg, const char *name)
{
	fprintf(stderr, "error: invalid value '%s' for option --%s\n", arg, name);
	return EINVAL;
}

int vp_cmd__refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EINVAL;
}

int vp_cmd__count(const char *arg, uint64_t max, uint64_t *n)
{
	int err = parse_u64(arg, max, n);

	return err ? err : *n ? 0 : -EINVAL;
}

int vp_cmd__span(const char *arg, uint64_t *ns)
{
	int err = parse_duration(arg, ns);

	return err ? err : *ns > (uint64_t)VP_OFFSET_MAX ? -ERANGE : 0;
}

enum {
	KEY_HELP = 'h',
	KEY_VERSION = 'V'
};

/* Last in every command's help (group -1). */
static const struct argp_option every_options[] = {
	{"help", KEY_HELP, NULL, 0, "this text", -1},
	{"version", KEY_VERSION, NULL, 0, "the package version and the file formats it reads", -1},
	{0},
};

struct parse_state {
	const struct vp_cmd *cmd;
	void *input;
	struct vp_cmd_files *files;
	size_t nchildren; /* the command's own options, then its shared groups */
};

static error_t every_parse(int key, char *arg, struct argp_state *state)
{
	struct parse_state *p = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		/*
		 * Errors are one line: getopt's for an unknown option, ours for
		 * a bad value; no stream keeps argp from adding its "Try
		 * --help" line (and from exiting, so that fuzz_cli comes back).
		 */
		state->err_stream = NULL;
		for (size_t i = 0; i < p->nchildren; i++)
			state->child_inputs[i] = p->input;
		return 0;
	case KEY_HELP:
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return 0;
	case KEY_VERSION:
		fputs(vp_cmd_version, state->out_stream);
		if (!(state->flags & ARGP_NO_EXIT))
			exit(0);
		return 0;
	case ARGP_KEY_ARGS:
		p->files->v = state->argv + state->next;
		p->files->n = state->argc - state->next;
		state->next = state->argc;
		return 0;
	case ARGP_KEY_NO_ARGS:
		return p->cmd->no_files ? vp_cmd__refuse("%s", p->cmd->no_files) : 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

#define MAX_CHILDREN 8

int vp_cmd__parse(const struct vp_cmd *cmd, int argc, char **argv, void *input,
		  struct vp_cmd_files *files)
{
	struct argp own = {cmd->options, cmd->parse, NULL, NULL, NULL, NULL, NULL};
	struct argp_child children[MAX_CHILDREN + 2] = {{&own, 0, NULL, 0}};
	struct parse_state p = {.cmd = cmd, .input = input, .files = files};
	struct argp root = {every_options, every_parse, "FILE...", NULL, children, NULL, NULL};
	char *prog0 = argv[0], prog[64], doc[4096];
	size_t n = 1;
	int err;

	for (const struct argp_child *c = cmd->children; c && c->argp && n <= MAX_CHILDREN; c++)
		children[n++] = *c;
	snprintf(doc, sizeof(doc), "%s%s%s", cmd->summary,
		 cmd->examples ? "\v"
				 "EXAMPLES:\n"
			       : "",
		 cmd->examples ? cmd->examples : "");
	root.doc = doc;
	p.nchildren = n;
	/* "vpath-analyze paths: unrecognized option '--csv'", "Usage: vpath-analyze paths ..." */
	snprintf(prog, sizeof(prog), "vpath-analyze %s", cmd->name);
	argv[0] = prog;
	files->v = NULL;
	files->n = 0;
	err = argp_parse(&root, argc, argv, ARGP_NO_HELP, NULL, &p);
	argv[0] = prog0;
	return err ? -EINVAL : 0;
}
