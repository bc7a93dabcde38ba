// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * HTTP/1.x witness: the request line (method, path and query as sent) and
 * the reply's status code.  A request is read only when its whole request
 * line is in the captured bytes; a reply when its status line's code is.
 * Pipelines: a request ends after its header block and Content-Length
 * bytes of body (no body without one); chunked bodies are not measured.
 */
#include <string.h>

#include "proto.h"

static const char *const methods[] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
};

/* Length of the request line including its CRLF, 0 when absent or not HTTP; fills w. */
static size_t request_line(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *p = b->p;
	size_t n = b->len, m = 0, t, i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		m = strlen(methods[i]);
		if (n > m && !memcmp(p, methods[i], m) && p[m] == ' ')
			break;
	}
	if (i == sizeof(methods) / sizeof(methods[0]))
		return 0;
	t = m + 1;
	if (t >= n || (p[t] != '/' && p[t] != '*' && p[t] != 'h'))
		return 0;
	while (t < n && p[t] > 0x20 && p[t] < 0x7f)
		t++;
	/* " HTTP/1.x\r\n" */
	if (n - t < 11 || p[t] != ' ' || memcmp(p + t + 1, "HTTP/1.", 7) ||
	    (p[t + 8] != '0' && p[t + 8] != '1') || p[t + 9] != '\r' || p[t + 10] != '\n')
		return 0;
	if (w) {
		memcpy(w->verb, p, m);
		w->verb[m] = '\0';
		if (!vp_proto_text(w->text, sizeof(w->text), p + m + 1, t - m - 1))
			w->flags |= VP_WIT_CUT;
	}
	return t + 11;
}

static bool header_is(const uint8_t *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	if (n <= k || line[k] != ':')
		return false;
	for (size_t i = 0; i < k; i++) {
		uint8_t c = line[i];

		if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (uint8_t)name[i])
			return false;
	}
	return true;
}

/*
 * Length of the message whose header block starts at `from` (after its
 * first line): the block, then Content-Length bytes.  0 when the block does
 * not end in the bytes, or the body's length is not given by Content-Length.
 */
static size_t message_len(const struct vp_bytes *b, size_t from, bool body_allowed)
{
	const uint8_t *p = b->p;
	size_t at = from, body = 0;
	bool have_len = false;

	for (;;) {
		const uint8_t *eol = memchr(p + at, '\n', b->len - at);
		size_t line;

		if (!eol || eol == p + at || eol[-1] != '\r')
			return 0;
		line = (size_t)(eol - (p + at)) - 1;
		if (line == 0) {
			at += 2;
			break;
		}
		if (header_is(p + at, line, "transfer-encoding"))
			return 0;
		if (header_is(p + at, line, "content-length")) {
			size_t v = at + 15;
			uint64_t len = 0;

			while (v < at + line && p[v] == ' ')
				v++;
			if (v == at + line || have_len)
				return 0;
			for (; v < at + line && p[v] >= '0' && p[v] <= '9'; v++) {
				len = len * 10 + (p[v] - '0');
				if (len > ((uint64_t)1 << 40))
					return 0;
			}
			while (v < at + line && p[v] == ' ')
				v++;
			if (v != at + line)
				return 0;
			body = (size_t)len;
			have_len = true;
		}
		at += line + 2;
	}
	if (body && !body_allowed)
		return 0;
	return at + body;
}

static size_t http_request_len(const struct vp_bytes *b)
{
	size_t line = request_line(b, NULL);

	return line ? message_len(b, line, true) : 0;
}

static int http_request(const struct vp_bytes *b, struct vp_witness *w)
{
	size_t at;

	if (!request_line(b, w))
		return 0;
	/* Pipelined requests after this one, as far as their lengths are known. */
	w->count = 1;
	at = http_request_len(b);
	while (at && at < b->len) {
		struct vp_bytes rest = {b->p + at, b->len - at, b->total - at};
		size_t n;

		if (!request_line(&rest, NULL))
			break;
		w->count++;
		n = http_request_len(&rest);
		at = n ? at + n : 0;
	}
	if (at >= b->len && at < b->total)
		w->flags |= VP_WIT_MORE;
	return 1;
}

/* "HTTP/1.x DDD" followed by a space or the line's end: the status code, else 0. */
static unsigned status_of(const struct vp_bytes *b)
{
	const uint8_t *p = b->p;
	unsigned code = 0;

	if (b->len < 13 || memcmp(p, "HTTP/1.", 7) || (p[7] != '0' && p[7] != '1') || p[8] != ' ')
		return 0;
	for (int i = 9; i < 12; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		code = code * 10 + (p[i] - '0');
	}
	if ((p[12] != ' ' && p[12] != '\r') || code < 100 || code > 599)
		return 0;
	return code;
}

static int http_reply(const struct vp_bytes *b, struct vp_witness *w)
{
	unsigned code = status_of(b);

	if (!code)
		return 0;
	w->status = (uint16_t)code;
	return 1;
}

/* A reply's length, when its header block and Content-Length say it (1xx, 204, 304: no body). */
static size_t http_reply_len(const struct vp_bytes *b)
{
	unsigned code = status_of(b);
	const uint8_t *eol;

	if (!code || !(eol = memchr(b->p, '\n', b->len)))
		return 0;
	return message_len(b, (size_t)(eol - b->p) + 1,
			   !(code < 200 || code == 204 || code == 304));
}

const struct vp_proto_ops vp_proto_http = {
	.name = "http",
	.request = http_request,
	.reply = http_reply,
	.request_len = http_request_len,
	.reply_len = http_reply_len,
};
