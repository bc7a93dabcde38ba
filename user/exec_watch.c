// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exec watch (exec_watch.h).  The BPF side tells each exec of a file
 * not decided yet through the exec_news ring, with a wake-up; a thread of
 * its own reads them, runs the hooks, and marks the file decided in
 * exec_seen so that its later execs cost the kernel one lookup and the
 * recorder nothing.  A thread, not the recorder's loop: under load that
 * loop can be busy with a backlog for seconds (measured: 3.2 s at a load
 * average of 40 on 2 cores), and a program's first requests come within
 * milliseconds of its start.  It is started after the recorder dropped its
 * privileges, so that it has none either (capabilities are per thread).  A file that could not be
 * opened (its process was gone before the recorder read the news) is
 * forgotten instead: its next exec is told again, so a Go service whose
 * first run was short (a --version) is still found when it runs for good.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "exec_watch.h"

struct exec_hook {
	exec_hook_fn fn;
	void *ctx;
};

struct exec_watch {
	struct priv_helper *ph;
	int news_fd, seen_fd;
	struct exec_hook *hooks;
	unsigned nhooks;
	struct ring_buffer *rb;
	const volatile uint64_t *news_prod; /* exec_news's producer position (read-only page) */
	pthread_t thread;
	bool running;
	volatile bool stopping;
	/*
	 * For exec_watch__holding, written by the thread: the news handled
	 * (released) so far, and the exec of the one being decided (0: none).
	 */
	uint64_t released, deciding_ns;
};

/* How long the thread sleeps in a poll with nothing told: what stopping it may wait. */
#define EXEC_WATCH_POLL_MS 50

struct exec_watch *exec_watch__new(struct bpf_object *obj, struct priv_helper *ph)
{
	struct exec_watch *ew = calloc(1, sizeof(*ew));
	struct bpf_map *news, *seen;

	if (!ew)
		return NULL;
	ew->ph = ph;
	ew->news_fd = ew->seen_fd = -1;
	news = bpf_object__find_map_by_name(obj, "exec_news");
	seen = bpf_object__find_map_by_name(obj, "exec_seen");
	if (news && seen) {
		ew->news_fd = bpf_map__fd(news);
		ew->seen_fd = bpf_map__fd(seen);
	}
	return ew;
}

int exec_watch__add_hook(struct exec_watch *ew, exec_hook_fn fn, void *ctx)
{
	struct exec_hook *h = realloc(ew->hooks, (ew->nhooks + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	ew->hooks = h;
	ew->hooks[ew->nhooks++] = (struct exec_hook){fn, ctx};
	return 0;
}

bool exec_watch__wanted(const struct exec_watch *ew)
{
	return ew && ew->nhooks > 0 && ew->news_fd >= 0 && ew->ph;
}

int exec_event__fd(struct exec_event *ev)
{
	if (ev->fd < 0 && !ev->fd_err) {
		ev->fd = priv_helper__open_exe(ev->ew->ph, ev->pid, &ev->exe, ev->path,
					       sizeof(ev->path));
		if (ev->fd < 0) {
			ev->fd_err = ev->fd;
			ev->fd = -1;
		}
	}
	return ev->fd >= 0 ? ev->fd : ev->fd_err;
}

/* What the ring holds per exec told: its 8-byte header and the news, 8-byte aligned. */
#define NEWS_RING_SIZE ((8 + sizeof(struct vpath_exec_news) + 7) / 8 * 8)

void exec_event__release(struct exec_event *ev)
{
	if (ev->released)
		return;
	ev->released = true;
	/* The hook's records are handed in before: the loop reads released, then takes them. */
	__atomic_store_n(&ev->ew->deciding_ns, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ev->ew->released, 1, __ATOMIC_SEQ_CST);
}

uint64_t exec_watch__holding(const struct exec_watch *ew)
{
	uint64_t told, released, deciding;

	if (!ew || !ew->running || ew->stopping || !ew->news_prod)
		return 0;
	told = __atomic_load_n(ew->news_prod, __ATOMIC_ACQUIRE) / NEWS_RING_SIZE;
	released = __atomic_load_n(&ew->released, __ATOMIC_SEQ_CST);
	deciding = __atomic_load_n(&ew->deciding_ns, __ATOMIC_SEQ_CST);
	if (told <= released)
		return 0;
	/* Told and not read yet: its stamp is unknown. */
	return deciding ? deciding : EXEC_WATCH_UNREAD;
}

static int on_news(void *ctx, void *data, size_t size)
{
	struct exec_watch *ew = ctx;
	const struct vpath_exec_news *n = data;
	struct exec_event ev = {.ew = ew, .fd = -1};
	uint32_t decided = VPATH_EXE_DECIDED;

	if (ew->stopping || size < sizeof(*n)) {
		exec_event__release(&ev);
		return 0;
	}
	ev.pid = n->pid;
	ev.exe = n->exe;
	ev.exec_ns = n->ts;
	__atomic_store_n(&ew->deciding_ns, n->ts ? n->ts : 1, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < ew->nhooks; i++)
		ew->hooks[i].fn(ew->hooks[i].ctx, &ev);
	exec_event__release(&ev);
	if (ev.fd >= 0)
		close(ev.fd);
	if (ev.fd_err == -EPIPE) {
		/* The helper is gone (killed): nothing started later can be attached any more. */
		fprintf(stderr, "vpath-record: warning: the probe helper has exited: programs "
				"started from now on are not looked at\n");
		ew->stopping = true;
	}
	if (ev.fd_err)
		bpf_map_delete_elem(ew->seen_fd, &ev.exe);
	else
		bpf_map_update_elem(ew->seen_fd, &ev.exe, &decided, BPF_ANY);
	return 0;
}

static void *watch(void *arg)
{
	struct exec_watch *ew = arg;

	while (!ew->stopping) {
		int err = ring_buffer__poll(ew->rb, EXEC_WATCH_POLL_MS);

		if (err < 0 && err != -EINTR) {
			fprintf(stderr,
				"vpath-record: warning: programs started later are no longer "
				"looked at: %s\n",
				strerror(-err));
			ew->stopping = true; /* holds nothing any more (exec_watch__holding) */
			break;
		}
	}
	return NULL;
}

/*
 * exec_news's producer position, as the kernel's ring shows it (the page
 * after the consumer's): how many execs were told.  Without it the
 * recorder's line is not held (exec_watch__holding says 0).
 */
static void map_news_prod(struct exec_watch *ew)
{
	long page = sysconf(_SC_PAGESIZE);
	void *prod = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, ew->news_fd, page);

	if (prod != MAP_FAILED)
		ew->news_prod = prod;
}

int exec_watch__start(struct exec_watch *ew)
{
	int err;

	if (!exec_watch__wanted(ew))
		return 0;
	ew->rb = ring_buffer__new(ew->news_fd, on_news, ew, NULL);
	if (!ew->rb)
		return -errno;
	map_news_prod(ew);
	err = pthread_create(&ew->thread, NULL, watch, ew);
	if (err) {
		ring_buffer__free(ew->rb);
		ew->rb = NULL;
		return -err;
	}
	ew->running = true;
	return 0;
}

void exec_watch__stop(struct exec_watch *ew)
{
	if (!ew || !ew->running)
		return;
	ew->stopping = true;
	pthread_join(ew->thread, NULL);
	ew->running = false;
}

void exec_watch__free(struct exec_watch *ew)
{
	if (!ew)
		return;
	exec_watch__stop(ew);
	if (ew->news_prod)
		munmap((void *)ew->news_prod, (size_t)sysconf(_SC_PAGESIZE));
	ring_buffer__free(ew->rb);
	free(ew->hooks);
	free(ew);
}
