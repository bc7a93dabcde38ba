// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the command lines of both tools.  vpath-record's argp
 * parser (record_opts__parse, the same function main() calls, told not to
 * exit) and vpath-analyze's whole main() (built as vpath_analyze_main by
 * `make fuzz`), which finds the command, parses its options (argp,
 * analyzer/cmd/) and runs it on a small recording kept in a memfd, so that
 * --slowest, --request, --from/--to, --entry, --pattern and the rest act
 * on real requests.  Sizes, durations, ports, endpoints and ids all go through
 * common/parse.c and analyzer/endpoint.c from here.
 *
 * Input: byte 0 picks the tool (bit 0: 0 recorder, 1 analyzer) and the
 * analyzer's command (bits 1-3, see commands[]); the rest is the arguments,
 * separated by NUL bytes.  Inputs that could make vpath-analyze read a file
 * other than the recording (an argument with a '/') or print its help or
 * version (which exit) are skipped; the working directory is an empty one.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../user/options.h"
#include "recfile.h"

#define MAX_ARGS 24

int vpath_analyze_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const commands[] = { "paths", "show", "table", "patterns",
					"dot", "dump", "no-such-command", "--help" };
static char recording[32];

static void put_conn(struct vpr_writer *w, uint64_t ts, uint64_t cookie, uint8_t role,
		     uint16_t sport, uint16_t dport, uint8_t peer)
{
	struct vpr_conn c = { .h = { VPR_CONN, sizeof(c), 0, ts } };

	c.cookie = cookie;
	c.pid = 10;
	c.netns = 1;
	c.family = 2; /* AF_INET */
	c.newstate = 1; /* ESTABLISHED */
	c.role = role;
	c.sport = sport;
	c.dport = dport;
	memcpy(c.saddr, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	memcpy(c.daddr, (uint8_t[]){ 10, 0, 0, peer }, 4);
	vpr_writer__append(w, &c);
}

static void put_op(struct vpr_writer *w, uint64_t ts, uint64_t cookie, uint8_t dir,
		   uint32_t bytes, uint32_t seq_end)
{
	struct vpr_sock_op op = { .h = { VPR_SOCK_OP, sizeof(op), 11, ts } };

	op.cookie = cookie;
	op.pid = 10;
	op.bytes = bytes;
	op.seq_end = seq_end;
	op.dir = dir;
	vpr_writer__append(w, &op);
}

/*
 * One server (10.0.0.1:80) answering three requests from 10.0.0.9, each
 * with a call to 10.0.0.2:5432: enough for every command to print something.
 */
static void write_recording(int fd)
{
	struct vpr_file_header h = { 0 };
	struct vpr_addr a = { .h = { VPR_ADDR, sizeof(a), 0, 1000 }, .netns = 1, .family = 2 };
	struct vpr_task t = { .h = { VPR_TASK, sizeof(t), 11, 1000 }, .pid = 10 };
	struct vpr_writer *w;
	uint32_t in = 0, out = 0, cin = 0, cout = 0;

	snprintf(h.hostname, sizeof(h.hostname), "web");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot");
	h.netns = 1;
	h.start_mono_ns = 1000;
	h.start_real_ns = 1700000000000000000ull;
	w = vpr_writer__from_fd(fd, &h);
	if (!w)
		abort();
	memcpy(a.addr, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	a.prefixlen = 24;
	vpr_writer__append(w, &a);
	t.kind = VPR_TASK_SNAPSHOT;
	snprintf(t.comm, sizeof(t.comm), "server");
	vpr_writer__append(w, &t);
	put_conn(w, 2000, 1, VPR_ROLE_ACCEPTED, 80, 40000, 9);
	put_conn(w, 3000, 2, VPR_ROLE_CONNECTED, 40001, 5432, 2);
	for (uint64_t i = 0, ts = 1000000; i < 3; i++, ts += 1000000 * (i + 1)) {
		put_op(w, ts, 1, VPR_DIR_RECV, 100, in += 100);
		put_op(w, ts + 10000, 2, VPR_DIR_SEND, 50, cout += 50);
		put_op(w, ts + 90000 * (i + 1), 2, VPR_DIR_RECV, 70, cin += 70);
		put_op(w, ts + 100000 * (i + 1), 1, VPR_DIR_SEND, 200, out += 200);
	}
	if (vpr_writer__close(w))
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/fuzz-cli.XXXXXX";
	int fd = memfd_create("fuzz-cli-recording", 0);

	if (fd < 0)
		abort();
	write_recording(dup(fd)); /* the writer closes its descriptor */
	snprintf(recording, sizeof(recording), "/proc/self/fd/%d", fd);
	/* Relative file names given as arguments find nothing here. */
	if (!mkdtemp(dir) || chdir(dir) || rmdir(dir))
		abort();
	return 0;
}

/* Splits the bytes at NULs into argv[first...]; returns argc, or -1 when too many. */
static int split(const uint8_t *p, size_t n, char *buf, char **argv, int first)
{
	int argc = first;

	memcpy(buf, p, n);
	buf[n] = '\0';
	for (size_t i = 0; i <= n;) {
		if (argc == MAX_ARGS)
			return -1;
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	return argc;
}

/* An abbreviation getopt may take for --NAME: "--v" is --version where no other option starts so. */
static bool abbreviates(const char *arg, const char *name)
{
	size_t n = strcspn(arg, "=");

	return n > 2 && n <= strlen(name) && !strncmp(arg, name, n);
}

/* vpath-analyze must not be sent to other files, nor to --help or --version (they exit). */
static bool analyzer_may_run(char **argv, int argc)
{
	for (int i = 2; i < argc; i++)
		if (strchr(argv[i], '/') ||
		    (argv[i][0] == '-' && (strchr(argv[i], 'h') || strchr(argv[i], 'V') ||
					   abbreviates(argv[i], "--version") ||
					   abbreviates(argv[i], "--help"))))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2], *buf;
	int argc;

	if (size < 1)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	if (!(data[0] & 1)) {
		struct record_opts opts;

		argv[0] = "vpath-record";
		argc = split(data + 1, size - 1, buf, argv, 1);
		if (argc > 0) {
			argv[argc] = NULL;
			record_opts__parse(&opts, argc, argv, ARGP_SILENT);
		}
	} else {
		argv[0] = "vpath-analyze";
		argv[1] = (char *)commands[(data[0] >> 1) & 7];
		argc = split(data + 1, size - 1, buf, argv, 2);
		if (argc > 0 && analyzer_may_run(argv, argc)) {
			argv[argc++] = recording;
			argv[argc] = NULL;
			vpath_analyze_main(argc, argv);
		}
	}
	free(buf);
	return 0;
}
