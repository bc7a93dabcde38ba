// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "propid.h"

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool all_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hexval(p[i]) < 0)
			return false;
	return n > 0;
}

/*
 * A trace id of 1..32 hex digits, as 32 lowercase ones (shorter ids, B3's
 * and Jaeger's 64-bit ones, padded with zeros on the left as W3C says).
 * All zeros is no trace.
 */
static bool trace_id(const uint8_t *p, size_t n, struct vp_propid *out)
{
	bool zero = true;

	if (n == 0 || n > 32 || !all_hex(p, n))
		return false;
	memset(out->id, '0', 32 - n);
	for (size_t i = 0; i < n; i++) {
		out->id[32 - n + i] = (char)(p[i] | 0x20);
		zero &= p[i] == '0';
	}
	if (zero)
		return false;
	out->id[32] = 0;
	out->len = 32;
	out->kind = VP_PROPID_TRACE;
	return true;
}

/* traceparent: version-traceid(32)-parentid(16)-flags(2); version ff is invalid. */
static bool traceparent(const uint8_t *v, size_t n, struct vp_propid *out)
{
	bool v00;

	if (n < 55 || !all_hex(v, 2) || ((v[0] | 0x20) == 'f' && (v[1] | 0x20) == 'f'))
		return false;
	if (v[2] != '-' || v[35] != '-' || v[52] != '-' || !all_hex(v + 36, 16) ||
	    !all_hex(v + 53, 2))
		return false;
	/* Version 00 has exactly these fields; a later one may add more after a '-'. */
	v00 = v[0] == '0' && v[1] == '0';
	if (n > 55 && (v00 || v[55] != '-'))
		return false;
	return trace_id(v + 3, 32, out);
}

/* Up to the first `sep` (the whole value without one). */
static size_t field(const uint8_t *v, size_t n, uint8_t sep)
{
	const uint8_t *e = memchr(v, sep, n);

	return e ? (size_t)(e - v) : n;
}

/* b3: traceid-spanid[-sampled[-parentid]]; a lone sampling flag carries no id. */
static bool b3_single(const uint8_t *v, size_t n, struct vp_propid *out)
{
	size_t t = field(v, n, '-');

	if (t == n || (t != 16 && t != 32))
		return false;
	return trace_id(v, t, out);
}

static bool b3_multi(const uint8_t *v, size_t n, struct vp_propid *out)
{
	return (n == 16 || n == 32) && trace_id(v, n, out);
}

/* uber-trace-id: traceid:spanid:parentid:flags. */
static bool uber(const uint8_t *v, size_t n, struct vp_propid *out)
{
	size_t t = field(v, n, ':');

	return t < n && trace_id(v, t, out);
}

/* A value kept as sent: printable, no spaces, not longer than VP_PROPID_MAX. */
static bool verbatim(const uint8_t *v, size_t n, enum vp_propid_kind kind, struct vp_propid *out)
{
	if (n == 0 || n > VP_PROPID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] <= 0x20 || v[i] >= 0x7f)
			return false;
	memcpy(out->id, v, n);
	out->id[n] = 0;
	out->len = (uint8_t)n;
	out->kind = kind;
	return true;
}

/* X-Amzn-Trace-Id: Root=1-xxxxxxxx-yyyyyyyyyyyyyyyyyyyyyyyy;Parent=...;Sampled=1 */
static bool amzn(const uint8_t *v, size_t n, struct vp_propid *out)
{
	for (size_t at = 0; at < n;) {
		size_t f = field(v + at, n - at, ';');

		if (f > 5 && !memcmp(v + at, "Root=", 5))
			return verbatim(v + at + 5, f - 5, VP_PROPID_AMZN, out);
		at += f + 1;
	}
	return false;
}

struct header {
	const char *name; /* lowercase */
	bool (*read)(const uint8_t *v, size_t n, struct vp_propid *out);
	uint8_t rank; /* lower wins */
};

static bool request_id(const uint8_t *v, size_t n, struct vp_propid *out)
{
	return verbatim(v, n, VP_PROPID_REQUEST_ID, out);
}

static const struct header headers[] = {
	{"traceparent", traceparent, 0}, {"b3", b3_single, 1},
	{"x-b3-traceid", b3_multi, 1},	 {"uber-trace-id", uber, 1},
	{"x-amzn-trace-id", amzn, 2},	 {"x-request-id", request_id, 3},
};

static bool name_is(const uint8_t *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	if (n != k)
		return false;
	for (size_t i = 0; i < k; i++)
		if ((line[i] >= 'A' && line[i] <= 'Z' ? line[i] + 32 : line[i]) != (uint8_t)name[i])
			return false;
	return true;
}

void vp_propid__field(const uint8_t *name, size_t nlen, const uint8_t *v, size_t vlen,
		      struct vp_propid *best, int *rank)
{
	for (size_t h = 0; h < sizeof(headers) / sizeof(headers[0]); h++) {
		struct vp_propid id = {0};

		if ((*rank < 0 || headers[h].rank < headers[*rank].rank) &&
		    name_is(name, nlen, headers[h].name) && headers[h].read(v, vlen, &id)) {
			*best = id;
			*rank = (int)h;
		}
	}
}

/* "METHOD SP target SP HTTP/1.x": the request line's length without its line end, 0 if not one. */
static size_t http_request_line(const uint8_t *p, size_t n)
{
	const uint8_t *eol = memchr(p, '\n', n);
	size_t m = 0, len;

	if (!eol)
		return 0;
	len = (size_t)(eol - p);
	if (len && p[len - 1] == '\r')
		len--;
	while (m < len && p[m] >= 'A' && p[m] <= 'Z')
		m++;
	if (m == 0 || m >= len || p[m] != ' ' || len < m + 11 ||
	    memcmp(p + len - 9, " HTTP/1.", 8) || (p[len - 1] != '0' && p[len - 1] != '1'))
		return 0;
	return len;
}

static bool http(const uint8_t *p, size_t n, struct vp_propid *out)
{
	size_t at = http_request_line(p, n);
	int best = -1;

	if (!at)
		return false;
	at = (size_t)((const uint8_t *)memchr(p, '\n', n) - p) + 1;
	/* Header lines whose line end was captured, up to the blank line. */
	while (at < n) {
		const uint8_t *eol = memchr(p + at, '\n', n - at);
		size_t len, colon, v, e;

		if (!eol)
			break;
		len = (size_t)(eol - (p + at));
		if (len && p[at + len - 1] == '\r')
			len--;
		if (len == 0)
			break;
		colon = field(p + at, len, ':');
		if (colon < len) {
			for (v = colon + 1; v < len && (p[at + v] == ' ' || p[at + v] == '\t');)
				v++;
			for (e = len; e > v && (p[at + e - 1] == ' ' || p[at + e - 1] == '\t');)
				e--;
			vp_propid__field(p + at, colon, p + at + v, e - v, out, &best);
		}
		at += (size_t)(eol - (p + at)) + 1;
	}
	return best >= 0;
}

/* Whether q[0..n) holds a comment's start: sqlcommenter's values are inside one. */
static bool after_comment_start(const uint8_t *q, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (q[i] == '/' && q[i + 1] == '*')
			return true;
	return false;
}

/* sqlcommenter: traceparent='00-...' inside a comment of the query text. */
static bool sql_text(const uint8_t *q, size_t n, struct vp_propid *out)
{
	static const char key[] = "traceparent='";
	const size_t k = sizeof(key) - 1;

	for (size_t i = 0; i + k <= n; i++) {
		const uint8_t *v, *end;

		if (memcmp(q + i, key, k))
			continue;
		v = q + i + k;
		end = memchr(v, '\'', n - i - k);
		if (!end || !after_comment_start(q, i))
			return false;
		return traceparent(v, (size_t)(end - v), out);
	}
	return false;
}

static bool pgsql(const uint8_t *p, size_t n, struct vp_propid *out)
{
	size_t len, at = 5;

	if (n < 6 || (p[0] != 'Q' && p[0] != 'P'))
		return false;
	len = (size_t)p[1] << 24 | (size_t)p[2] << 16 | (size_t)p[3] << 8 | p[4];
	/* Under 16 MiB: its second byte is 0, which no HTTP request's is (binary_message). */
	if (len < 5 || len >= (1u << 24))
		return false;
	if (n > len + 1)
		n = len + 1;
	/* Parse: a statement name, then the query. */
	if (p[0] == 'P') {
		const uint8_t *z = memchr(p + at, 0, n - at);

		if (!z)
			return false;
		at = (size_t)(z - p) + 1;
	}
	return sql_text(p + at, field(p + at, n - at, 0), out);
}

static bool mysql(const uint8_t *p, size_t n, struct vp_propid *out)
{
	size_t len;

	/*
	 * COM_QUERY, COM_STMT_PREPARE: the statement's text follows the command
	 * byte.  A command begins its packet sequence: sequence id 0.
	 */
	if (n < 6 || p[3] != 0 || (p[4] != 0x03 && p[4] != 0x16))
		return false;
	len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16;
	if (len < 2)
		return false;
	if (n > len + 4)
		n = len + 4;
	return sql_text(p + 5, n - 5, out);
}

/*
 * A PostgreSQL or MySQL message, not an HTTP request: a 0 in its second
 * byte (PostgreSQL's length under 16 MiB) or its fourth (MySQL's sequence
 * id), where a request line has printable text.  Read from the first four
 * bytes, so any longer capture of the message is read as the same
 * protocol (bytes that are both would give one id whole and another cut).
 */
static bool binary_message(const uint8_t *p, size_t n)
{
	return (n > 1 && p[1] == 0) || (n > 3 && p[3] == 0);
}

bool vp_propid__read(const uint8_t *p, size_t len, struct vp_propid *out)
{
	memset(out, 0, sizeof(*out));
	if (!p || !len)
		return false;
	if (binary_message(p, len) ? pgsql(p, len, out) || mysql(p, len, out) : http(p, len, out))
		return true;
	memset(out, 0, sizeof(*out));
	return false;
}

bool vp_propid__decided(const uint8_t *p, size_t len, uint64_t total)
{
	if (len >= total)
		return true;
	if (!p || binary_message(p, len) || !http_request_line(p, len))
		return false;
	for (size_t i = 0; i + 1 < len; i++) {
		if (p[i] != '\n')
			continue;
		/* A blank line: "\n\n" or "\n\r\n". */
		if (p[i + 1] == '\n' || (p[i + 1] == '\r' && i + 2 < len && p[i + 2] == '\n'))
			return true;
	}
	return false;
}

bool vp_propid__equal(const struct vp_propid *a, const struct vp_propid *b)
{
	return a->kind != VP_PROPID_NONE && a->kind == b->kind && a->len == b->len &&
	       !memcmp(a->id, b->id, a->len);
}
