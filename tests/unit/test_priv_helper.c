// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe helper (user/priv_helper.c): a child that opens the executable
 * of a process the kernel told of, only when it is still that file, and
 * attaches only the recorder's own programs.  Here without a BPF object:
 * opening works as any user for one's own processes; attaching finds no
 * program.  The uprobes themselves are tested by test_record_go.sh.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../user/priv_helper.h"

static struct vpath_exe_id id_of(const char *path)
{
	struct vpath_exe_id id = {0};
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	id.ino = st.st_ino;
	id.dev = (uint32_t)(major(st.st_dev) << 20 | minor(st.st_dev));
	id.mtime_sec = st.st_mtim.tv_sec;
	id.mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	return id;
}

static void test_opens_the_executable_of_a_process(void **state)
{
	struct priv_helper *ph = priv_helper__start(NULL, 0);
	struct vpath_exe_id id = id_of("/proc/self/exe");
	char path[256], self[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(ph);
	fd = priv_helper__open_exe(ph, (uint32_t)getpid(), &id, path, sizeof(path));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_ino, id.ino);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	assert_string_equal(path, self);
	close(fd);
	priv_helper__free(ph);
}

/* Exec'ed again, or the file rewritten since the kernel told of it: not that file. */
static void test_refuses_another_file(void **state)
{
	struct priv_helper *ph = priv_helper__start(NULL, 0);
	struct vpath_exe_id id = id_of("/proc/self/exe");
	char path[256];

	(void)state;
	assert_non_null(ph);
	id.mtime_nsec ^= 1;
	assert_int_equal(priv_helper__open_exe(ph, (uint32_t)getpid(), &id, path, sizeof(path)),
			 -ESTALE);
	id = id_of("/proc/self/exe");
	id.ino++;
	assert_int_equal(priv_helper__open_exe(ph, (uint32_t)getpid(), &id, path, sizeof(path)),
			 -ESTALE);
	priv_helper__free(ph);
}

static void test_a_process_gone_is_an_error(void **state)
{
	struct priv_helper *ph = priv_helper__start(NULL, 0);
	struct vpath_exe_id id = id_of("/proc/self/exe");
	char path[256];
	pid_t child = fork();

	(void)state;
	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_non_null(ph);
	assert_int_equal(priv_helper__open_exe(ph, (uint32_t)child, &id, path, sizeof(path)),
			 -ENOENT);
	priv_helper__free(ph);
}

static void test_attaches_only_programs_it_has(void **state)
{
	struct priv_helper *ph = priv_helper__start(NULL, 0);
	int fd = open("/proc/self/exe", O_RDONLY);

	(void)state;
	assert_non_null(ph);
	assert_true(fd >= 0);
	assert_int_equal(priv_helper__attach_uprobe(ph, "go_newproc1", fd, 0), -ENOENT);
	assert_int_equal(priv_helper__attach_uprobe(ph, "go_newproc1", -1, 0), -EBADF);
	close(fd);
	priv_helper__free(ph);
}

/* Stopped, it is gone (reaped: its uprobes with it) and answers nothing more. */
static void test_stopped_it_answers_no_more(void **state)
{
	struct priv_helper *ph = priv_helper__start(NULL, 0);
	struct vpath_exe_id id = id_of("/proc/self/exe");
	char path[256];

	(void)state;
	assert_non_null(ph);
	priv_helper__stop(ph);
	assert_int_equal(priv_helper__open_exe(ph, (uint32_t)getpid(), &id, path, sizeof(path)),
			 -EPIPE);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	priv_helper__free(ph);
	priv_helper__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opens_the_executable_of_a_process),
		cmocka_unit_test(test_refuses_another_file),
		cmocka_unit_test(test_a_process_gone_is_an_error),
		cmocka_unit_test(test_attaches_only_programs_it_has),
		cmocka_unit_test(test_stopped_it_answers_no_more),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
