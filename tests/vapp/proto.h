/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The vApp wire protocol: length-prefixed frames.
 *   header: u32 body length, u32 type (both big-endian)
 *   REQUEST body: "<seed hex> <visited components, '>'-separated>\n" + padding
 *   PART body:    padding (an early part of a reply)
 *   REPLY body:   "<call tree>\n" + padding (the last part of a reply)
 * A call tree is a comma-separated list of calls, each
 *   NAME@CALLER_IP:PORT#ORDINAL~RESPONSE_NS[CALLS OF NAME]
 * so the client learns the true path, with the connection and ordinal of
 * every call, from the reply alone. */
#ifndef VAPP_PROTO_H
#define VAPP_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define VAPP_FRAME_HDR 8
#define VAPP_MAX_BODY (8u << 20)

enum vapp_frame_type {
	VAPP_FRAME_REQUEST = 1,
	VAPP_FRAME_PART = 2,
	VAPP_FRAME_REPLY = 3,
};

struct vapp_buf {
	char *data;
	size_t len, cap;
};

struct vapp_frame {
	uint32_t type;
	const char *body;
	uint32_t body_len;
	/* text part of REQUEST and REPLY bodies, without the '\n' */
	const char *text;
	uint32_t text_len;
};

int vapp_buf__reserve(struct vapp_buf *b, size_t extra);
int vapp_buf__append(struct vapp_buf *b, const void *data, size_t len);
int vapp_buf__printf(struct vapp_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void vapp_buf__consume(struct vapp_buf *b, size_t n);
void vapp_buf__free(struct vapp_buf *b);

/* Appends a whole frame: header, text (may be NULL), '\n' if text, padding. */
int vapp_frame__append(struct vapp_buf *out, uint32_t type, const char *text, uint32_t pad);
/* Parses the frame at the start of data: its total size, 0 when more bytes
 * are needed, -EPROTO when the bytes are not a frame. */
long vapp_frame__parse(const char *data, size_t len, struct vapp_frame *f);

/* REQUEST text: seed and the components visited so far. */
int vapp_request__parse(const struct vapp_frame *f, uint64_t *seed, char *visited,
			size_t visited_size);

/* Blocking I/O that also copes with non-blocking sockets (waits in poll). */
int vapp_write_all(int fd, const void *data, size_t len);
/* Reads exactly one frame into buf (replacing its content). -EPIPE on EOF. */
int vapp_read_frame(int fd, struct vapp_buf *buf, struct vapp_frame *f);

#endif
