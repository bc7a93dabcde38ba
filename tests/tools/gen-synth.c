// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gen-synth: writes synthetic recordings of a four-host system, as large as
 * asked, for the analyzer's benchmark and command-line tests.
 *
 *   lg (load generator, C client threads, keep-alive connections)
 *    -> web (thread per connection)
 *        -> app (one dispatcher thread reads, C workers call and reply)
 *            -> db (thread per connection), over a pool of C persistent
 *               connections that the app workers share in turn
 *
 * Each request makes 1..3 database calls (by its number) of --service us
 * each.  The C client threads start requests in turn, spread over a round
 * as long as the longest request, so each client's requests are strictly
 * one after the other and about 2/3 C are in flight at once (at C = 64 and
 * the default 700 us, about 500K records per second).  Every host writes a
 * clock record each second, as the recorder does (the analyzer holds
 * finished requests until the next tick says whether records were lost).
 * Output: DIR/{lg,web,app,db}.vpr; prints "requests N events N calls N".
 *
 * --hosts N (at least 4) spreads the three server tiers over N - 1 hosts
 * (web, app, db in turn get one more): client thread i goes to web host
 * i mod W and app host i mod A, and each app host has its own pool of
 * database connections, spread over the db hosts.  Files are then
 * DIR/{lg,webK,appK,dbK}.vpr.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/synth.h"

#define US 1000ull

enum { LG, WEB, APP, DB, NTIERS };

static const char *const names[NTIERS] = {"lg", "web", "app", "db"};
static const char *const addrs[NTIERS] = {"10.1.0.9", "10.1.0.1", "10.1.0.3", "10.1.0.2"};
static const uint32_t pids[NTIERS] = {900, 300, 500, 400};
#define HOSTS_MAX 1000

struct gen {
	struct synth_host **h;	 /* lg, then the web, app and db hosts */
	uint32_t nhosts, n[NTIERS]; /* hosts in all, per tier */
	char (*addr)[32];	 /* per host */
	struct synth_link **front, **mid, **pool; /* lg->web, web->app per client; app->db per slot */
	uint64_t events_target;
	uint32_t conc;
	uint64_t requests, calls;
	int64_t skew;
	uint64_t service_ns;
};

/* Index in g->h of host k of a tier. */
static uint32_t host_of(const struct gen *g, int tier, uint32_t k)
{
	uint32_t first = 0;

	for (int t = 0; t < tier; t++)
		first += g->n[t];
	return first + k % g->n[tier];
}

/* Clients of app host a: i = a, a + A, ...; client i is the (i / A)-th of them. */
static uint32_t app_clients(const struct gen *g, uint32_t a)
{
	return (g->conc - a + g->n[APP] - 1) / g->n[APP];
}

static uint64_t events(const struct gen *g)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < g->nhosts; i++)
		n += synth_host__records(g->h[i]);
	return n;
}

static void open_links(struct gen *g)
{
	char a[64], b[64];

	g->front = calloc(g->conc, sizeof(*g->front));
	g->mid = calloc(g->conc, sizeof(*g->mid));
	g->pool = calloc(g->conc, sizeof(*g->pool));
	if (!g->front || !g->mid || !g->pool)
		exit(1);
	for (uint32_t i = 0; i < g->conc; i++) {
		uint32_t lg = host_of(g, LG, 0), web = host_of(g, WEB, i), app = host_of(g, APP, i);
		/* Pool slot i belongs to app host i mod A, as its (i / A)-th connection. */
		uint32_t db = host_of(g, DB, i / g->n[APP] + i % g->n[APP]);

		snprintf(a, sizeof(a), "%s:%u", g->addr[lg], 40000 + i);
		snprintf(b, sizeof(b), "%s:80", g->addr[web]);
		g->front[i] = synth_link__open(g->h[lg], 1000 + i, pids[LG], g->h[web], 2000 + i,
					       pids[WEB], a, b, 0);
		snprintf(a, sizeof(a), "%s:%u", g->addr[web], 41000 + i);
		snprintf(b, sizeof(b), "%s:8080", g->addr[app]);
		g->mid[i] = synth_link__open(g->h[web], 3000 + i, pids[WEB], g->h[app], 4000 + i,
					     pids[APP], a, b, 0);
		snprintf(a, sizeof(a), "%s:%u", g->addr[app], 42000 + i);
		snprintf(b, sizeof(b), "%s:5432", g->addr[db]);
		g->pool[i] = synth_link__open(g->h[app], 5000 + i, pids[APP], g->h[db], 6000 + i,
					      pids[DB], a, b, 0);
	}
}

/* One request of client thread i in round r, starting at t. */
static void request(struct gen *g, uint32_t i, uint64_t r, uint64_t t)
{
	uint32_t lg_tid = pids[LG] + 1 + i, web_tid = pids[WEB] + 1 + i;
	uint32_t disp = pids[APP] + 1, worker = pids[APP] + 2 + i;
	/* The app host's connections in turn: the one its previous client used a round ago. */
	uint32_t na = g->n[APP], app = i % na, k = i / na;
	uint32_t slot = app + na * (uint32_t)((k + r) % app_clients(g, app));
	uint32_t db_tid = pids[DB] + 1 + slot;
	uint32_t ncalls = 1 + (uint32_t)((r * 7 + i) % 3);
	struct synth_link *p = g->pool[slot];

	/* The request arrives in two pieces; the web thread reads it in one. */
	synth_xfer_half(g->front[i], SYNTH_C2S, false, 200, lg_tid, t, true);
	synth_xfer_half(g->front[i], SYNTH_C2S, false, 120, lg_tid, t + 1 * US, true);
	g->front[i]->seq[SYNTH_C2S] -= 320;
	synth_xfer_half(g->front[i], SYNTH_C2S, true, 320, web_tid, t + 6 * US, true);
	synth_req(g->mid[i], 150, web_tid, t + 10 * US, disp);
	t += 15 * US;
	for (uint32_t k = 0; k < ncalls; k++) {
		synth_req(p, 60, worker, t + 5 * US, db_tid);
		synth_rep(p, 400, db_tid, t + 10 * US + g->service_ns, worker);
		t += 20 * US + g->service_ns;
		g->calls++;
	}
	synth_rep(g->mid[i], 900, worker, t + 5 * US, web_tid);
	synth_rep(g->front[i], 1400, web_tid, t + 15 * US, lg_tid);
	g->requests++;
	g->calls += 2;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{"out", required_argument, NULL, 'o'},	       {"events", required_argument, NULL, 'e'},
		{"concurrency", required_argument, NULL, 'c'}, {"skew", required_argument, NULL, 's'},
		{"service", required_argument, NULL, 'S'},    {"hosts", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct gen g = {.events_target = 100000, .conc = 16, .service_ns = 700 * US, .nhosts = 4};
	uint64_t period, next_tick = 1000000000ull;
	const char *out = ".";
	char path[4096];
	int opt, err = 0;

	while ((opt = getopt_long(argc, argv, "o:e:c:s:S:H:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'e':
			g.events_target = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			g.conc = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			g.skew = strtoll(optarg, NULL, 0);
			break;
		case 'S':
			g.service_ns = strtoull(optarg, NULL, 0) * US;
			break;
		case 'H':
			g.nhosts = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr,
				"usage: gen-synth [--out DIR] [--events N] [--concurrency C] [--skew NS]\n"
				"                 [--service US] [--hosts N]\n"
				"  writes DIR/{lg,web,app,db}.vpr with about N records; host k's clock\n"
				"  runs k*NS ahead of the first host's.  --hosts N (>= 4): the web, app\n"
				"  and db tiers spread over N - 1 hosts (files webK, appK, dbK).\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!g.conc || g.conc > 20000) {
		fprintf(stderr, "gen-synth: concurrency must be 1..20000\n");
		return 2;
	}
	if (g.nhosts < 4 || g.nhosts > HOSTS_MAX) {
		fprintf(stderr, "gen-synth: hosts must be 4..%d\n", HOSTS_MAX);
		return 2;
	}
	g.n[LG] = 1;
	for (uint32_t k = 0; k < g.nhosts - 1; k++)
		g.n[WEB + k % 3]++;
	if (g.conc < g.n[WEB] || g.conc <= g.n[APP]) {
		fprintf(stderr, "gen-synth: concurrency must exceed the hosts of a tier\n");
		return 2;
	}
	g.h = calloc(g.nhosts, sizeof(*g.h));
	g.addr = calloc(g.nhosts, sizeof(*g.addr));
	if (!g.h || !g.addr)
		return 1;
	/*
	 * Rounds are longer than the longest request (3 database calls): a
	 * client's next request starts after its previous one, and a pooled
	 * connection (client i's in round r is client i-1's in round r+1, which
	 * starts period/C earlier in its round) is free before it is reused.
	 */
	/*
	 * With A app hosts a connection passes from client i to client i - A,
	 * which starts A*period/C earlier in its round: rounds are longer by
	 * C/(C - A).
	 */
	period = 80 * US + 3 * (20 * US + g.service_ns);
	if (g.conc > 1)
		period = period * g.conc / (g.conc - g.n[APP]) + 10 * US;
	for (uint32_t i = 0, tier = 0, k = 0; i < g.nhosts; i++, k++) {
		char name[32];

		for (; k >= g.n[tier]; k = 0)
			tier++;
		if (g.n[tier] == 1) {
			snprintf(name, sizeof(name), "%s", names[tier]);
			snprintf(g.addr[i], sizeof(g.addr[i]), "%s", addrs[tier]);
		} else {
			snprintf(name, sizeof(name), "%s%u", names[tier], k);
			snprintf(g.addr[i], sizeof(g.addr[i]), "10.%u.%u.%u", 2 + tier, k / 250, k % 250 + 1);
		}
		snprintf(path, sizeof(path), "%s/%s.vpr", out, name);
		g.h[i] = synth_host__new(path, name, NULL, 100 + i);
		if (!g.h[i]) {
			fprintf(stderr, "gen-synth: %s: %s\n", path, strerror(errno));
			return 1;
		}
		synth_host__set_clock(g.h[i], g.skew * i);
		synth_host__set_buffered(g.h[i], true);
		synth_addr(g.h[i], g.addr[i]);
		synth_task(g.h[i], 0, pids[tier], pids[tier], VPR_TASK_SNAPSHOT, name);
	}
	open_links(&g);
	/* Client i starts period/C after client i-1. */
	for (uint64_t r = 0; events(&g) < g.events_target; r++) {
		uint64_t start = 10 * US + r * period;

		for (uint32_t i = 0; i < g.conc; i++)
			request(&g, i, r, start + i * period / g.conc);
		for (; next_tick <= start; next_tick += 1000000000ull)
			for (uint32_t h = 0; h < g.nhosts; h++)
				synth_clock(g.h[h], next_tick, 1700000000000000000ull + next_tick);
		/* Everything before this round's start is final: write it in time order. */
		for (uint32_t h = 0; h < g.nhosts; h++)
			synth_host__drain(g.h[h], start);
	}
	for (uint32_t i = 0; i < g.conc; i++) {
		synth_link__free(g.front[i]);
		synth_link__free(g.mid[i]);
		synth_link__free(g.pool[i]);
	}
	free(g.front);
	free(g.mid);
	free(g.pool);
	printf("requests %" PRIu64 " events %" PRIu64 " calls %" PRIu64 "\n", g.requests, events(&g),
	       g.calls);
	for (uint32_t i = 0; i < g.nhosts; i++)
		err |= synth_host__close(g.h[i]);
	free(g.h);
	free(g.addr);
	return err ? 1 : 0;
}
