// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proto.h"

int vapp_buf__reserve(struct vapp_buf *b, size_t extra)
{
	size_t need = b->len + extra, cap = b->cap ? b->cap : 256;
	char *p;

	if (need <= b->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int vapp_buf__append(struct vapp_buf *b, const void *data, size_t len)
{
	int err = vapp_buf__reserve(b, len);

	if (err)
		return err;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

int vapp_buf__printf(struct vapp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	err = vapp_buf__reserve(b, (size_t)n + 1);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void vapp_buf__consume(struct vapp_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void vapp_buf__free(struct vapp_buf *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}

int vapp_frame__append(struct vapp_buf *out, uint32_t type, const char *text, uint32_t pad)
{
	size_t text_len = text ? strlen(text) + 1 : 0;
	uint32_t hdr[2];
	int err;

	if (text_len + pad > VAPP_MAX_BODY)
		return -E2BIG;
	hdr[0] = htonl((uint32_t)(text_len + pad));
	hdr[1] = htonl(type);
	err = vapp_buf__reserve(out, sizeof(hdr) + text_len + pad);
	if (err)
		return err;
	vapp_buf__append(out, hdr, sizeof(hdr));
	if (text) {
		vapp_buf__append(out, text, text_len - 1);
		vapp_buf__append(out, "\n", 1);
	}
	memset(out->data + out->len, 'x', pad);
	out->len += pad;
	return 0;
}

long vapp_frame__parse(const char *data, size_t len, struct vapp_frame *f)
{
	uint32_t hdr[2];
	const char *nl;

	if (len < VAPP_FRAME_HDR)
		return 0;
	memcpy(hdr, data, sizeof(hdr));
	f->body_len = ntohl(hdr[0]);
	f->type = ntohl(hdr[1]);
	if (f->body_len > VAPP_MAX_BODY || f->type < VAPP_FRAME_REQUEST ||
	    f->type > VAPP_FRAME_REPLY)
		return -EPROTO;
	if (len < VAPP_FRAME_HDR + (size_t)f->body_len)
		return 0;
	f->body = data + VAPP_FRAME_HDR;
	f->text = NULL;
	f->text_len = 0;
	if (f->type != VAPP_FRAME_PART) {
		nl = memchr(f->body, '\n', f->body_len);
		if (!nl)
			return -EPROTO;
		f->text = f->body;
		f->text_len = (uint32_t)(nl - f->body);
	}
	return VAPP_FRAME_HDR + (long)f->body_len;
}

int vapp_request__parse(const struct vapp_frame *f, uint64_t *seed, char *visited,
			size_t visited_size)
{
	char text[64];
	const char *space;
	size_t n;

	if (f->type != VAPP_FRAME_REQUEST)
		return -EPROTO;
	space = memchr(f->text, ' ', f->text_len);
	if (!space || (size_t)(space - f->text) >= sizeof(text))
		return -EPROTO;
	memcpy(text, f->text, space - f->text);
	text[space - f->text] = '\0';
	if (sscanf(text, "%" SCNx64, seed) != 1)
		return -EPROTO;
	n = f->text_len - (size_t)(space + 1 - f->text);
	if (n == 0 || n >= visited_size)
		return -EPROTO;
	memcpy(visited, space + 1, n);
	visited[n] = '\0';
	return 0;
}

static int wait_fd(int fd, short events)
{
	struct pollfd pfd = {.fd = fd, .events = events};

	if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

int vapp_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	int err;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			err = wait_fd(fd, POLLOUT);
			if (err)
				return err;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_exact(int fd, struct vapp_buf *buf, size_t want)
{
	int err = vapp_buf__reserve(buf, want);

	if (err)
		return err;
	while (want > 0) {
		ssize_t n = read(fd, buf->data + buf->len, want);

		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			err = wait_fd(fd, POLLIN);
			if (err)
				return err;
			continue;
		}
		buf->len += (size_t)n;
		want -= (size_t)n;
	}
	return 0;
}

int vapp_read_frame(int fd, struct vapp_buf *buf, struct vapp_frame *f)
{
	uint32_t body_len;
	long n;
	int err;

	buf->len = 0;
	err = read_exact(fd, buf, VAPP_FRAME_HDR);
	if (err)
		return err;
	memcpy(&body_len, buf->data, sizeof(body_len));
	body_len = ntohl(body_len);
	if (body_len > VAPP_MAX_BODY)
		return -EPROTO;
	err = read_exact(fd, buf, body_len);
	if (err)
		return err;
	n = vapp_frame__parse(buf->data, buf->len, f);
	return n > 0 ? 0 : -EPROTO;
}
