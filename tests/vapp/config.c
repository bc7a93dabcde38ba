// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Topology file parser.  Format, one directive per line, '#' comments:
 *   server NAME MODEL IP:PORT [CALLEE...]   MODEL: thread | workers[:N] | epoll
 *   client IP FRONT...                      the client's host and the servers it calls
 *   set KEY VALUE                           a decision knob (struct vapp_params)
 * Callees may be named before they are defined. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"

#define MAX_WORDS (4 + VAPP_MAX_CALLEES)

static const struct vapp_params default_params = {
	.call_prob = 0.7,
	.call_decay = 0.6,
	.max_calls = 3,
	.max_depth = 6,
	.repeat_prob = 0.3,
	.parts_prob = 0.3,
	.min_bytes = 16,
	.max_bytes = 2000,
	.big_prob = 0.02,
	.big_bytes = 200000,
	.max_delay_us = 200,
	.slow_prob = 0,
	.slow_us = 20000,
};

struct param_desc {
	const char *key;
	size_t offset;
	int is_int;
};

static const struct param_desc param_descs[] = {
	{"call_prob", offsetof(struct vapp_params, call_prob), 0},
	{"call_decay", offsetof(struct vapp_params, call_decay), 0},
	{"max_calls", offsetof(struct vapp_params, max_calls), 1},
	{"max_depth", offsetof(struct vapp_params, max_depth), 1},
	{"repeat_prob", offsetof(struct vapp_params, repeat_prob), 0},
	{"parts_prob", offsetof(struct vapp_params, parts_prob), 0},
	{"min_bytes", offsetof(struct vapp_params, min_bytes), 1},
	{"max_bytes", offsetof(struct vapp_params, max_bytes), 1},
	{"big_prob", offsetof(struct vapp_params, big_prob), 0},
	{"big_bytes", offsetof(struct vapp_params, big_bytes), 1},
	{"max_delay_us", offsetof(struct vapp_params, max_delay_us), 1},
	{"slow_prob", offsetof(struct vapp_params, slow_prob), 0},
	{"slow_us", offsetof(struct vapp_params, slow_us), 1},
};

/* Callee names are resolved after the whole file is read. */
struct pending_callees {
	int n;
	char names[VAPP_MAX_CALLEES][VAPP_NAME_LEN];
};

const char *vapp_model_name(enum vapp_model model)
{
	switch (model) {
	case VAPP_MODEL_THREAD:
		return "thread";
	case VAPP_MODEL_WORKERS:
		return "workers";
	case VAPP_MODEL_EPOLL:
		return "epoll";
	}
	return "?";
}

int vapp_parse_addr(const char *s, struct sockaddr_in *addr)
{
	char ip[VAPP_ADDR_LEN];
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon || (size_t)(colon - s) >= sizeof(ip))
		return -EINVAL;
	memcpy(ip, s, colon - s);
	ip[colon - s] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 1 || port > 65535)
		return -EINVAL;
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, ip, &addr->sin_addr) != 1)
		return -EINVAL;
	return 0;
}

int vapp_topology__find(const struct vapp_topology *topo, const char *name)
{
	for (int i = 0; i < topo->nservers; i++)
		if (strcmp(topo->servers[i].name, name) == 0)
			return i;
	return -1;
}

static int parse_model(const char *s, struct vapp_server_cfg *srv)
{
	char *end;

	if (strcmp(s, "thread") == 0) {
		srv->model = VAPP_MODEL_THREAD;
	} else if (strcmp(s, "epoll") == 0) {
		srv->model = VAPP_MODEL_EPOLL;
	} else if (strncmp(s, "workers", 7) == 0) {
		srv->model = VAPP_MODEL_WORKERS;
		srv->workers = 4;
		if (s[7] == ':') {
			srv->workers = (int)strtol(s + 8, &end, 10);
			if (*end || srv->workers < 1 || srv->workers > 256)
				return -EINVAL;
		} else if (s[7]) {
			return -EINVAL;
		}
	} else {
		return -EINVAL;
	}
	return 0;
}

static int parse_server(struct vapp_topology *topo, struct pending_callees *pending, char **w,
			int nw)
{
	struct vapp_server_cfg *srv;

	if (nw < 4 || topo->nservers >= VAPP_MAX_SERVERS || nw - 4 > VAPP_MAX_CALLEES)
		return -EINVAL;
	if (strlen(w[1]) >= VAPP_NAME_LEN - 5 || vapp_topology__find(topo, w[1]) >= 0)
		return -EINVAL; /* names leave room for a "-wNN" thread suffix */
	srv = &topo->servers[topo->nservers];
	memset(srv, 0, sizeof(*srv));
	strcpy(srv->name, w[1]);
	if (parse_model(w[2], srv) || vapp_parse_addr(w[3], &srv->addr))
		return -EINVAL;
	snprintf(srv->addr_str, sizeof(srv->addr_str), "%s", w[3]);
	pending[topo->nservers].n = nw - 4;
	for (int i = 4; i < nw; i++) {
		if (strlen(w[i]) >= VAPP_NAME_LEN)
			return -EINVAL;
		strcpy(pending[topo->nservers].names[i - 4], w[i]);
	}
	topo->nservers++;
	return 0;
}

static int parse_set(struct vapp_params *params, char **w, int nw)
{
	char *end;

	if (nw != 3)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(param_descs) / sizeof(param_descs[0]); i++) {
		const struct param_desc *d = &param_descs[i];
		char *field = (char *)params + d->offset;

		if (strcmp(d->key, w[1]) != 0)
			continue;
		if (d->is_int) {
			long v = strtol(w[2], &end, 10);

			if (*end || v < 0 || v > 100000000)
				return -EINVAL;
			*(int *)field = (int)v;
		} else {
			double v = strtod(w[2], &end);

			if (*end || v < 0 || v > 1)
				return -EINVAL;
			*(double *)field = v;
		}
		return 0;
	}
	return -EINVAL;
}

static int resolve_names(struct vapp_topology *topo, char front[][VAPP_NAME_LEN],
			 const struct pending_callees *pending, const char *path)
{
	for (int s = 0; s < topo->nservers; s++) {
		struct vapp_server_cfg *srv = &topo->servers[s];

		for (int i = 0; i < pending[s].n; i++) {
			int idx = vapp_topology__find(topo, pending[s].names[i]);

			if (idx < 0) {
				fprintf(stderr, "vapp: %s: server %s calls unknown server '%s'\n",
					path, srv->name, pending[s].names[i]);
				return -EINVAL;
			}
			srv->callees[srv->ncallees++] = idx;
		}
	}
	for (int i = 0; i < topo->nfront; i++) {
		int idx = vapp_topology__find(topo, front[i]);

		if (idx < 0) {
			fprintf(stderr, "vapp: %s: client calls unknown server '%s'\n", path,
				front[i]);
			return -EINVAL;
		}
		topo->front[i] = idx;
	}
	if (topo->nfront == 0) {
		fprintf(stderr, "vapp: %s: no 'client IP SERVER...' line\n", path);
		return -EINVAL;
	}
	return 0;
}

int vapp_topology__load(struct vapp_topology *topo, const char *path)
{
	struct pending_callees pending[VAPP_MAX_SERVERS];
	char front[VAPP_MAX_SERVERS][VAPP_NAME_LEN];
	char line[1024];
	int lineno = 0, err = 0;
	FILE *f;

	memset(topo, 0, sizeof(*topo));
	topo->params = default_params;
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		fprintf(stderr, "vapp: cannot open %s: %s\n", path, strerror(errno));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *w[MAX_WORDS + 1], *save = NULL, *tok;
		int nw = 0;

		lineno++;
		line[strcspn(line, "#\r\n")] = '\0';
		for (tok = strtok_r(line, " \t", &save); tok && nw <= MAX_WORDS;
		     tok = strtok_r(NULL, " \t", &save))
			w[nw++] = tok;
		if (nw == 0)
			continue;
		if (nw > MAX_WORDS) {
			err = -EINVAL;
		} else if (strcmp(w[0], "server") == 0) {
			err = parse_server(topo, pending, w, nw);
		} else if (strcmp(w[0], "set") == 0) {
			err = parse_set(&topo->params, w, nw);
		} else if (strcmp(w[0], "client") == 0 && nw >= 3 && topo->nfront == 0 &&
			   nw - 2 <= VAPP_MAX_SERVERS && strlen(w[1]) < VAPP_ADDR_LEN) {
			strcpy(topo->client_ip, w[1]);
			for (int i = 2; i < nw; i++) {
				if (strlen(w[i]) >= VAPP_NAME_LEN) {
					err = -EINVAL;
					break;
				}
				strcpy(front[topo->nfront++], w[i]);
			}
		} else {
			err = -EINVAL;
		}
		if (err) {
			fprintf(stderr,
				"vapp: %s:%d: bad line (see tests/vapp/config.c for the format)\n",
				path, lineno);
			goto cleanup;
		}
	}
	err = resolve_names(topo, front, pending, path);
	if (!err && topo->params.min_bytes > topo->params.max_bytes) {
		fprintf(stderr, "vapp: %s: min_bytes > max_bytes\n", path);
		err = -EINVAL;
	}
cleanup:
	fclose(f);
	return err;
}
