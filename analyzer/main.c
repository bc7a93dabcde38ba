// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpath-analyze: rebuilds request paths from vpath recordings.
 * This file only parses the command line and wires the library stages.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "baseline/convolution.h"
#include "baseline/nesting.h"
#include "clock.h"
#include "dump.h"
#include "export.h"
#include "local/local.h"
#include "local/localdump.h"
#include "local/localtsv.h"
#include "localfile.h"
#include "localwrite.h"
#include "output.h"
#include "parse.h"
#include "progress.h"
#include "vpath/record.h"
#include "vpath/version.h"

/* --version: the package and the formats it reads (docs/format.md). */
static const char version[] = "vpath-analyze " VPATH_VERSION " (recording format " VPATH_STR(
	VPR_VERSION) ", local file format " VPATH_STR(VPL_VERSION) ")\n";

static const char usage[] =
	"Usage: vpath-analyze COMMAND [OPTIONS] FILE...\n"
	"\n"
	"Reads the recordings of all hosts (one file per host, or every segment of a\n"
	"--ring recording), pairs the two ends of each TCP connection by stream position\n"
	"and rebuilds the path of every request: which hosts, processes and threads it\n"
	"visited, in which order, and how long each hop took.\n"
	"\n"
	"Commands:\n"
	"  paths      every request as a waterfall tree (--json: docs/json.md)\n"
	"  show       one request (--request ID) as a tree\n"
	"  table      one row per request (TSV, --csv for CSV)\n"
	"  patterns   requests grouped by the services they visit, with latencies\n"
	"  dot        Graphviz DOT of a request (--request ID) or a pattern (--pattern N)\n"
	"  dump       a recording's header and records as text, then whether it is intact\n"
	"             (of a local file: its host and every call it holds)\n"
	"  local      one host's recording (or ring segments) into a local file (-o FILE,\n"
	"             docs/format.md): run it where the data is; every other command takes\n"
	"             local files in place of recordings, mixed with them too, with the\n"
	"             same output\n"
	"  calls      local files' call ends as tab-separated rows, for ClickHouse to pair\n"
	"             (docs/clickhouse.md)\n"
	"  otlp       OpenTelemetry traces, OTLP/JSON (docs/otlp.md); --endpoint URL posts\n"
	"             them to an OTLP/HTTP receiver\n"
	"  sqlite     a SQLite database of hosts, requests and calls (-o FILE, docs/sqlite.md)\n"
	"  report     one self-contained HTML page: patterns, waterfalls, service graph,\n"
	"             hosts and loss (docs/report.md; -n: how many slowest, default 20)\n"
	"  baseline   --nesting or --convolution: Project 5's statistical algorithms\n"
	"             (SOSP 2003) on the same recordings, from message timing alone (hosts\n"
	"             and their messages, no threads): patterns as `patterns` prints them,\n"
	"             never exact, for comparison (docs/analyzer.md)\n"
	"\n"
	"Options:\n"
	"  -j, --json            paths, baseline: JSON output\n"
	"      --csv             table: comma-separated\n"
	"  -n, --slowest N       only the N slowest requests (slowest first)\n"
	"  -r, --request ID      only request ID\n"
	"  -p, --pattern N       dot: the N-th pattern of `patterns` (1 = most total time)\n"
	"      --from T          only requests starting at or after T (duration from the\n"
	"                        recording's start: 1.5s, 200ms)\n"
	"      --to T            only requests starting before T\n"
	"  -e, --entry HOST:PORT only requests entering at this server address (port 0: any)\n"
	"  -w, --window D        how long to wait for the other end of a call (default 1s)\n"
	"      --reorder D       how far records of one file may be out of order (default 10ms)\n"
	"      --threads N       hosts analyzed at once (default: the online CPUs, at most\n"
	"                        one per host); the output is the same for every N\n"
	"      --pairs FILE      which client end pairs with which server end, as decided\n"
	"                        outside (ClickHouse: docs/clickhouse.md), instead of here\n"
	"      --no-frames       ignore what the recorder read of HTTP/2 (its preface): only\n"
	"                        the byte-stream rules find multiplexed connections\n"
	"  -o, --output FILE     otlp, sqlite, report: write to FILE (default: standard output);\n"
	"                        local: the local file to write (required)\n"
	"      --endpoint URL    otlp: POST to this OTLP/HTTP receiver (URL/v1/traces)\n"
	"      --nesting         baseline: the nesting algorithm (call pairs nested by time)\n"
	"      --convolution     baseline: the convolution algorithm (cross-correlation)\n"
	"      --quantum D       convolution: time quantum (default 100us)\n"
	"      --max-lag D       convolution: longest delay looked for (default 50ms)\n"
	"  -v, --verbose         statistics on standard error\n"
	"  -V, --version         the package version and the file formats it reads\n"
	"  -h, --help            this text\n"
	"\n"
	"Examples:\n"
	"  vpath-analyze paths web.vpr app.vpr db.vpr         # every request as a tree\n"
	"  vpath-analyze paths -n 5 *.vpr                     # the five slowest\n"
	"  vpath-analyze paths --json *.vpr > paths.json\n"
	"  vpath-analyze show -r 17 *.vpr\n"
	"  vpath-analyze table --entry 10.0.0.1:80 *.vpr | sort -t$'\\t' -k6 -n\n"
	"  vpath-analyze patterns *.vpr\n"
	"  vpath-analyze dot -p 1 *.vpr | dot -Tsvg > pattern1.svg\n"
	"  vpath-analyze dump web.vpr | less\n"
	"  vpath-analyze local -o web.vpl web.vpr            # on the web host\n"
	"  vpath-analyze paths web.vpl app.vpl db.vpr        # anywhere, with the others\n"
	"  vpath-analyze otlp --endpoint http://localhost:4318 *.vpr\n"
	"  vpath-analyze sqlite -o paths.db *.vpr\n"
	"  vpath-analyze report -o report.html *.vpr\n"
	"  vpath-analyze baseline --nesting *.vpr\n"
	"\n"
	"On a terminal, a long analysis shows its progress on standard error (not in CI).\n";

enum command { CMD_PATHS, CMD_SHOW, CMD_TABLE, CMD_PATTERNS, CMD_DOT, CMD_DUMP, CMD_OTLP, CMD_SQLITE, CMD_REPORT,
	       CMD_BASELINE, CMD_LOCAL };

struct cli {
	enum command cmd;
	bool json, csv, verbose;
	uint64_t slowest;
	uint64_t request_id;
	uint64_t pattern;
	bool have_from, have_to, have_entry, t0_set;
	uint64_t from_ns, to_ns;
	struct vp_endpoint entry;
	struct vp_analysis_opts opts;
	struct vp_analysis *a;
	struct vp_out_ctx out;
	struct vp_patterns *patterns;
	struct vp_request **kept; /* --slowest, dot/show --request */
	size_t nkept;
	uint64_t shown;
	struct vp_export_opts export_opts; /* otlp, sqlite, report */
	struct vp_export *export;
	struct vp_progress progress;
	/* baseline: the message trace and which algorithm */
	struct vp_btrace btrace;
	bool nesting, convolution;
	struct vp_conv_opts conv;
};

static int64_t duration_of(const struct vp_request *r)
{
	return r->root->end_ns - r->root->start_ns;
}

static bool wanted(struct cli *c, const struct vp_request *r)
{
	const struct vp_call *root = r->root;

	if (c->request_id && r->id != c->request_id)
		return false;
	if (c->have_from && root->start_ns < c->out.t0 + (int64_t)c->from_ns)
		return false;
	if (c->have_to && root->start_ns >= c->out.t0 + (int64_t)c->to_ns)
		return false;
	if (c->have_entry && (!vp_addr__equal(&root->server.addr, &c->entry) ||
			      (c->entry.port && c->entry.port != root->server.addr.port)))
		return false;
	return true;
}

static void write_request(struct cli *c, const struct vp_request *r)
{
	c->shown++;
	switch (c->cmd) {
	case CMD_PATHS:
	case CMD_SHOW:
		if (c->json)
			vp_out_json_request(&c->out, r);
		else
			vp_out_text(&c->out, r);
		break;
	case CMD_TABLE:
		vp_out_table_row(&c->out, r);
		break;
	case CMD_PATTERNS:
		if (vp_patterns__add(c->patterns, c->a, r))
			fprintf(stderr, "warning: out of memory, request %" PRIu64 " not counted\n", r->id);
		break;
	case CMD_DOT:
		if (!c->pattern)
			vp_out_dot_request(&c->out, r);
		else
			vp_patterns__add(c->patterns, c->a, r);
		break;
	case CMD_OTLP:
	case CMD_SQLITE:
	case CMD_REPORT:
		vp_export__add(c->export, c->a, r);
		break;
	case CMD_BASELINE:
		if (vp_btrace__add_request(&c->btrace, c->a, r))
			fprintf(stderr, "warning: out of memory, request %" PRIu64 " not counted\n", r->id);
		break;
	case CMD_DUMP:
	case CMD_LOCAL:
		break;
	}
}

/* Keep the N slowest: replace the fastest kept one when a slower request comes. */
static void keep_slowest(struct cli *c, struct vp_request *r)
{
	size_t min = 0;

	if (c->nkept < c->slowest) {
		c->kept[c->nkept++] = r;
		return;
	}
	for (size_t i = 1; i < c->nkept; i++)
		if (duration_of(c->kept[i]) < duration_of(c->kept[min]))
			min = i;
	if (duration_of(r) > duration_of(c->kept[min])) {
		vp_request__free(c->kept[min]);
		c->kept[min] = r;
	} else {
		vp_request__free(r);
	}
}

static void on_request(void *ctx, struct vp_request *r)
{
	struct cli *c = ctx;

	vp_progress__tick(&c->progress, c->a);
	if (!c->t0_set) {
		/* The common timeline's origin: the earliest record of any host. */
		int64_t t0 = INT64_MAX;

		for (size_t h = 0; h < vp_analysis__nhosts(c->a); h++) {
			const struct vp_host *ho = vp_analysis__host(c->a, h);
			int64_t at = (int64_t)ho->first_ts + vp_analysis__offset(c->a, h);

			if (ho->records && at < t0)
				t0 = at;
		}
		c->out.t0 = t0 == INT64_MAX ? 0 : t0;
		c->t0_set = true;
	}
	if (!wanted(c, r)) {
		vp_request__free(r);
		return;
	}
	if (c->slowest) {
		keep_slowest(c, r);
		return;
	}
	write_request(c, r);
	vp_request__free(r);
}

static int by_duration_desc(const void *x, const void *y)
{
	int64_t a = duration_of(*(struct vp_request *const *)x);
	int64_t b = duration_of(*(struct vp_request *const *)y);

	return a > b ? -1 : a < b;
}

static int parse_command(const char *s, enum command *cmd)
{
	static const char *const names[] = {"paths", "show",   "table",  "patterns", "dot",
					    "dump",  "otlp", "sqlite", "report", "baseline",
					    "local"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*cmd = (enum command)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * A duration option: at most VP_OFFSET_MAX (36 years), so that adding it to
 * a time of the common timeline cannot overflow.
 */
static int parse_span(const char *s, uint64_t *ns)
{
	int err = parse_duration(s, ns);

	return err ? err : *ns > (uint64_t)VP_OFFSET_MAX ? -ERANGE : 0;
}

static int parse_args(struct cli *c, int argc, char **argv)
{
	enum { OPT_CSV = 256, OPT_FROM, OPT_TO, OPT_REORDER, OPT_ENDPOINT, OPT_NESTING, OPT_CONVOLUTION,
	       OPT_QUANTUM, OPT_MAX_LAG, OPT_THREADS, OPT_PAIRS,
	       OPT_NO_FRAMES };
	static const struct option longs[] = {
		{"json", no_argument, NULL, 'j'},	   {"csv", no_argument, NULL, OPT_CSV},
		{"slowest", required_argument, NULL, 'n'}, {"request", required_argument, NULL, 'r'},
		{"pattern", required_argument, NULL, 'p'}, {"from", required_argument, NULL, OPT_FROM},
		{"to", required_argument, NULL, OPT_TO},   {"entry", required_argument, NULL, 'e'},
		{"window", required_argument, NULL, 'w'},  {"reorder", required_argument, NULL, OPT_REORDER},
		{"verbose", no_argument, NULL, 'v'},	   {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"output", required_argument, NULL, 'o'},  {"endpoint", required_argument, NULL, OPT_ENDPOINT},
		{"nesting", no_argument, NULL, OPT_NESTING}, {"convolution", no_argument, NULL, OPT_CONVOLUTION},
		{"quantum", required_argument, NULL, OPT_QUANTUM}, {"max-lag", required_argument, NULL, OPT_MAX_LAG},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"pairs", required_argument, NULL, OPT_PAIRS},
		{"no-frames", no_argument, NULL, OPT_NO_FRAMES},
		{NULL, 0, NULL, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "jn:r:p:e:w:o:vhV", longs, NULL)) != -1) {
		int err = 0;

		switch (opt) {
		case 'j':
			c->json = true;
			break;
		case OPT_CSV:
			c->csv = true;
			break;
		case 'n':
			err = parse_u64(optarg, 1000000, &c->slowest);
			if (!err && !c->slowest)
				err = -EINVAL;
			break;
		case 'r':
			err = parse_u64(optarg, UINT64_MAX, &c->request_id);
			if (!err && !c->request_id)
				err = -EINVAL;
			break;
		case 'p':
			err = parse_u64(optarg, 1000000, &c->pattern);
			if (!err && !c->pattern)
				err = -EINVAL;
			break;
		case OPT_FROM:
			err = parse_span(optarg, &c->from_ns);
			c->have_from = true;
			break;
		case OPT_TO:
			err = parse_span(optarg, &c->to_ns);
			c->have_to = true;
			break;
		case 'e':
			err = vp_endpoint__parse(optarg, &c->entry);
			c->have_entry = true;
			break;
		case 'w':
			err = parse_span(optarg, &c->opts.window_ns);
			break;
		case OPT_REORDER:
			err = parse_span(optarg, &c->opts.reorder_ns);
			break;
		case OPT_THREADS: {
			uint64_t n;

			err = parse_u64(optarg, 1024, &n);
			if (!err && !n)
				err = -EINVAL;
			c->opts.threads = (unsigned)n;
			break;
		}
		case OPT_PAIRS:
			c->opts.pairs = optarg;
			break;
		case OPT_NO_FRAMES:
			c->opts.no_frames = true;
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'o':
			c->export_opts.path = optarg;
			break;
		case OPT_ENDPOINT:
			c->export_opts.endpoint = optarg;
			break;
		case OPT_NESTING:
			c->nesting = true;
			break;
		case OPT_CONVOLUTION:
			c->convolution = true;
			break;
		case OPT_QUANTUM:
			err = parse_span(optarg, (uint64_t *)&c->conv.quantum_ns);
			if (!err && !c->conv.quantum_ns)
				err = -EINVAL;
			break;
		case OPT_MAX_LAG:
			err = parse_span(optarg, (uint64_t *)&c->conv.max_lag_ns);
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case 'V':
			fputs(version, stdout);
			exit(0);
		default:
			fprintf(stderr, "error: bad option (see vpath-analyze --help)\n");
			return -EINVAL;
		}
		if (err) {
			const char *name = "?";

			for (const struct option *o = longs; o->name; o++)
				if (o->val == opt)
					name = o->name;
			fprintf(stderr, "error: invalid value '%s' for option --%s\n", optarg, name);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "error: no recording given (see vpath-analyze --help)\n");
		return -EINVAL;
	}
	if (c->cmd == CMD_SHOW && !c->request_id) {
		fprintf(stderr, "error: show needs --request ID\n");
		return -EINVAL;
	}
	if (c->cmd == CMD_SQLITE && !c->export_opts.path) {
		fprintf(stderr, "error: sqlite needs -o FILE\n");
		return -EINVAL;
	}
	if (c->export_opts.endpoint && (c->cmd != CMD_OTLP || c->export_opts.path)) {
		fprintf(stderr, "error: --endpoint is for otlp, without -o\n");
		return -EINVAL;
	}
	if (c->export_opts.path && c->cmd != CMD_OTLP && c->cmd != CMD_SQLITE && c->cmd != CMD_REPORT) {
		fprintf(stderr, "error: -o is for otlp, sqlite and report\n");
		return -EINVAL;
	}
	if (c->cmd == CMD_REPORT) { /* -n: the report's waterfalls, not a filter */
		c->export_opts.slowest = c->slowest;
		c->slowest = 0;
	}
	if (c->cmd == CMD_BASELINE && c->nesting == c->convolution) {
		fprintf(stderr, "error: baseline needs one of --nesting and --convolution\n");
		return -EINVAL;
	}
	if (c->cmd == CMD_BASELINE && c->conv.max_lag_ns / c->conv.quantum_ns > 10000000) {
		fprintf(stderr, "error: --max-lag is more than ten million quanta\n");
		return -EINVAL;
	}
	if (c->cmd == CMD_BASELINE && c->conv.max_lag_ns < c->conv.quantum_ns) {
		fprintf(stderr, "error: --max-lag is shorter than --quantum\n");
		return -EINVAL;
	}
	if (c->cmd == CMD_DOT && !c->request_id && !c->pattern) {
		fprintf(stderr, "error: dot needs --request ID or --pattern N\n");
		return -EINVAL;
	}
	return 0;
}

/* baseline: Project 5's algorithms on the calls the analysis paired, printed at the end. */
static int run_baseline(struct cli *c)
{
	int ret;

	if (c->nesting) {
		struct vp_nest_opts o;
		struct vp_nesting n;

		vp_nest_opts__default(&o);
		ret = vp_nesting__run(&n, &c->btrace, &o);
		if (!ret && c->json)
			vp_nesting__print_json(&n, &c->btrace, stdout);
		else if (!ret)
			vp_nesting__print(&n, &c->btrace, stdout);
		vp_nesting__free(&n);
	} else {
		struct vp_convolution cv;

		ret = vp_convolution__run(&cv, &c->btrace, &c->conv);
		if (!ret && c->json)
			vp_convolution__print_json(&cv, &c->btrace, &c->conv, stdout);
		else if (!ret)
			vp_convolution__print(&cv, &c->btrace, &c->conv, stdout);
		vp_convolution__free(&cv);
	}
	if (ret)
		fprintf(stderr, "error: baseline failed: %s\n", strerror(-ret));
	return ret;
}

/* `calls FILE.vpl...`: every call end as a row (localtsv.h); 1 when a file is unreadable or damaged. */
static int cmd_calls(char **files, int n)
{
	int status = 0;

	if (!n) {
		fprintf(stderr, "error: calls needs local files (vpath-analyze local)\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (vp_local__tsv(files[i], stdout, stderr) < 0)
			status = 1;
	return status;
}

static int cmd_dump(char **files, int n)
{
	int status = 0;

	for (int i = 0; i < n; i++) {
		int r = vpl_is_local(files[i]) ? vp_local__dump(files[i], stdout, stderr)
					       : vp_dump_file(files[i], stdout, stderr);

		if (r < 0)
			status = 1;
	}
	return status;
}

/* `local -o OUT [-v] FILE...`: one host's recordings into a local file (local.h). */
static int cmd_local(int argc, char **argv)
{
	static const struct option longs[] = {
		{"output", required_argument, NULL, 'o'},
		{"verbose", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	struct vp_local_stats st;
	const char *out = NULL;
	bool verbose = false;
	char err[512];
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:v", longs, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'v')
			verbose = true;
		else
			return 2;
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "error: local needs -o FILE and one host's recording (see --help)\n");
		return 2;
	}
	if (vp_local__write(argv + optind, argc - optind, out, &st, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	if (verbose)
		fprintf(stderr, "%s: %" PRIu64 " records, %" PRIu64 " calls (%" PRIu64
			" linked in the host), %" PRIu64 " bytes from %" PRIu64 " (%.1f%%; records %"
			PRIu64 ", calls %" PRIu64 ")\n", out, st.records, st.calls, st.links,
			st.out_bytes, st.in_bytes,
			st.in_bytes ? 100.0 * (double)st.out_bytes / (double)st.in_bytes : 0.0,
			st.recs_bytes, st.calls_bytes);
	return 0;
}

static void report(struct cli *c)
{
	struct vp_analysis_stats st;

	vp_analysis__stats(c->a, &st);
	for (size_t h = 0; h < vp_analysis__nhosts(c->a); h++) {
		const struct vp_host *ho = vp_analysis__host(c->a, h);

		if (ho->lost)
			fprintf(stderr, "warning: %s: the recorder lost %" PRIu64
				" records; requests overlapping the loss are marked incomplete\n",
				ho->name, ho->lost);
		if (ho->wall_steps)
			fprintf(stderr, "warning: %s: its wall clock was stepped %u time%s, by up to "
				"%+.3f s (%.1f s into its recording); times come from its monotonic "
				"clock and are not affected\n", ho->name, ho->wall_steps,
				ho->wall_steps == 1 ? "" : "s", (double)ho->wall_step_ns / 1e9,
				(double)(ho->wall_step_at_ns - ho->first_ts) / 1e9);
		if (ho->skipped)
			fprintf(stderr, "warning: %s: %" PRIu64 " records with impossible values"
				" (time, direction) were skipped\n", ho->name, ho->skipped);
		if (ho->payloads_bad)
			fprintf(stderr, "warning: %s: %" PRIu64 " payload records were damaged (len beyond"
				" the record) and not used\n", ho->name, ho->payloads_bad);
		if (ho->truncated && !ho->corrupt)
			fprintf(stderr, "warning: %s: %s; used everything before it\n", ho->name, ho->damage);
		if (ho->corrupt)
			fprintf(stderr, "error: %s; used everything before it\n", ho->damage);
		if (c->verbose) {
			char how[64];

			fprintf(stderr, "host %zu %s: %" PRIu64 " records, offset %" PRId64 " ns (%s), %" PRIu64
				" late\n", h, ho->name, ho->records, vp_analysis__offset(c->a, h),
				vp_analysis__clock_source(c->a, h, how, sizeof(how)), ho->late);
		}
	}
	if (c->verbose) {
		size_t np;
		const struct vp_proc **pv = vp_analysis__procs(c->a, &np);

		for (size_t i = 0; pv && i < np; i++) {
			char ids[128] = "";

			if (vp_proc__model(pv[i]) == VP_MODEL_IDLE)
				continue;
			/* Only where calls carried ids: outputs without payload stay as they were. */
			if (pv[i]->calls_with_id)
				snprintf(ids, sizeof(ids), "; %" PRIu64 " carried an id, %" PRIu64
					 " linked by it, %" PRIu64 " disagreements", pv[i]->calls_with_id,
					 pv[i]->calls_by_id, pv[i]->id_disagree);
			fprintf(stderr, "process %s %s(%u): %s, %" PRIu64 " requests served, %" PRIu64
				" calls (%" PRIu64 " exact%s)\n",
				vp_analysis__host(c->a, (size_t)pv[i]->host)->name,
				pv[i]->comm[0] ? pv[i]->comm : "?", pv[i]->pid,
				vp_model_name(vp_proc__model(pv[i])), pv[i]->served, pv[i]->calls,
				vp_proc__calls_exact(pv[i]), ids);
		}
		free(pv);
	}
	if (c->verbose)
		fprintf(stderr,
			"%" PRIu64 " records, %" PRIu64 " sockets, %" PRIu64 " exchanges, %" PRIu64
			" calls matched, %" PRIu64 " peers not found, %" PRIu64 " requests (%" PRIu64
			" exact), %" PRIu64 " calls\n",
			st.events, st.sockets, st.exchanges, st.matched, st.given_up, st.requests,
			st.requests_exact, st.calls);
}

int main(int argc, char **argv)
{
	struct cli c = {0};
	char err[512];
	int ret, status = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		fputs(version, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "calls"))
		return cmd_calls(argv + 2, argc - 2);
	if (parse_command(argv[1], &c.cmd)) {
		fprintf(stderr, "error: unknown command '%s' (see vpath-analyze --help)\n", argv[1]);
		return 2;
	}
	if (c.cmd == CMD_DUMP) {
		if (argc < 3) {
			fprintf(stderr, "error: dump needs a recording file\n");
			return 2;
		}
		return cmd_dump(argv + 2, argc - 2);
	}
	if (c.cmd == CMD_LOCAL)
		return cmd_local(argc - 1, argv + 1);
	vp_conv_opts__default(&c.conv);
	if (parse_args(&c, argc - 1, argv + 1))
		return 2;
	/*
	 * Requests are built at the rate of the recording and freed about a
	 * second later (loss reports): with glibc's defaults the heap's top was
	 * given back and grown again all the time, a third of the CPU time in
	 * malloc and page faults on tests/bench/fleet.sh's recording.
	 */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	c.opts.on_request = on_request;
	c.opts.ctx = &c;
	c.out.f = stdout;
	c.out.csv = c.csv;
	ret = vp_analysis__new(&c.a, argv + 1 + optind, argc - 1 - optind, &c.opts, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	c.out.a = c.a;
	for (size_t h = 0; h < vp_analysis__nhosts(c.a); h++)
		c.out.witnesses |= vp_analysis__host(c.a, h)->captured;
	vp_progress__init(&c.progress, c.a, stderr, vp_progress__wanted(stderr));
	if (c.cmd == CMD_OTLP || c.cmd == CMD_SQLITE || c.cmd == CMD_REPORT) {
		c.export = vp_export__open(c.cmd == CMD_OTLP	 ? VP_EXPORT_OTLP
					   : c.cmd == CMD_SQLITE ? VP_EXPORT_SQLITE
								 : VP_EXPORT_REPORT,
					   &c.export_opts, err, sizeof(err));
		if (!c.export) {
			fprintf(stderr, "error: %s\n", err);
			status = 1;
			goto cleanup;
		}
	}
	if (c.slowest && !(c.kept = calloc(c.slowest, sizeof(*c.kept)))) {
		fprintf(stderr, "error: out of memory\n");
		status = 1;
		goto cleanup;
	}
	if (c.cmd == CMD_PATTERNS || (c.cmd == CMD_DOT && c.pattern))
		c.patterns = vp_patterns__new();
	if (c.cmd == CMD_TABLE)
		vp_out_table_header(&c.out);
	if (c.json && (c.cmd == CMD_PATHS || c.cmd == CMD_SHOW))
		vp_out_json_begin(&c.out);
	ret = vp_analysis__run(c.a);
	vp_progress__done(&c.progress);
	if (ret) {
		fprintf(stderr, "error: analysis failed: %s\n", strerror(-ret));
		status = 1;
	}
	if (c.nkept)
		qsort(c.kept, c.nkept, sizeof(*c.kept), by_duration_desc);
	for (size_t i = 0; i < c.nkept; i++) {
		write_request(&c, c.kept[i]);
		vp_request__free(c.kept[i]);
	}
	if (c.json && (c.cmd == CMD_PATHS || c.cmd == CMD_SHOW))
		vp_out_json_end(&c.out);
	if (c.cmd == CMD_PATTERNS)
		vp_patterns__print(c.patterns, &c.out);
	if (c.cmd == CMD_DOT && c.pattern && vp_patterns__dot(c.patterns, &c.out, c.pattern)) {
		fprintf(stderr, "error: no pattern %" PRIu64 "\n", c.pattern);
		status = 1;
	}
	if ((c.cmd == CMD_SHOW || c.cmd == CMD_DOT) && c.request_id && !c.shown) {
		fprintf(stderr, "error: no request %" PRIu64 "\n", c.request_id);
		status = 1;
	}
	if (c.export && vp_export__finish(c.export, c.a, c.out.t0))
		status = 1;
	if (c.cmd == CMD_BASELINE && !ret && run_baseline(&c))
		status = 1;
	report(&c);
	for (size_t h = 0; h < vp_analysis__nhosts(c.a); h++)
		if (vp_analysis__host(c.a, h)->corrupt)
			status = 1;
cleanup:
	vp_export__free(c.export);
	free(c.kept);
	vp_patterns__free(c.patterns);
	vp_btrace__free(&c.btrace);
	vp_analysis__free(c.a);
	return status;
}
