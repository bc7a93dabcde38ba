// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "parse.h"
#include "vpath/record.h"
#include "vpath/version.h"

enum {
	OPT_CGROUP = 0x100,
	OPT_NETNS,
	OPT_PORT,
	OPT_HOST,
	OPT_RING,
	OPT_SEGMENT_SIZE,
	OPT_RINGBUF_SIZE,
	OPT_FORCE_FALLBACK,
	OPT_NO_BATCHES,
	OPT_GROUP,
	OPT_GO_BINARY,
	OPT_CAPTURE,
	OPT_CAPTURE_HASH,
	OPT_CAPTURE_PORT,
	OPT_CAPTURE_PID,
	OPT_NO_WAKEUPS,
	OPT_WAKEUPS,
	OPT_TEST_STALL,
	OPT_TEST_GO_LATE,
	OPT_LOGS,
};

/* argp prints it for --version (-V): the package and the format it writes. */
const char *argp_program_version =
	"vpath-record " VPATH_VERSION " (recording format " VPATH_STR(VPR_VERSION) ")";

static const char doc[] =
	"Record which thread sends and receives how many bytes on which TCP connection, "
	"for vpath-analyze.\v"
	"Needs root, or CAP_BPF and CAP_PERFMON (plus CAP_SYS_ADMIN for --netns).\n"
	"\n"
	"EXAMPLES:\n"
	"  vpath-record -o web1.vpr                   # until Ctrl-C\n"
	"  vpath-record -d 30s -o web1.vpr            # for 30 seconds\n"
	"  vpath-record -p 1234 -p 1240 -o app.vpr    # only these processes\n"
	"  vpath-record --port 5432 -o db.vpr         # only connections to/from port 5432\n"
	"  vpath-record --netns h1 --host h1 -o h1.vpr   # network namespace /run/netns/h1\n"
	"  vpath-record --cgroup /sys/fs/cgroup/system.slice/nginx.service -o nginx.vpr\n"
	"  vpath-record --ring 8 --segment-size 64M -o /var/lib/vpath/rec\n"
	"                          # flight recorder: rec.000, rec.001, ..., 8 newest kept\n"
	"  vpath-record --capture 256 --capture-port 8080 -o web.vpr\n"
	"                          # also the first 256 bytes of each message on port 8080\n"
	"  vpath-record --capture-hash 64 --capture-port 6432 -o pool.vpr\n"
	"                          # keyed hashes of those bytes instead (a pooler's two sides)\n"
	"  vpath-record --logs 200 -o web.vpr\n"
	"                          # also the first 200 bytes of each write to a log\n"
	"\n"
	"Payload capture is off unless --capture is given; --capture-hash stores only "
	"keyed hashes of the first bytes, never the bytes.  Captured bytes can hold "
	"personal data; HTTP Authorization/Cookie values, PostgreSQL and MySQL passwords "
	"and Redis AUTH arguments are replaced before anything is written "
	"(docs/security.md).  Log lines (--logs) are off unless asked for too; "
	"passwords, tokens and keys written as key=value are replaced the same way.\n";

static const struct argp_option options[] = {
	{"output", 'o', "FILE", 0, "Write the recording to FILE (required)", 0},
	{"duration", 'd', "DURATION", 0, "Stop after DURATION (30s, 5m, 1h; plain: seconds)", 0},
	{"pid", 'p', "PID", 0, "Only these processes (repeatable, up to 16)", 1},
	{"cgroup", OPT_CGROUP, "PATH", 0, "Only tasks in this cgroup v2 directory", 1},
	{"netns", OPT_NETNS, "NETNS", 0,
	 "Only this network namespace: a path (/run/netns/h1, /proc/PID/ns/net), a name in "
	 "/run/netns, or an inode number",
	 1},
	{"port", OPT_PORT, "PORT", 0,
	 "Only connections with this local or remote port "
	 "(repeatable, up to 16)",
	 1},
	{"host", OPT_HOST, "NAME", 0, "Host name written into the recording (default: uname -n)",
	 2},
	{"group", OPT_GROUP, "GROUP", 0,
	 "Let GROUP read the recording: files are 0640 and owned by GROUP (default: 0600, "
	 "root only)",
	 2},
	{"ring", OPT_RING, "N", 0, "Flight recorder: keep the N newest segment files FILE.NNN", 2},
	{"segment-size", OPT_SEGMENT_SIZE, "SIZE", 0,
	 "Start a new segment at SIZE bytes (with --ring; default 64M)", 2},
	{"ringbuf-size", OPT_RINGBUF_SIZE, "SIZE", 0,
	 "Kernel ring buffer size, a power of two (default 16M); larger loses fewer records "
	 "under bursts",
	 3},
	{"go-binary", OPT_GO_BINARY, "PATH", 0,
	 "Follow the goroutines of this Go binary's processes from their first instruction "
	 "(repeatable, up to 16; Go programs running at start or started later are found "
	 "without it, the later ones a few ms after their exec)",
	 1},
	{"capture", OPT_CAPTURE, "N", 0,
	 "Also record the first N bytes (1-256) of each send and receive on the connections "
	 "--capture-port/--capture-pid name; secrets are replaced (docs/security.md)",
	 3},
	{"capture-hash", OPT_CAPTURE_HASH, "N", 0,
	 "Instead of --capture: record keyed hashes of the first N bytes (1-256) of each send "
	 "and receive on those connections, never the bytes (enough to link a relay that "
	 "forwards byte for byte)",
	 3},
	{"capture-port", OPT_CAPTURE_PORT, "PORT", 0,
	 "With --capture or --capture-hash: connections with this local or remote port "
	 "(repeatable, up to 16)",
	 3},
	{"capture-pid", OPT_CAPTURE_PID, "PID", 0,
	 "With --capture or --capture-hash: operations of this process (repeatable, up to 16; with "
	 "--capture-port both must match)",
	 3},
	{"logs", OPT_LOGS, "N", 0,
	 "Also record the first N bytes (1-256) of each write by the recorded processes to a "
	 "regular file, a pipe or a unix socket (their log lines); secrets are replaced "
	 "(docs/security.md)",
	 3},
	{"verbose", 'v', NULL, 0, "More output; -vv adds libbpf debug messages", 3},
	{"wakeups", OPT_WAKEUPS, NULL, 0,
	 "Record which thread woke which (scheduler wake-ups between threads of a process that "
	 "does TCP; they let vpath-analyze follow work handed to executor threads)",
	 2},
	{"no-wakeups", OPT_NO_WAKEUPS, NULL, 0, "Do not record wake-ups (the default)", 2},
	{"force-fallback", OPT_FORCE_FALLBACK, NULL, OPTION_HIDDEN,
	 "Use the syscall fallback even where sock_*_length exist", 3},
	{"no-batches", OPT_NO_BATCHES, NULL, OPTION_HIDDEN,
	 "Socket operations cross the ring one by one, as where CPUs cannot be flushed", 3},
	{"test-stall", OPT_TEST_STALL, "MS:EVERY", OPTION_HIDDEN,
	 "Every EVERY-th socket operation, stall MS ms in the kernel between stamping and "
	 "handing it on, as a preempted or descheduled CPU would (tests)",
	 3},
	{"test-go-late", OPT_TEST_GO_LATE, "MS", OPTION_HIDDEN,
	 "Put a Go program found at its exec under probes MS ms late (1-5000), as a busy host "
	 "does (tests)",
	 3},
	{},
};

/* argp_error, remembering the failure for callers whose argp does not exit. */
__attribute__((format(printf, 2, 3))) static void refuse(struct argp_state *state, const char *fmt,
							 ...)
{
	struct record_opts *o = state->input;
	char msg[256];
	va_list ap;

	o->invalid = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	argp_error(state, "%s", msg);
}

/* A group name, or a number naming an existing group. */
static int resolve_group(struct argp_state *state, const char *name, gid_t *gid)
{
	struct record_opts *o = state->input;
	const struct group *g = getgrnam(name);
	uint64_t id;

	if (!g && parse_u64(name, UINT32_MAX - 1, &id) == 0)
		g = getgrgid((gid_t)id);
	if (g) {
		*gid = g->gr_gid;
		return 0;
	}
	o->invalid = true;
	/* argp_failure with status 0: one line, no usage hint (the option is right, the name is not). */
	argp_failure(state, 0, 0, "--group %s: no such group", name);
	return -ENOENT;
}

static int number(struct argp_state *state, const char *what, const char *arg, uint64_t max,
		  uint64_t *out)
{
	int err = parse_u64(arg, max, out);

	if (err)
		refuse(state, "invalid %s '%s'", what, arg);
	return err;
}

/*
 * One more number of a repeatable option (-p, --port, --capture-port,
 * --capture-pid): 0 when it fits in the list and is a valid, non-zero id.
 */
static int add_id(struct argp_state *state, const char *arg, const char *what, const char *option,
		  unsigned n, unsigned cap, uint64_t max, uint64_t *v)
{
	if (n == cap) {
		refuse(state, "at most %u %s options", cap, option);
		return -E2BIG;
	}
	if (number(state, what, arg, max, v))
		return -EINVAL;
	if (!*v) {
		refuse(state, "invalid %s '%s'", what, arg);
		return -EINVAL;
	}
	return 0;
}

/* Which processes and connections: -p, --port, --cgroup, --netns, --go-binary. */
static error_t parse_filter(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case 'p':
		if (!add_id(state, arg, "pid", "-p", o->npids, VPATH_MAX_PIDS, INT32_MAX, &v))
			o->pids[o->npids++] = (uint32_t)v;
		return 0;
	case OPT_PORT:
		if (!add_id(state, arg, "port", "--port", o->nports, VPATH_MAX_PORTS, 65535, &v))
			o->ports[o->nports++] = (uint16_t)v;
		return 0;
	case OPT_GO_BINARY:
		if (o->ngo_binaries == VPATH_MAX_GO_BINARIES)
			refuse(state, "at most %d --go-binary options", VPATH_MAX_GO_BINARIES);
		else
			o->go_binaries[o->ngo_binaries++] = arg;
		return 0;
	case OPT_CGROUP:
		o->cgroup = arg;
		return 0;
	case OPT_NETNS:
		o->netns = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* Payload capture: --capture, --capture-hash, --capture-port, --capture-pid. */
static error_t parse_capture(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case OPT_CAPTURE:
		if (parse_u64(arg, VPR_PAYLOAD_MAX, &v) || !v)
			refuse(state, "invalid --capture '%s' (1 to %d bytes)", arg,
			       VPR_PAYLOAD_MAX);
		else
			o->capture = (unsigned)v;
		return 0;
	case OPT_CAPTURE_HASH:
		if (parse_u64(arg, VPR_PAYLOAD_HASH_MAX, &v) || !v)
			refuse(state, "invalid --capture-hash '%s' (1 to %d bytes)", arg,
			       VPR_PAYLOAD_HASH_MAX);
		else
			o->capture_hash = (unsigned)v;
		return 0;
	case OPT_LOGS:
		if (parse_u64(arg, VPR_LOG_MAX, &v) || !v)
			refuse(state, "invalid --logs '%s' (1 to %d bytes)", arg, VPR_LOG_MAX);
		else
			o->logs = (unsigned)v;
		return 0;
	case OPT_CAPTURE_PORT:
		if (!add_id(state, arg, "--capture-port", "--capture-port", o->ncapture_ports,
			    VPATH_MAX_PORTS, 65535, &v))
			o->capture_ports[o->ncapture_ports++] = (uint16_t)v;
		return 0;
	case OPT_CAPTURE_PID:
		if (!add_id(state, arg, "--capture-pid", "--capture-pid", o->ncapture_pids,
			    VPATH_MAX_PIDS, INT32_MAX, &v))
			o->capture_pids[o->ncapture_pids++] = (uint32_t)v;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* The recording: -o, -d, --host, --group, --ring, --segment-size. */
static error_t parse_recording(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case 'o':
		o->output = arg;
		return 0;
	case 'd':
		if (parse_duration(arg, &o->duration_ns) || !o->duration_ns)
			refuse(state, "invalid duration '%s' (examples: 30, 30s, 5m, 1h)", arg);
		return 0;
	case OPT_HOST:
		if (!*arg || strlen(arg) >= 64)
			refuse(state, "--host NAME must have 1 to 63 characters");
		o->host = arg;
		return 0;
	case OPT_GROUP:
		if (resolve_group(state, arg, &o->gid) == 0)
			o->group = arg;
		return 0;
	case OPT_RING:
		if (number(state, "ring size", arg, 999, &v) == 0) {
			if (v < 2)
				refuse(state, "--ring needs at least 2 segments");
			o->ring = (unsigned)v;
		}
		return 0;
	case OPT_SEGMENT_SIZE:
		if (parse_size(arg, &o->segment_size) || o->segment_size < 64 * 1024)
			refuse(state, "invalid --segment-size '%s' (at least 64K)", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* --test-stall MS:EVERY. */
static void parse_stall(struct argp_state *state, const char *arg)
{
	struct record_opts *o = state->input;
	unsigned ms, every;
	char tail;

	if (sscanf(arg, "%u:%u%c", &ms, &every, &tail) != 2 || !ms || ms > 100 || !every) {
		refuse(state, "--test-stall %s: expected MS:EVERY, 1 <= MS <= 100, EVERY >= 1",
		       arg);
		return;
	}
	o->test_stall_ms = ms;
	o->test_stall_every = every;
}

/* How it records: --ringbuf-size, -v, --wakeups, and the hidden test switches. */
static error_t parse_tuning(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;

	switch (key) {
	case OPT_RINGBUF_SIZE:
		if (parse_size(arg, &o->ringbuf_size) || o->ringbuf_size < 4096 ||
		    o->ringbuf_size > (1ull << 30) || (o->ringbuf_size & (o->ringbuf_size - 1)))
			refuse(state, "invalid --ringbuf-size '%s' (a power of two, 4K to 1G)",
			       arg);
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case OPT_NO_WAKEUPS:
		o->no_wakeups = true;
		return 0;
	case OPT_WAKEUPS:
		o->no_wakeups = false;
		return 0;
	case OPT_FORCE_FALLBACK:
		o->force_fallback = true;
		return 0;
	case OPT_NO_BATCHES:
		o->no_batches = true;
		return 0;
	case OPT_TEST_STALL:
		parse_stall(state, arg);
		return 0;
	case OPT_TEST_GO_LATE: {
		char tail;

		if (sscanf(arg, "%u%c", &o->test_go_late_ms, &tail) != 1 || !o->test_go_late_ms ||
		    o->test_go_late_ms > 5000)
			refuse(state, "--test-go-late %s: expected MS, 1 <= MS <= 5000", arg);
		return 0;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* The options together, once all are read. */
static void check_all(struct argp_state *state)
{
	struct record_opts *o = state->input;

	if (!o->output)
		refuse(state, "-o FILE is required");
	if (o->segment_size && !o->ring)
		refuse(state, "--segment-size needs --ring N");
	/* Capturing everything is never what the user meant to ask for. */
	if (o->capture && o->capture_hash)
		refuse(state, "--capture and --capture-hash exclude each other");
	if (o->capture && !o->ncapture_ports && !o->ncapture_pids)
		refuse(state, "--capture N needs --capture-port PORT or --capture-pid PID");
	if (o->capture_hash && !o->ncapture_ports && !o->ncapture_pids)
		refuse(state, "--capture-hash N needs --capture-port PORT or --capture-pid PID");
	if (!o->capture && !o->capture_hash && (o->ncapture_ports || o->ncapture_pids))
		refuse(state,
		       "--capture-port and --capture-pid need --capture N or --capture-hash N");
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static const argp_parser_t groups[] = {parse_filter, parse_capture, parse_recording,
					       parse_tuning};

	switch (key) {
	case ARGP_KEY_ARG:
		refuse(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		check_all(state);
		return 0;
	}
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		error_t err = groups[i](key, arg, state);

		if (err != ARGP_ERR_UNKNOWN)
			return err;
	}
	return ARGP_ERR_UNKNOWN;
}

int record_opts__parse(struct record_opts *opts, int argc, char **argv, unsigned argp_flags)
{
	static const struct argp argp = {options, parse_arg, NULL, doc, NULL, NULL, NULL};

	memset(opts, 0, sizeof(*opts));
	opts->ringbuf_size = VPATH_RINGBUF_DEFAULT;
	/*
	 * Opt-in (--wakeups): the analyzer's wake-up rule mislinked calls in the
	 * cold real-servers run (gunicorn, 87 calls), and its cost is unmeasured.
	 */
	opts->no_wakeups = true;
	if (argp_parse(&argp, argc, argv, argp_flags, NULL, opts) || opts->invalid)
		return -EINVAL;
	if (opts->ring && !opts->segment_size)
		opts->segment_size = 64ull << 20;
	return 0;
}
