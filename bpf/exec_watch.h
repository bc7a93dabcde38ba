/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exec watch: tells the recorder of executables it has not looked at
 * yet, as processes exec them, so that probers (Go's runtime probes,
 * user/golang.c) can attach to programs started after the recorder
 * (user/exec_watch.c, docs/recorder.md "Programs started later").
 *
 * Execs are rare next to socket operations, so each one told goes through
 * a ring of its own with a wake-up: the recorder hears of it at once, not
 * at its next round.  exec_seen keeps the executables told, so a shell
 * exec'ing the same binaries again and again costs one lookup per exec.
 * Until the recorder has decided about a file (PENDING), every exec of it
 * is told, so a second process started from it meanwhile is not missed.
 *
 * Included by vpath.bpf.c after its filters (pid_wanted, task_netns_wanted).
 */
#ifndef VPATH_EXEC_WATCH_H
#define VPATH_EXEC_WATCH_H

#include "vpath.h"

/* Set by the recorder before attaching when some prober listens. */
__u32 exec_watch_on = 0;
/* Tellings lost because exec_news was full (the next exec of that file tells again). */
__u64 exec_news_lost = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} exec_news SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct vpath_exe_id);
	__type(value, __u32);
} exec_seen SEC(".maps");

static __always_inline void exe_id_of(struct inode *inode, struct vpath_exe_id *id)
{
	id->ino = inode->i_ino;
	id->dev = inode->i_sb->s_dev;
	/* Kernels before 6.7 kept a struct timespec64: there only the inode tells files apart. */
	if (bpf_core_field_exists(inode->i_mtime_sec)) {
		id->mtime_sec = BPF_CORE_READ(inode, i_mtime_sec);
		id->mtime_nsec = BPF_CORE_READ(inode, i_mtime_nsec);
	}
}

static __always_inline void exec_watch_tell(struct task_struct *p, struct linux_binprm *bprm)
{
	struct vpath_exec_news news = {};
	__u32 pending = VPATH_EXE_PENDING, *state;

	if (!exec_watch_on || !pid_wanted(p->tgid) || !task_netns_wanted(p))
		return;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return;
	exe_id_of(bprm->file->f_inode, &news.exe);
	state = bpf_map_lookup_elem(&exec_seen, &news.exe);
	if (state && *state == VPATH_EXE_DECIDED)
		return;
	if (!state)
		bpf_map_update_elem(&exec_seen, &news.exe, &pending, BPF_NOEXIST);
	news.pid = p->tgid;
	news.ts = bpf_ktime_get_ns();
	if (bpf_ringbuf_output(&exec_news, &news, sizeof(news), 0)) {
		__sync_fetch_and_add(&exec_news_lost, 1);
		/* Nobody was told of it: told again at its next exec, not taken as being looked at. */
		if (!state)
			bpf_map_delete_elem(&exec_seen, &news.exe);
	}
}

#endif /* VPATH_EXEC_WATCH_H */
