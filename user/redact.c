// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recorder stage: secrets out of captured payload, one protocol rule after
 * the other on the same bytes (a rule that replaces too much only hides,
 * one that misses leaks, so every doubt goes to replacing).
 */
#include <string.h>
#include <strings.h>

#include "redact.h"

#define LINE_OPEN ((size_t)-1)

/* Replaces data[from, min(to, len)); DONE when a byte was replaced. */
static unsigned hide(uint8_t *d, size_t len, size_t from, size_t to)
{
	if (to > len)
		to = len;
	if (from >= to)
		return REDACT_NONE;
	memset(d + from, REDACT_MASK, to - from);
	return REDACT_DONE;
}

static size_t line_end(const uint8_t *d, size_t len, size_t from)
{
	const uint8_t *nl = from < len ? memchr(d + from, '\n', len - from) : NULL;

	return nl ? (size_t)(nl - d) : len;
}

/* ---- HTTP/1.x headers ---- */

static const char *const secret_headers[] = {"authorization", "proxy-authorization", "cookie",
					     "set-cookie"};

/*
 * The line at `at` names a secret header: the offset just after its ':'.
 * 0 when it does not; LINE_OPEN when the line is cut before it can tell and
 * could still become one.
 */
static size_t secret_header(const uint8_t *d, size_t len, size_t at)
{
	for (size_t i = 0; i < sizeof(secret_headers) / sizeof(secret_headers[0]); i++) {
		size_t n = strlen(secret_headers[i]), p;

		if (len - at < n) {
			if (strncasecmp((const char *)d + at, secret_headers[i], len - at) == 0)
				return LINE_OPEN;
			continue;
		}
		if (strncasecmp((const char *)d + at, secret_headers[i], n))
			continue;
		for (p = at + n; p < len && (d[p] == ' ' || d[p] == '\t'); p++)
			;
		if (p == len)
			return LINE_OPEN;
		if (d[p] == ':')
			return p + 1;
	}
	return 0;
}

/* Replaces one line's value from `from` to its end (CR excluded); OPEN when it is cut. */
static unsigned hide_to_line_end(uint8_t *d, size_t len, size_t from, size_t *eol)
{
	size_t end = line_end(d, len, from), vend = end;

	*eol = end;
	if (vend > from && d[vend - 1] == '\r')
		vend--;
	/* A line without its LF ends at the prefix's end: its value may go on. */
	return hide(d, len, from, vend) | (end == len && vend == end ? REDACT_OPEN : 0);
}

static unsigned http_headers(uint8_t *d, size_t len)
{
	unsigned res = REDACT_NONE;

	for (size_t line = 0; line < len;) {
		size_t v = secret_header(d, len, line), eol;

		if (v == LINE_OPEN)
			return res | REDACT_OPEN;
		if (!v) {
			line = line_end(d, len, line) + 1;
			continue;
		}
		while (v < len && (d[v] == ' ' || d[v] == '\t'))
			v++;
		res |= hide_to_line_end(d, len, v, &eol);
		/* Obsolete line folding: a line starting with SP or HT goes on with the value. */
		while (eol + 1 < len && (d[eol + 1] == ' ' || d[eol + 1] == '\t'))
			res |= hide_to_line_end(d, len, eol + 1, &eol);
		if (eol + 1 == len && eol < len)
			res |= REDACT_OPEN; /* the next line, maybe a fold, is not here */
		line = eol + 1;
	}
	return res;
}

/* A request line "METHOD SP target SP HTTP/1.x" or a status line "HTTP/1.x SP ddd", whole. */
static bool http_start_line(const uint8_t *d, size_t len, size_t *eol)
{
	size_t e = line_end(d, len, 0), m = 0;

	*eol = e;
	if (e == len)
		return false;
	if (e >= 12 && memcmp(d, "HTTP/1.", 7) == 0)
		return d[8] == ' ' && d[9] >= '1' && d[9] <= '5';
	while (m < e && d[m] >= 'A' && d[m] <= 'Z')
		m++;
	if (m == 0 || m >= e || d[m] != ' ')
		return false;
	if (e > 0 && d[e - 1] == '\r')
		e--;
	return e >= m + 10 && memcmp(d + e - 9, " HTTP/1.", 8) == 0 &&
	       memchr(d + m + 1, ' ', e - 9 - m - 1) == NULL;
}

/*
 * Headers whose end is not in the captured bytes of a longer operation may
 * end, past what was captured, in a secret cut by the operation's end.
 */
static unsigned http_tail_unseen(const uint8_t *d, size_t len, uint32_t bytes)
{
	size_t eol;

	if (len >= bytes || !http_start_line(d, len, &eol))
		return REDACT_NONE;
	for (size_t i = eol; i + 1 < len; i++)
		if (d[i] == '\n' &&
		    (d[i + 1] == '\n' || (d[i + 1] == '\r' && i + 2 < len && d[i + 2] == '\n')))
			return REDACT_NONE;
	return REDACT_OPEN;
}

/* ---- PostgreSQL frontend messages ---- */

#define PG_SECRET_MAX 0x100000u /* longer 'p' lengths are not PostgreSQL */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool pg_startup(const uint8_t *d, size_t len, uint32_t *mlen)
{
	uint32_t code;

	if (len < 8)
		return false;
	*mlen = be32(d);
	code = be32(d + 4);
	/* protocol 3.x, SSLRequest, GSSENCRequest, CancelRequest */
	return *mlen >= 8 && *mlen <= 10000 &&
	       ((code >> 16) == 3 || code == 80877103 || code == 80877104 || code == 80877102);
}

/* A chain of messages (type letter, length); the body of each 'p' is replaced. */
static unsigned postgres(uint8_t *d, size_t len, uint32_t bytes)
{
	unsigned res = REDACT_NONE;
	size_t off = 0;
	uint32_t n;

	if (pg_startup(d, len, &n))
		off = n;
	while (off + 5 <= len) {
		uint8_t type = d[off];

		n = be32(d + off + 1);
		if (!((type >= 'A' && type <= 'Z') || (type >= 'a' && type <= 'z')) || n < 4)
			break;
		if (type == 'p') {
			if (n > PG_SECRET_MAX)
				break;
			res |= hide(d, len, off + 5, off + 1 + n);
			if (off + 1 + (uint64_t)n > bytes)
				res |= REDACT_OPEN;
		}
		off += 1 + (size_t)n;
	}
	return res;
}

/* ---- MySQL ---- */

#define MYSQL_CLIENT_PROTOCOL_41 0x200u
#define MYSQL_COM_CHANGE_USER 0x11
#define MYSQL_GREETING 0x0a   /* protocol version 10: the server's first packet */
#define MYSQL_COM_END 0x20    /* command bytes are below */
#define MYSQL_AUTH_SEQ_MAX 15 /* the authentication exchange is over long before */

/* Replaces what follows the NUL-terminated user name at `user`. */
static unsigned mysql_after_user(uint8_t *d, size_t len, size_t user, uint64_t end, uint32_t bytes)
{
	const uint8_t *nul = user < len ? memchr(d + user, 0, len - user) : NULL;

	if (!nul)
		return end > bytes ? REDACT_OPEN : REDACT_NONE;
	return hide(d, len, (size_t)(nul - d) + 1, end > len ? len : (size_t)end) |
	       (end > bytes ? REDACT_OPEN : 0);
}

/*
 * A 4.1 handshake response: capability flags with CLIENT_PROTOCOL_41, then
 * 23 bytes of filler, zero but for the last 4, where MariaDB's clients put
 * their extended capabilities.
 */
static bool mysql_handshake_response(const uint8_t *d, size_t len, uint32_t n)
{
	uint32_t caps;

	if (len < 4 + 32 || n < 32)
		return false;
	caps = d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24;
	for (size_t i = 4 + 9; i < 4 + 28; i++)
		if (d[i])
			return false;
	return caps & MYSQL_CLIENT_PROTOCOL_41;
}

/*
 * The client's handshake response and COM_CHANGE_USER keep their fixed
 * fields and user name; any other packet of the exchange's sequence numbers
 * that makes up the whole operation (an auth switch response, more auth
 * data, a public-key request, an encrypted password) is replaced whole,
 * unless the stream told that its direction is not a client's that
 * authenticates (side): a server's OK or ERR packet is framed the same way.
 */
static unsigned mysql(uint8_t *d, size_t len, uint32_t bytes, uint8_t side)
{
	uint32_t n;
	uint8_t seq;
	uint64_t end;

	if (len < 5)
		return REDACT_NONE;
	n = d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16;
	seq = d[3];
	end = 4 + (uint64_t)n;
	if (seq == 0 && d[4] == MYSQL_COM_CHANGE_USER && n >= 2)
		return mysql_after_user(d, len, 5, end, bytes);
	if (seq == 0 || seq > MYSQL_AUTH_SEQ_MAX || n == 0)
		return REDACT_NONE;
	if (mysql_handshake_response(d, len, n))
		return mysql_after_user(d, len, 4 + 32, end, bytes);
	if (end != bytes || side == REDACT_SIDE_CLIENT || side == REDACT_SIDE_SERVER)
		return REDACT_NONE;
	return hide(d, len, 4, len);
}

bool redact_mysql_side(const uint8_t *d, size_t len, uint32_t bytes, uint8_t *side, uint8_t *other)
{
	uint32_t n;

	if (len < 5)
		return false;
	n = d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16;
	/* A packet that fits its operation, as MySQL's do. */
	if (n == 0 || 4 + (uint64_t)n > bytes)
		return false;
	if (d[3] >= 1 && d[3] <= MYSQL_AUTH_SEQ_MAX && mysql_handshake_response(d, len, n)) {
		*side = REDACT_SIDE_CLIENT_AUTH;
		*other = REDACT_SIDE_SERVER;
		return true;
	}
	if (d[3] != 0)
		return false;
	if (d[4] == MYSQL_GREETING) {
		*side = REDACT_SIDE_SERVER;
		*other = REDACT_SIDE_CLIENT_AUTH;
	} else if (d[4] == MYSQL_COM_CHANGE_USER) {
		*side = REDACT_SIDE_CLIENT_AUTH;
		*other = REDACT_SIDE_SERVER;
	} else if (d[4] < MYSQL_COM_END) {
		*side = REDACT_SIDE_CLIENT;
		*other = REDACT_SIDE_SERVER;
	} else {
		return false;
	}
	return true;
}

/* ---- Redis ---- */

#define REDIS_MAX_ARGS 64

struct redis_arg {
	size_t at, len; /* within the captured bytes; len may run past them */
};

/* An unsigned decimal ending in CRLF at *p; false when cut or malformed. */
static bool resp_number(const uint8_t *d, size_t len, size_t *p, uint64_t *v)
{
	size_t i = *p;

	*v = 0;
	if (i >= len || d[i] < '0' || d[i] > '9')
		return false;
	for (; i < len && d[i] >= '0' && d[i] <= '9'; i++) {
		*v = *v * 10 + (d[i] - '0');
		if (*v > 0xffffffffu)
			return false;
	}
	if (i + 1 >= len || d[i] != '\r' || d[i + 1] != '\n')
		return false;
	*p = i + 2;
	return true;
}

static bool word_is(const uint8_t *d, const struct redis_arg *a, size_t len, const char *w)
{
	size_t n = strlen(w);

	return a->len == n && a->at + n <= len && strncasecmp((const char *)d + a->at, w, n) == 0;
}

/* From which argument on the command's arguments are secret; n when none are. */
static size_t redis_secret_from(const uint8_t *d, size_t len, const struct redis_arg *a, size_t n)
{
	if (n == 0)
		return n;
	if (word_is(d, &a[0], len, "AUTH"))
		return 1;
	if (word_is(d, &a[0], len, "HELLO") || word_is(d, &a[0], len, "MIGRATE")) {
		for (size_t i = 1; i < n; i++)
			if (word_is(d, &a[i], len, "AUTH") || word_is(d, &a[i], len, "AUTH2"))
				return i + 1;
		return n;
	}
	if (n >= 2 && word_is(d, &a[0], len, "CONFIG") && word_is(d, &a[1], len, "SET"))
		return 2;
	if (n >= 2 && word_is(d, &a[0], len, "ACL") && word_is(d, &a[1], len, "SETUSER"))
		return 3;
	return n;
}

/* Commands that can carry a secret further on than the captured bytes show. */
static bool redis_secret_command(const uint8_t *d, size_t len, const struct redis_arg *a, size_t n)
{
	return n >= 1 && (word_is(d, &a[0], len, "AUTH") || word_is(d, &a[0], len, "HELLO") ||
			  word_is(d, &a[0], len, "MIGRATE") || word_is(d, &a[0], len, "CONFIG") ||
			  word_is(d, &a[0], len, "ACL"));
}

/*
 * RESP arrays of bulk strings, one command after the other; the content of
 * each secret argument is replaced (its $length stays).  Returns the offset
 * where parsing stopped; *res gets what was done.
 */
static size_t resp_commands(uint8_t *d, size_t len, unsigned *res)
{
	struct redis_arg a[REDIS_MAX_ARGS];
	size_t off = 0;

	while (off < len && d[off] == '*') {
		size_t p = off + 1, n = 0, from;
		uint64_t count, blen;
		bool cut = false;

		if (!resp_number(d, len, &p, &count) || count == 0)
			break;
		while (n < count && n < REDIS_MAX_ARGS) {
			if (p >= len || d[p] != '$') {
				cut = true;
				break;
			}
			p++;
			if (!resp_number(d, len, &p, &blen)) {
				cut = true;
				break;
			}
			a[n].at = p;
			a[n].len = (size_t)blen;
			n++;
			if (blen + 2 > len - p) {
				cut = true;
				break;
			}
			p += (size_t)blen + 2;
		}
		from = redis_secret_from(d, len, a, n);
		for (size_t i = from; i < n; i++)
			*res |= hide(d, len, a[i].at, a[i].at + a[i].len);
		if (cut || n < count) {
			/* What is not here may be a secret of this command in the next operation. */
			if (cut && redis_secret_command(d, len, a, n))
				*res |= REDACT_OPEN;
			if (n < count && from < n)
				*res |= hide(d, len, p, len);
			return len;
		}
		off = p;
	}
	return off;
}

/* Inline commands: words separated by spaces, one command per line. */
static unsigned redis_inline(uint8_t *d, size_t len)
{
	unsigned res = REDACT_NONE;

	for (size_t line = 0; line < len;) {
		struct redis_arg a[REDIS_MAX_ARGS];
		size_t eol = line_end(d, len, line), n = 0, p = line, from, e = eol;

		if (e > line && d[e - 1] == '\r')
			e--;
		while (p < e && n < REDIS_MAX_ARGS) {
			while (p < e && (d[p] == ' ' || d[p] == '\t'))
				p++;
			if (p == e)
				break;
			a[n].at = p;
			while (p < e && d[p] != ' ' && d[p] != '\t')
				p++;
			a[n].len = p - a[n].at;
			n++;
		}
		from = redis_secret_from(d, len, a, n);
		if (from < n) {
			res |= hide(d, len, a[from].at, e);
			if (eol == len)
				res |= REDACT_OPEN;
		} else if (eol == len && n >= 1 && word_is(d, &a[0], len, "AUTH")) {
			res |= REDACT_OPEN; /* "AUTH" cut before its argument */
		}
		line = eol + 1;
	}
	return res;
}

static unsigned redis(uint8_t *d, size_t len)
{
	unsigned res = REDACT_NONE;
	size_t off = resp_commands(d, len, &res);

	if (off == 0)
		res |= redis_inline(d, len);
	return res;
}

/* ---- AMQP 0-9-1 ---- */

#define AMQP_FRAME_METHOD 1
#define AMQP_CONNECTION 10
#define AMQP_START_OK 11  /* client-properties, mechanism, response, locale */
#define AMQP_SECURE_OK 21 /* response */

/*
 * A chain of frames (type, channel, size, payload, 0xCE): the response of
 * each connection.start-ok and connection.secure-ok is replaced, whatever
 * its mechanism (PLAIN's is "\0user\0password", AMQPLAIN's a table with
 * the password).
 */
static unsigned amqp(uint8_t *d, size_t len, uint32_t bytes)
{
	unsigned res = REDACT_NONE;
	size_t off = len >= 8 && !memcmp(d, "AMQP", 4) ? 8 : 0;

	while (off + 11 <= len && d[off] >= AMQP_FRAME_METHOD && d[off] <= 8) {
		uint64_t p = off + 11, n = be32(d + off + 3);
		unsigned method = (unsigned)(d[off + 9] << 8 | d[off + 10]);

		if (d[off] == AMQP_FRAME_METHOD && d[off + 7] == 0 &&
		    d[off + 8] == AMQP_CONNECTION &&
		    (method == AMQP_START_OK || method == AMQP_SECURE_OK)) {
			if (method == AMQP_START_OK && p + 4 <= len)
				p += 4 + (uint64_t)be32(d + p); /* client-properties */
			if (method == AMQP_START_OK && p < len)
				p += 1 + (uint64_t)d[p]; /* mechanism */
			if (p + 4 <= len) {
				uint64_t r = be32(d + p);

				res |= hide(d, len, (size_t)p + 4,
					    (size_t)(p + 4 + r < len ? p + 4 + r : len));
				if (p + 4 + r > bytes)
					res |= REDACT_OPEN;
			}
		}
		off += 8 + (size_t)n;
	}
	return res;
}

unsigned redact_payload_side(uint8_t *data, size_t len, uint32_t bytes, uint8_t side)
{
	unsigned res;

	if (len == 0)
		return REDACT_NONE;
	res = mysql(data, len, bytes, side);
	res |= postgres(data, len, bytes);
	res |= redis(data, len);
	res |= amqp(data, len, bytes);
	res |= http_headers(data, len);
	res |= http_tail_unseen(data, len, bytes);
	return res;
}

unsigned redact_payload(uint8_t *data, size_t len, uint32_t bytes)
{
	return redact_payload_side(data, len, bytes, REDACT_SIDE_UNKNOWN);
}

unsigned redact_continued_side(uint8_t *data, size_t len, uint32_t bytes, uint8_t side)
{
	unsigned res;
	size_t eol;

	if (len == 0)
		return REDACT_NONE;
	/* First, on the bytes as they came: a replaced first line would hide what follows from the rules. */
	res = redact_payload_side(data, len, bytes, side);
	if (!http_start_line(data, len, &eol)) {
		size_t e = eol;

		if (e > 0 && data[e - 1] == '\r')
			e--;
		res |= hide(data, len, 0, e);
		if (eol == len)
			res |= REDACT_OPEN;
	}
	return res;
}

unsigned redact_continued(uint8_t *data, size_t len, uint32_t bytes)
{
	return redact_continued_side(data, len, bytes, REDACT_SIDE_UNKNOWN);
}
