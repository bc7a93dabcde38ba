/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A scratch file per test, for the recording writers and readers: made
 * empty before the test and removed after it, even when the test fails
 * (cmocka runs the teardown either way).
 */
#ifndef VPATH_TEST_TMPFILE_H
#define VPATH_TEST_TMPFILE_H

/* The current scratch file's path; valid between setup and teardown. */
extern char tmpfile_path[64];

/* cmocka setup and teardown: make tmpfile_path, and remove it. */
int tmpfile_make(void **state);
int tmpfile_remove(void **state);

#endif
