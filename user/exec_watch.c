// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exec watch (exec_watch.h).  The BPF side tells each exec of a file
 * not decided yet through the exec_news ring, with a wake-up; this reads
 * them with the recorder's ring (same epoll, same drains), runs the hooks,
 * and marks the file decided in exec_seen so that its later execs cost the
 * kernel one lookup and the recorder nothing.  A file that could not be
 * opened (its process was gone before the recorder read the news) is
 * forgotten instead: its next exec is told again, so a Go service whose
 * first run was short (a --version) is still found when it runs for good.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
	bool stopped;
};

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
	ew->hooks[ew->nhooks++] = (struct exec_hook){ fn, ctx };
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

static int on_news(void *ctx, void *data, size_t size)
{
	struct exec_watch *ew = ctx;
	const struct vpath_exec_news *n = data;
	struct exec_event ev = { .ew = ew, .fd = -1 };
	uint32_t decided = VPATH_EXE_DECIDED;

	if (ew->stopped || size < sizeof(*n))
		return 0;
	ev.pid = n->pid;
	ev.exe = n->exe;
	ev.exec_ns = n->ts;
	for (unsigned i = 0; i < ew->nhooks; i++)
		ew->hooks[i].fn(ew->hooks[i].ctx, &ev);
	if (ev.fd >= 0)
		close(ev.fd);
	if (ev.fd_err)
		bpf_map_delete_elem(ew->seen_fd, &ev.exe);
	else
		bpf_map_update_elem(ew->seen_fd, &ev.exe, &decided, BPF_ANY);
	return 0;
}

int exec_watch__listen(struct exec_watch *ew, struct ring_buffer *rb)
{
	if (!exec_watch__wanted(ew))
		return 0;
	return ring_buffer__add(rb, ew->news_fd, on_news, ew);
}

void exec_watch__stop(struct exec_watch *ew)
{
	if (ew)
		ew->stopped = true;
}

void exec_watch__free(struct exec_watch *ew)
{
	if (!ew)
		return;
	free(ew->hooks);
	free(ew);
}
