/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exec watch: programs started after the recorder, told to the probers
 * that registered a hook (Go's runtime probes, user/golang.c), once per
 * executable file (bpf/exec_watch.h, docs/recorder.md "Programs started
 * later").
 */
#ifndef VPATH_RECORD_EXEC_WATCH_H
#define VPATH_RECORD_EXEC_WATCH_H

#include <stdint.h>
#include <bpf/libbpf.h>
#include "../bpf/vpath.h"
#include "priv_helper.h"

struct exec_watch;

/* A process that exec'ed a file the recorder has not decided about yet. */
struct exec_event {
	uint32_t pid;
	struct vpath_exe_id exe;
	uint64_t exec_ns; /* CLOCK_MONOTONIC at the exec */
	struct exec_watch *ew;
	int fd, fd_err; /* exec_event__fd's, once asked */
	char path[256]; /* the file's path once exec_event__fd opened it, else "" */
	bool released;	/* exec_event__release's */
};

/*
 * A prober's hook: called for each event, in the watch's own thread (the
 * only one calling hooks), as soon as it is told.  It decides about the file before returning:
 * the file is not told again (a later process of it is the prober's own
 * business, as Go's go_exes map does in BPF).
 */
typedef void (*exec_hook_fn)(void *ctx, struct exec_event *ev);

/* Watches with obj's exec_news / exec_seen maps; opens files through ph.  NULL, errno. */
struct exec_watch *exec_watch__new(struct bpf_object *obj, struct priv_helper *ph);
/*
 * A prober registers before the recorder attaches the BPF side (which
 * tells execs only when some prober listens: exec_watch__wanted) and
 * before exec_watch__start.  To attach uprobes to the file it is told of,
 * it asks the probe helper (priv_helper__attach_uprobe), as user/golang.c
 * does.  0 or -ENOMEM.
 */
int exec_watch__add_hook(struct exec_watch *ew, exec_hook_fn fn, void *ctx);
/* Some prober listens: the BPF side must tell execs (exec_watch_on). */
bool exec_watch__wanted(const struct exec_watch *ew);
/*
 * Starts the thread that reads exec_news and runs the hooks; call it after
 * the privileges are dropped (the thread has the caller's).  0 or -errno.
 */
int exec_watch__start(struct exec_watch *ew);
/* Ends the thread: no hook runs once this returns.  NULL-safe. */
void exec_watch__stop(struct exec_watch *ew);
void exec_watch__free(struct exec_watch *ew);

/*
 * The hooks have handed in every record they write about ev (stamped at
 * its exec, user/inbox.h): the recorder's line may pass the exec.  Called
 * by a hook once it has (the Go follower, before the probes' attach), else
 * by the watch after the hooks.
 */
void exec_event__release(struct exec_event *ev);
/* exec_watch__holding: an exec was told and not read yet. */
#define EXEC_WATCH_UNREAD UINT64_MAX
/*
 * From the recorder's loop, each round: the exec of the news a hook may
 * still write a record about (the line must stay before it), or
 * EXEC_WATCH_UNREAD (it must not move), or 0.  Records handed in before
 * this said 0, or gave a later stamp, are in the inbox already.
 */
uint64_t exec_watch__holding(const struct exec_watch *ew);

/*
 * A read-only descriptor of the file the process exec'ed (owned by the
 * event, closed after the hooks; ev->path then says where it is), or -errno: the process is gone or has
 * exec'ed something else since.
 */
int exec_event__fd(struct exec_event *ev);

#endif
