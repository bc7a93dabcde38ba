/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --netns: find the network namespace the user means, and enter it. */
#ifndef VPATH_RECORD_NETNS_H
#define VPATH_RECORD_NETNS_H

#include <stdint.h>

/*
 * spec is a path (/run/netns/h1, /proc/PID/ns/net), a name in /run/netns,
 * or an inode number (then looked up in /run/netns and /proc/PID/ns/net).
 * On success *inode is the namespace's inode and the recorder has entered
 * it (setns), so that enumeration and getifaddrs see that namespace.
 * Returns 0 or -errno after printing a one-line error.
 */
int netns_enter(const char *spec, uint32_t *inode);

#endif
