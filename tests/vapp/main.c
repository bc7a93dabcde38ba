// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* vapp: the multi-tier test application of the vPath paper (section 4.1),
 * whose replies carry their own true path.  Subcommands:
 *   vapp server   --config FILE --name NAME       run one server
 *   vapp client   --config FILE [options]         run the client sessions
 *   vapp topology --config FILE [--json]          print servers and hosts */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "config.h"
#include "server.h"

static const char usage[] =
	"Usage: vapp server   --config FILE --name NAME [--log-visits]\n"
	"       vapp client   --config FILE [--sessions N] [--requests N | --duration SEC]\n"
	"                     [--seed N] [--out FILE] [--think-us N] [--reconnect-every N]\n"
	"       vapp topology --config FILE [--json]\n"
	"\n"
	"The client writes one JSON line per request to --out (default: stdout):\n"
	"the true call tree {server, client, conn_index, rt_ns, calls[]}, plus\n"
	"session, seq, start_ns and a short path like \"t1s1(t2s1(t3s1),t2s2)\".\n"
	"Its summary line goes to stdout last.  A server with --log-visits writes\n"
	"\"vapp NAME: visit CLIENT#ORDINAL\" to stderr as each request begins (a log\n"
	"line whose call the truth knows: vpath-record --logs).\n"
	"\n"
	"Examples:\n"
	"  vapp server --config tests/e2e/scenarios/accuracy.conf --name t1s1 &\n"
	"  vapp client --config tests/e2e/scenarios/accuracy.conf --sessions 32 \\\n"
	"       --requests 5000 --seed 7 --out truth.jsonl\n";

enum {
	OPT_CONFIG = 'c',
	OPT_NAME = 'n',
	OPT_SESSIONS = 's',
	OPT_REQUESTS = 'r',
	OPT_DURATION = 'd',
	OPT_SEED = 'S',
	OPT_OUT = 'o',
	OPT_THINK = 't',
	OPT_RECONNECT = 'R',
	OPT_JSON = 'j',
	OPT_LOG_VISITS = 'L',
	OPT_HELP = 'h',
};

static const struct option long_options[] = {
	{"config", required_argument, NULL, OPT_CONFIG},
	{"name", required_argument, NULL, OPT_NAME},
	{"sessions", required_argument, NULL, OPT_SESSIONS},
	{"requests", required_argument, NULL, OPT_REQUESTS},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"seed", required_argument, NULL, OPT_SEED},
	{"out", required_argument, NULL, OPT_OUT},
	{"think-us", required_argument, NULL, OPT_THINK},
	{"reconnect-every", required_argument, NULL, OPT_RECONNECT},
	{"json", no_argument, NULL, OPT_JSON},
	{"log-visits", no_argument, NULL, OPT_LOG_VISITS},
	{"help", no_argument, NULL, OPT_HELP},
	{},
};

struct cmdline {
	const char *config;
	const char *name;
	int json;
	int log_visits;
	struct vapp_client_opts client;
};

static const char *option_name(int opt)
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return errno || end == s || *end || *out < min || *out > max ? -EINVAL : 0;
}

static int parse_cmdline(int argc, char **argv, struct cmdline *cmd)
{
	long v;
	char *end;
	int opt;

	cmd->client = (struct vapp_client_opts){.out_path = "-", .sessions = 8, .seed = 1};
	while ((opt = getopt_long(argc, argv, "c:n:s:r:d:S:o:t:R:jLh", long_options, NULL)) != -1) {
		int err = 0;

		switch (opt) {
		case OPT_CONFIG:
			cmd->config = optarg;
			break;
		case OPT_NAME:
			cmd->name = optarg;
			break;
		case OPT_OUT:
			cmd->client.out_path = optarg;
			break;
		case OPT_JSON:
			cmd->json = 1;
			break;
		case OPT_LOG_VISITS:
			cmd->log_visits = 1;
			break;
		case OPT_SESSIONS:
			err = parse_long(optarg, 1, 4096, &v);
			cmd->client.sessions = (int)v;
			break;
		case OPT_REQUESTS:
			err = parse_long(optarg, 1, 1000000000, &cmd->client.requests);
			break;
		case OPT_DURATION:
			cmd->client.duration_s = strtod(optarg, &end);
			err = *end || end == optarg || cmd->client.duration_s <= 0 ? -EINVAL : 0;
			break;
		case OPT_SEED:
			cmd->client.seed = strtoull(optarg, &end, 0);
			err = *end || end == optarg ? -EINVAL : 0;
			break;
		case OPT_THINK:
			err = parse_long(optarg, 0, 10000000, &v);
			cmd->client.think_us = (int)v;
			break;
		case OPT_RECONNECT:
			err = parse_long(optarg, 0, 1000000000, &v);
			cmd->client.reconnect_every = (int)v;
			break;
		case OPT_HELP:
			fputs(usage, stdout);
			exit(0);
		default:
			return -EINVAL;
		}
		if (err) {
			fprintf(stderr, "vapp: bad value '%s' for --%s\n", optarg,
				option_name(opt));
			return err;
		}
	}
	if (optind != argc || !cmd->config) {
		fprintf(stderr, "vapp: %s\n",
			optind != argc ? "unexpected argument" : "--config FILE is required");
		return -EINVAL;
	}
	return 0;
}

static int print_topology(const struct vapp_topology *topo, int json)
{
	for (int i = 0; i < topo->nservers; i++) {
		const struct vapp_server_cfg *s = &topo->servers[i];

		if (json)
			printf("%s{\"name\":\"%s\",\"addr\":\"%s\",\"model\":\"%s\"}",
			       i ? "," : "[", s->name, s->addr_str, vapp_model_name(s->model));
		else
			printf("server %s %s %s\n", s->name, s->addr_str,
			       vapp_model_name(s->model));
	}
	if (json)
		printf("]\n");
	else
		printf("client %s\n", topo->client_ip);
	return 0;
}

static int run_server(const struct vapp_topology *topo, const char *name, int log_visits)
{
	struct vapp_server srv;
	int self, err;

	self = name ? vapp_topology__find(topo, name) : -1;
	if (self < 0) {
		fprintf(stderr, "vapp: --name must name a server of the topology\n");
		return -EINVAL;
	}
	err = vapp_server__open(&srv, topo, self);
	if (err) {
		fprintf(stderr, "vapp %s: cannot listen on %s: %s\n", name,
			topo->servers[self].addr_str, strerror(-err));
		return err;
	}
	srv.log_visits = log_visits;
	/* the harness waits for this line before starting the client */
	fprintf(stderr, "vapp %s: listening on %s (%s)\n", name, topo->servers[self].addr_str,
		vapp_model_name(topo->servers[self].model));
	err = vapp_server__run(&srv);
	fprintf(stderr, "vapp %s: stopped: %s\n", name, strerror(-err));
	vapp_server__close(&srv);
	return err;
}

int main(int argc, char **argv)
{
	static struct vapp_topology topo; /* large: keep it off the stack */
	struct cmdline cmd = {};
	const char *sub = argc > 1 ? argv[1] : "";
	int err;

	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(sub, "server") && strcmp(sub, "client") && strcmp(sub, "topology")) {
		fputs(usage, stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	err = parse_cmdline(argc - 1, argv + 1, &cmd);
	if (!err)
		err = vapp_topology__load(&topo, cmd.config);
	if (err)
		return 2;
	if (strcmp(sub, "topology") == 0) {
		err = print_topology(&topo, cmd.json);
	} else if (strcmp(sub, "server") == 0) {
		err = run_server(&topo, cmd.name, cmd.log_visits);
	} else {
		if (cmd.client.requests == 0 && cmd.client.duration_s == 0)
			cmd.client.requests = 1000;
		err = vapp_client__run(&topo, &cmd.client);
	}
	return err ? 1 : 0;
}
