// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Redis witness (RESP2/RESP3): the command name of a request (an array of
 * bulk strings, or an inline command line), how many commands the captured
 * bytes hold (a pipeline), and whether the reply is an error ('-', its
 * first word).  A Redis list's message, when its bytes are whole in the
 * capture: the one an LPUSH/RPUSH puts on a list, the one a BRPOP/BLPOP
 * reply delivers (qkind, qmsg: the analyzer's queue hops, queues.h).  Lengths are exact in RESP, so a pipeline is cut where each
 * command's array ends, and its replies where each reply value ends.
 */
#include <string.h>

#include "redisq.h"
#include "resp.h"

#define NEST_MAX 8
#define COUNT_MAX (1 << 20)

/* A command name: letters, digits after the first, '.', '_', '-' (module commands). */
static bool name_ok(const uint8_t *p, size_t n)
{
	if (!n || n >= VP_WIT_VERB_MAX || !((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z'))
		return false;
	for (size_t i = 1; i < n; i++) {
		uint8_t c = p[i] | 0x20;

		if (!((c >= 'a' && c <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '.' ||
		      p[i] == '_' || p[i] == '-'))
			return false;
	}
	return true;
}

/*
 * One command array at `at`: its length when whole in the captured bytes,
 * 0 when it is a command whose end lies beyond them, -1 when not a command.
 * name/name_len: its first element, when captured.
 */
static long command_at(const struct vp_bytes *b, size_t at, const uint8_t **name, size_t *name_len)
{
	long n = vp_resp_line(b, at), k;
	long long count, blen;
	size_t p;

	*name = NULL;
	if (at >= b->len || b->p[at] != '*')
		return -1;
	if (n < 0)
		return b->len < b->total && b->len - at < 24 ? 0 : -1;
	if (!vp_resp_number(b->p + at + 1, n - 1, &count) || count < 1 || count > COUNT_MAX)
		return -1;
	p = at + (size_t)n + 2;
	for (k = 0; k < count; k++) {
		long l = vp_resp_line(b, p);

		if (p >= b->len)
			return 0;
		if (b->p[p] != '$')
			return -1;
		if (l < 0)
			return b->len - p < 24 ? 0 : -1;
		if (!vp_resp_number(b->p + p + 1, l - 1, &blen) || blen < 0 ||
		    blen > 512LL * 1024 * 1024)
			return -1;
		p += (size_t)l + 2;
		if (k == 0 && p + (size_t)blen <= b->len) {
			*name = b->p + p;
			*name_len = (size_t)blen;
		}
		if (p + (size_t)blen + 2 > b->len)
			return 0;
		if (b->p[p + blen] != '\r' || b->p[p + blen + 1] != '\n')
			return -1;
		p += (size_t)blen + 2;
	}
	return (long)(p - at);
}

static void set_verb(struct vp_witness *w, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w->verb[i] = (char)(p[i] >= 'a' && p[i] <= 'z' ? p[i] - 32 : p[i]);
	w->verb[n] = '\0';
}

/* An inline command: a line of printable words, the first a command name. */
static int inline_request(const struct vp_bytes *b, struct vp_witness *w)
{
	long n = vp_resp_line(b, 0), i;

	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (b->p[i] < 0x20 || b->p[i] > 0x7e)
			return 0;
	for (i = 0; i < n && b->p[i] != ' '; i++)
		;
	if (!name_ok(b->p, (size_t)i))
		return 0;
	set_verb(w, b->p, (size_t)i);
	w->count = 1;
	return 1;
}

/*
 * The array's header and its first bulk string, the name, decide; the rest
 * only counts the commands of a pipeline, as far as they are commands.
 */
static int redis_request(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *name = NULL;
	size_t name_len = 0, at, p;
	long n = vp_resp_line(b, 0), l;
	long long v;

	if (b->len && b->p[0] != '*')
		return inline_request(b, w);
	if (n < 0 || !vp_resp_number(b->p + 1, n - 1, &v) || v < 1 || v > COUNT_MAX)
		return 0;
	p = (size_t)n + 2;
	l = vp_resp_line(b, p);
	if (l < 0 || b->p[p] != '$' || !vp_resp_number(b->p + p + 1, l - 1, &v) || v < 1 ||
	    v >= VP_WIT_VERB_MAX || p + (size_t)l + 2 + (size_t)v > b->len)
		return 0;
	name = b->p + p + (size_t)l + 2;
	name_len = (size_t)v;
	if (!name_ok(name, name_len))
		return 0;
	set_verb(w, name, name_len);
	w->count = 1;
	/* Whole commands only: a command's bytes alone decide whether it is one. */
	for (at = 0; at < b->len && (n = command_at(b, at, &name, &name_len)) > 0; at += (size_t)n)
		if (at)
			w->count++;
	if (at < b->total) /* a command cut by the capture, or bytes beyond it */
		w->flags |= VP_WIT_MORE;
	vp_redisq_request(b, w);
	return 1;
}

/* The length of the RESP value at `at` when whole in the captured bytes, else 0; -1: not RESP. */
static long value_at(const struct vp_bytes *b, size_t at, int depth)
{
	long n = vp_resp_line(b, at);
	long long v;
	size_t p;

	if (at >= b->len)
		return 0;
	if (!strchr("+-:$*_,#(=!%~>|", b->p[at]) || !b->p[at])
		return -1;
	if (n < 0)
		return b->len - at < 64 ? 0 : -1;
	p = at + (size_t)n + 2;
	switch (b->p[at]) {
	case '+':
	case '-':
	case ',':
	case '(':
		for (long i = 1; i < n; i++)
			if (b->p[at + i] < 0x20 || b->p[at + i] > 0x7e)
				return -1;
		return (long)(p - at);
	case '_':
		return n == 1 ? (long)(p - at) : -1;
	case '#':
		return n == 2 && (b->p[at + 1] == 't' || b->p[at + 1] == 'f') ? (long)(p - at) : -1;
	case ':':
		return vp_resp_number(b->p + at + 1, n - 1, &v) ? (long)(p - at) : -1;
	case '$':
	case '!':
	case '=':
		if (!vp_resp_number(b->p + at + 1, n - 1, &v) || v < -1 || v > 512LL * 1024 * 1024)
			return -1;
		if (v == -1)
			return (long)(p - at);
		if (p + (size_t)v + 2 > b->len)
			return 0;
		if (b->p[p + v] != '\r' || b->p[p + v + 1] != '\n')
			return -1;
		return (long)(p + (size_t)v + 2 - at);
	default: /* aggregates: '*', '%' (pairs), '~', '>', '|' (pairs) */
		if (!vp_resp_number(b->p + at + 1, n - 1, &v) || v < -1 || v > COUNT_MAX)
			return -1;
		if (v > 0 && (b->p[at] == '%' || b->p[at] == '|'))
			v *= 2;
		if (depth >= NEST_MAX)
			return 0;
		for (long long k = 0; k < v; k++) {
			long e = value_at(b, p, depth + 1);

			if (e <= 0)
				return e;
			p += (size_t)e;
		}
		return (long)(p - at);
	}
}

/* The first line decides (a value's type and its length or text). */
static int redis_reply(const struct vp_bytes *b, struct vp_witness *w)
{
	long len = vp_resp_line(b, 0);
	struct vp_bytes first;
	size_t i;

	if (len < 0)
		return 0;
	first = (struct vp_bytes){b->p, (size_t)len + 2, (size_t)len + 2};
	/* A bulk string's or an aggregate's header alone is a whole value when it is empty. */
	if (strchr("$!=*%~>|", b->p[0])) {
		long long v;

		if (!vp_resp_number(b->p + 1, len - 1, &v) || v < -1)
			return 0;
	} else if (value_at(&first, 0, 0) <= 0) {
		return 0;
	}
	if (b->p[0] == '-' || b->p[0] == '!') {
		w->flags |= VP_WIT_ERROR;
		for (i = 1; i < (size_t)len && b->p[i] != ' ' && i < VP_WIT_ERR_MAX; i++)
			;
		if (b->p[0] == '-')
			vp_proto_text(w->err, sizeof(w->err), b->p + 1, i - 1);
		if (!w->err[0])
			memcpy(w->err, "ERR", 4);
	}
	vp_redisq_reply(b, w);
	return 1;
}

static size_t redis_request_len(const struct vp_bytes *b)
{
	const uint8_t *name;
	size_t nl;
	long n = command_at(b, 0, &name, &nl);

	return n > 0 ? (size_t)n : 0;
}

static size_t redis_reply_len(const struct vp_bytes *b)
{
	long n = value_at(b, 0, 0);

	return n > 0 ? (size_t)n : 0;
}

const struct vp_proto_ops vp_proto_redis = {
	.name = "redis",
	.request = redis_request,
	.reply = redis_reply,
	.request_len = redis_request_len,
	.reply_len = redis_reply_len,
};
