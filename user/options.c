// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "parse.h"

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
};

const char *argp_program_version = "vpath-record 0.1";
const char *argp_program_bug_address = "<https://github.com/vpath/vpath/issues>";

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
	"                          # flight recorder: rec.000, rec.001, ..., 8 newest kept\n";

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Write the recording to FILE (required)", 0 },
	{ "duration", 'd', "DURATION", 0, "Stop after DURATION (30s, 5m, 1h; plain: seconds)", 0 },
	{ "pid", 'p', "PID", 0, "Only these processes (repeatable, up to 16)", 1 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Only tasks in this cgroup v2 directory", 1 },
	{ "netns", OPT_NETNS, "NETNS", 0,
	  "Only this network namespace: a path (/run/netns/h1, /proc/PID/ns/net), a name in "
	  "/run/netns, or an inode number",
	  1 },
	{ "port", OPT_PORT, "PORT", 0, "Only connections with this local or remote port "
	  "(repeatable, up to 16)", 1 },
	{ "host", OPT_HOST, "NAME", 0, "Host name written into the recording (default: uname -n)",
	  2 },
	{ "ring", OPT_RING, "N", 0, "Flight recorder: keep the N newest segment files FILE.NNN",
	  2 },
	{ "segment-size", OPT_SEGMENT_SIZE, "SIZE", 0,
	  "Start a new segment at SIZE bytes (with --ring; default 64M)", 2 },
	{ "ringbuf-size", OPT_RINGBUF_SIZE, "SIZE", 0,
	  "Kernel ring buffer size, a power of two (default 16M); larger loses fewer records "
	  "under bursts",
	  3 },
	{ "verbose", 'v', NULL, 0, "More output; -vv adds libbpf debug messages", 3 },
	{ "force-fallback", OPT_FORCE_FALLBACK, NULL, OPTION_HIDDEN,
	  "Use the syscall fallback even where sock_*_length exist", 3 },
	{ "no-batches", OPT_NO_BATCHES, NULL, OPTION_HIDDEN,
	  "Socket operations cross the ring one by one, as where CPUs cannot be flushed", 3 },
	{},
};

static int number(struct argp_state *state, const char *what, const char *arg, uint64_t max,
		  uint64_t *out)
{
	int err = parse_u64(arg, max, out);

	if (err)
		argp_error(state, "invalid %s '%s'", what, arg);
	return err;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case 'o':
		o->output = arg;
		break;
	case 'd':
		if (parse_duration(arg, &o->duration_ns) || !o->duration_ns)
			argp_error(state, "invalid duration '%s' (examples: 30, 30s, 5m, 1h)", arg);
		break;
	case 'p':
		if (o->npids == VPATH_MAX_PIDS)
			argp_error(state, "at most %d -p options", VPATH_MAX_PIDS);
		if (number(state, "pid", arg, INT32_MAX, &v) == 0) {
			if (!v)
				argp_error(state, "invalid pid '%s'", arg);
			o->pids[o->npids++] = (uint32_t)v;
		}
		break;
	case OPT_PORT:
		if (o->nports == VPATH_MAX_PORTS)
			argp_error(state, "at most %d --port options", VPATH_MAX_PORTS);
		if (number(state, "port", arg, 65535, &v) == 0) {
			if (!v)
				argp_error(state, "invalid port '%s'", arg);
			o->ports[o->nports++] = (uint16_t)v;
		}
		break;
	case OPT_CGROUP:
		o->cgroup = arg;
		break;
	case OPT_NETNS:
		o->netns = arg;
		break;
	case OPT_HOST:
		if (!*arg || strlen(arg) >= 64)
			argp_error(state, "--host NAME must have 1 to 63 characters");
		o->host = arg;
		break;
	case OPT_RING:
		if (number(state, "ring size", arg, 999, &v) == 0) {
			if (v < 2)
				argp_error(state, "--ring needs at least 2 segments");
			o->ring = (unsigned)v;
		}
		break;
	case OPT_SEGMENT_SIZE:
		if (parse_size(arg, &o->segment_size) || o->segment_size < 64 * 1024)
			argp_error(state, "invalid --segment-size '%s' (at least 64K)", arg);
		break;
	case OPT_RINGBUF_SIZE:
		if (parse_size(arg, &o->ringbuf_size) || o->ringbuf_size < 4096 ||
		    o->ringbuf_size > (1ull << 30) || (o->ringbuf_size & (o->ringbuf_size - 1)))
			argp_error(state, "invalid --ringbuf-size '%s' (a power of two, 4K to 1G)",
				   arg);
		break;
	case 'v':
		o->verbose++;
		break;
	case OPT_FORCE_FALLBACK:
		o->force_fallback = true;
		break;
	case OPT_NO_BATCHES:
		o->no_batches = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!o->output)
			argp_error(state, "-o FILE is required");
		if (o->segment_size && !o->ring)
			argp_error(state, "--segment-size needs --ring N");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int record_opts__parse(struct record_opts *opts, int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	memset(opts, 0, sizeof(*opts));
	opts->ringbuf_size = VPATH_RINGBUF_DEFAULT;
	if (argp_parse(&argp, argc, argv, 0, NULL, opts))
		return -EINVAL;
	if (opts->ring && !opts->segment_size)
		opts->segment_size = 64ull << 20;
	return 0;
}
