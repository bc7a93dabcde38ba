// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe helper (priv_helper.h).  After attaching, the recorder keeps
 * only CAP_BPF (user/privs.c): it can no longer open /proc/PID/exe of
 * another user's process (a ptrace check) nor attach a uprobe (perf
 * events need CAP_PERFMON).  Programs started later need both, so a child
 * forked before the drop keeps CAP_PERFMON, CAP_SYS_PTRACE,
 * CAP_DAC_READ_SEARCH and CAP_BPF, and answers two questions over a
 * socket pair: "a descriptor of PID's executable" and "attach this
 * program at this offset of this file".  The file is parsed by the
 * recorder, unprivileged, never here.  The uprobes live as long as the
 * helper: when the recorder closes its end (or dies), the helper exits
 * and the kernel detaches them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "priv_helper.h"
#include "privs.h"

enum {
	PH_OPEN_EXE = 1,
	PH_ATTACH_UPROBE = 2
};

struct ph_request {
	uint32_t op;
	uint32_t pid;
	struct vpath_exe_id exe;
	uint64_t off;
	char prog[64];
};

struct ph_answer {
	int32_t err;	/* >= 0: done */
	char path[256]; /* PH_OPEN_EXE: where the file is, as the process's /proc/PID/exe says */
};

struct priv_helper {
	int sock;
	pid_t pid;
};

/* One message, with a descriptor riding along when fd >= 0. */
static int send_msg(int sock, const void *buf, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -(errno ? errno : EPIPE);
}

/* The message's length (0: the other end closed) or -errno; *fd -1 when none came. */
static ssize_t recv_msg(int sock, void *buf, size_t len, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf)};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

/* ---- the helper's side ---- */

static bool same_exe(const struct stat *st, const struct vpath_exe_id *id)
{
	uint32_t dev = (uint32_t)(major(st->st_dev) << 20 | minor(st->st_dev));

	if (st->st_ino != id->ino || dev != id->dev)
		return false;
	/* Zero: a kernel whose BPF side could not read the time (bpf/exec_watch.h). */
	return (id->mtime_sec == 0 && id->mtime_nsec == 0) ||
	       (st->st_mtim.tv_sec == id->mtime_sec && st->st_mtim.tv_nsec == (long)id->mtime_nsec);
}

static int open_exe(const struct ph_request *rq, struct ph_answer *a)
{
	char path[64];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/exe", rq->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !same_exe(&st, &rq->exe)) {
		close(fd);
		return -ESTALE;
	}
	n = readlink(path, a->path, sizeof(a->path) - 1);
	a->path[n > 0 ? n : 0] = 0;
	return fd;
}

/* The link is kept open until the helper exits: it is the uprobe. */
static int attach_uprobe(struct bpf_object *obj, const struct ph_request *rq, int fd)
{
	struct bpf_program *prog;
	char path[64];

	if (fd < 0)
		return -EBADF;
	prog = obj ? bpf_object__find_program_by_name(obj, rq->prog) : NULL;
	if (!prog)
		return -ENOENT;
	/* A uprobe is set on the inode the path leads to; this one leads to the file sent. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return bpf_program__attach_uprobe(prog, false, -1, path, (size_t)rq->off) ? 0 : -errno;
}

static void helper_serve(int sock, struct bpf_object *obj)
{
	for (;;) {
		struct ph_request rq;
		struct ph_answer a = {0};
		int fd, out = -1;
		ssize_t n = recv_msg(sock, &rq, sizeof(rq), &fd);

		if (n <= 0)
			return;
		rq.prog[sizeof(rq.prog) - 1] = 0;
		if (n != sizeof(rq))
			a.err = -EINVAL;
		else if (rq.op == PH_OPEN_EXE)
			a.err = out = open_exe(&rq, &a);
		else if (rq.op == PH_ATTACH_UPROBE)
			a.err = attach_uprobe(obj, &rq, fd);
		else
			a.err = -EINVAL;
		if (fd >= 0)
			close(fd);
		if (send_msg(sock, &a, sizeof(a), out >= 0 ? out : -1))
			return;
		if (out >= 0)
			close(out);
	}
}

static void helper_main(int sock, pid_t parent, struct bpf_object *obj, int nice)
{
	/* Stopped by the recorder closing its end, never by the terminal's or systemd's signals. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "vpath-probes", 0, 0, 0);
	/* As soon as it is asked, as the recorder's reader: a program's first requests are near. */
	setpriority(PRIO_PROCESS, 0, nice);
	if (privs_drop_to_prober())
		_exit(1);
	helper_serve(sock, obj);
	_exit(0);
}

/* ---- the recorder's side ---- */

struct priv_helper *priv_helper__start(struct bpf_object *obj, int nice)
{
	struct priv_helper *ph = calloc(1, sizeof(*ph));
	pid_t parent = getpid();
	int sv[2];

	if (!ph)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		free(ph);
		return NULL;
	}
	fflush(stderr);
	ph->pid = fork();
	if (ph->pid < 0) {
		int err = errno;

		close(sv[0]);
		close(sv[1]);
		free(ph);
		errno = err;
		return NULL;
	}
	if (ph->pid == 0) {
		close(sv[0]);
		helper_main(sv[1], parent, obj, nice);
	}
	close(sv[1]);
	ph->sock = sv[0];
	return ph;
}

static int ask(struct priv_helper *ph, const struct ph_request *rq, int fd_in, int *fd_out,
	       struct ph_answer *answer)
{
	int fd;
	ssize_t n;
	int err;

	if (!ph || ph->sock < 0)
		return -EPIPE;
	err = send_msg(ph->sock, rq, sizeof(*rq), fd_in);
	if (err)
		return err;
	n = recv_msg(ph->sock, answer, sizeof(*answer), &fd);
	if (n != sizeof(*answer)) {
		if (fd >= 0)
			close(fd);
		return n < 0 ? (int)n : -EPIPE;
	}
	if (fd_out)
		*fd_out = fd;
	else if (fd >= 0)
		close(fd);
	return answer->err;
}

int priv_helper__open_exe(struct priv_helper *ph, uint32_t pid, const struct vpath_exe_id *id,
			  char *path, size_t pathlen)
{
	struct ph_request rq = {.op = PH_OPEN_EXE, .pid = pid, .exe = *id};
	struct ph_answer a;
	int fd = -1, err = ask(ph, &rq, -1, &fd, &a);

	if (err < 0) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	a.path[sizeof(a.path) - 1] = 0;
	snprintf(path, pathlen, "%s", a.path);
	return fd >= 0 ? fd : -EPROTO;
}

int priv_helper__attach_uprobe(struct priv_helper *ph, const char *prog, int fd, uint64_t off)
{
	struct ph_request rq = {.op = PH_ATTACH_UPROBE, .off = off};
	struct ph_answer a;

	if (strlen(prog) >= sizeof(rq.prog))
		return -ENAMETOOLONG;
	strcpy(rq.prog, prog);
	return ask(ph, &rq, fd, NULL, &a);
}

void priv_helper__stop(struct priv_helper *ph)
{
	if (!ph || ph->sock < 0)
		return;
	close(ph->sock);
	ph->sock = -1;
	while (waitpid(ph->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void priv_helper__free(struct priv_helper *ph)
{
	priv_helper__stop(ph);
	free(ph);
}
