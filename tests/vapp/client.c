// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "call.h"
#include "client.h"
#include "plan.h"
#include "tree.h"

struct client {
	const struct vapp_topology *topo;
	const struct vapp_client_opts *opts;
	FILE *out;
	pthread_mutex_t out_lock;
	uint64_t deadline_ns;
	long issued, done, errors; /* atomics */
};

struct session {
	struct client *cl;
	int id;
	pthread_t tid;
};

/* Takes a ticket for one more request, or says the run is over. */
static int next_request(struct client *cl)
{
	if (cl->opts->requests > 0)
		return __atomic_fetch_add(&cl->issued, 1, __ATOMIC_RELAXED) < cl->opts->requests;
	return vapp_now_ns() < cl->deadline_ns;
}

static void write_line(struct client *cl, cJSON *line)
{
	char *text = cJSON_PrintUnformatted(line);

	if (!text)
		return;
	pthread_mutex_lock(&cl->out_lock);
	fputs(text, cl->out);
	fputc('\n', cl->out);
	pthread_mutex_unlock(&cl->out_lock);
	free(text);
}

static void record_error(struct client *cl, int session, const char *what, int err)
{
	cJSON *line = cJSON_CreateObject();

	__atomic_fetch_add(&cl->errors, 1, __ATOMIC_RELAXED);
	fprintf(stderr, "vapp client session %d: %s: %s\n", session, what, strerror(-err));
	if (!line)
		return;
	cJSON_AddNumberToObject(line, "session", session);
	cJSON_AddStringToObject(line, "error", what);
	cJSON_AddStringToObject(line, "reason", strerror(-err));
	write_line(cl, line);
	cJSON_Delete(line);
}

/* One truth line: the root call object plus session, sequence and short path. */
static int record_truth(struct client *cl, int session, long seq, uint64_t start_ns,
			struct vapp_buf *tree, struct vapp_buf *path)
{
	cJSON *line;

	path->len = 0;
	if (vapp_buf__append(tree, "", 1))
		return -ENOMEM;
	line = vapp_tree__parse(tree->data, path);
	if (!line || vapp_buf__append(path, "", 1)) {
		cJSON_Delete(line);
		return -EPROTO;
	}
	cJSON_AddNumberToObject(line, "session", session);
	cJSON_AddNumberToObject(line, "seq", (double)seq);
	cJSON_AddNumberToObject(line, "start_ns", (double)start_ns);
	cJSON_AddStringToObject(line, "path", path->data);
	write_line(cl, line);
	cJSON_Delete(line);
	return 0;
}

static void *session_thread(void *p)
{
	struct session *s = p;
	struct client *cl = s->cl;
	const struct vapp_params *params = &cl->topo->params;
	int front = cl->topo->front[s->id % cl->topo->nfront];
	const char *front_name = cl->topo->servers[front].name;
	uint64_t rng = cl->opts->seed ^ ((uint64_t)(s->id + 1) << 32);
	struct vapp_buf io = {}, tree = {}, path = {};
	struct vapp_conn *conn = NULL;
	char role[12];
	long seq = 0;
	int err = 0;

	snprintf(role, sizeof(role), "s%d", s->id);
	vapp_set_thread_name("client", role);
	while (next_request(cl)) {
		uint64_t seed = vapp_rand_next(&rng), start;
		uint32_t pad = vapp_rand_bytes(&rng, params);

		if (conn && cl->opts->reconnect_every > 0 &&
		    conn->nsent >= (uint64_t)cl->opts->reconnect_every) {
			vapp_conn__close(conn);
			conn = NULL;
		}
		if (!conn && (err = vapp_conn__open(&cl->topo->servers[front].addr, 5000, &conn))) {
			record_error(cl, s->id, "connect", err);
			break;
		}
		tree.len = 0;
		start = vapp_now_ns();
		err = vapp_call(conn, front_name, seed, pad, "client", &io, &tree);
		if (!err)
			err = record_truth(cl, s->id, seq++, start, &tree, &path);
		if (err) {
			record_error(cl, s->id, "request", err);
			break;
		}
		__atomic_fetch_add(&cl->done, 1, __ATOMIC_RELAXED);
		if (cl->opts->think_us > 0)
			usleep(vapp_rand_below(&rng, (uint32_t)cl->opts->think_us + 1));
	}
	vapp_conn__close(conn);
	vapp_buf__free(&io);
	vapp_buf__free(&tree);
	vapp_buf__free(&path);
	return NULL;
}

int vapp_client__run(const struct vapp_topology *topo, const struct vapp_client_opts *opts)
{
	struct client cl = {.topo = topo, .opts = opts};
	struct session *sessions;
	uint64_t t0, elapsed;
	int started = 0, err = 0;

	sessions = calloc((size_t)opts->sessions, sizeof(*sessions));
	if (!sessions)
		return -ENOMEM;
	cl.out = strcmp(opts->out_path, "-") == 0 ? stdout : fopen(opts->out_path, "w");
	if (!cl.out) {
		err = -errno;
		fprintf(stderr, "vapp client: cannot write %s: %s\n", opts->out_path,
			strerror(errno));
		free(sessions);
		return err;
	}
	pthread_mutex_init(&cl.out_lock, NULL);
	t0 = vapp_now_ns();
	cl.deadline_ns = t0 + (uint64_t)(opts->duration_s * 1e9);
	for (; started < opts->sessions; started++) {
		sessions[started] = (struct session){.cl = &cl, .id = started};
		if (pthread_create(&sessions[started].tid, NULL, session_thread,
				   &sessions[started])) {
			fprintf(stderr, "vapp client: cannot start session %d\n", started);
			err = -EAGAIN;
			break;
		}
	}
	for (int i = 0; i < started; i++)
		pthread_join(sessions[i].tid, NULL);
	elapsed = vapp_now_ns() - t0;
	if (cl.out != stdout)
		fclose(cl.out);
	else
		fflush(stdout);
	printf("{\"sessions\":%d,\"requests\":%ld,\"errors\":%ld,\"seconds\":%.3f,"
	       "\"throughput\":%.1f}\n",
	       started, cl.done, cl.errors, (double)elapsed / 1e9,
	       (double)cl.done * 1e9 / (double)(elapsed ? elapsed : 1));
	fflush(stdout);
	pthread_mutex_destroy(&cl.out_lock);
	free(sessions);
	if (!err && cl.errors > 0)
		err = -EIO;
	return err;
}
