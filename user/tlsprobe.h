/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * OpenSSL's libssl in the host's processes: the files that carry it and the
 * uprobes of bpf/tls.h on them (docs/recorder.md, "TLS").  A uprobe is per
 * file: one attach covers every process that maps the file, now or later.
 */
#ifndef VPATH_RECORD_TLSPROBE_H
#define VPATH_RECORD_TLSPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>

/*
 * The file of one line of /proc/PID/maps when the line maps it executable
 * and it may be a libssl (its name begins "libssl"): its path, else NULL.
 * The line is not changed; the path is copied to out (outlen bytes).
 */
const char *tls_maps_line(const char *line, char *out, size_t outlen);

/* libssl's functions the probes need, by bit (tlsprobe.c's table); 0: none of them. */
unsigned tls_file__symbols(const char *path);
/* The symbols say a libssl that the probes can follow (SSL_read, SSL_write, ...). */
bool tls_symbols__enough(unsigned mask);

struct tls_follow;

/*
 * Finds the files that carry libssl: the system's, node in PATH (Node.js
 * builds with OpenSSL inside), those mapped by the processes running now
 * (among pids when npids > 0, in network namespace netns when not 0), and
 * attaches the probes.  Never fails the recording
 * except for lack of memory (NULL): a file that cannot be probed gets one
 * warning line.
 */
struct tls_follow *tls_follow__start(struct bpf_object *obj, const uint32_t *pids, unsigned npids,
				     uint32_t netns, int verbose);
/* Some file is probed: the BPF side must tie handshakes to libssl objects. */
bool tls_follow__active(const struct tls_follow *tf);
void tls_follow__free(struct tls_follow *tf);

#endif
