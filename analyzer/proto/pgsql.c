// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PostgreSQL witness (protocol 3): the statement of a simple Query ('Q') or
 * of an extended-protocol Parse ('P') that begins the request, and whether
 * the reply holds an ErrorResponse ('E': its SQLSTATE code).  The first
 * message's type and length decide, so that more captured bytes never take
 * a witness back; the startup, SSL and password messages carry no type byte
 * or no statement and give no witness.
 */
#include <stdio.h>
#include <string.h>

#include "proto.h"

#define MSG_MAX (1u << 30)

/* The message at b->p + at: its type and length (type byte included), or 0 when not one. */
static size_t message_at(const struct vp_bytes *b, size_t at, const char *types, uint8_t *type)
{
	uint32_t len;

	if (b->len - at < 5 || !b->p[at] || !strchr(types, b->p[at]))
		return 0;
	len = vp_be32(b->p + at + 1);
	if (len < 4 || len > MSG_MAX)
		return 0;
	*type = b->p[at];
	return (size_t)len + 1;
}

static const char frontend[] = "QPBDESHCFXdcf";
static const char backend[] = "RKSZTDCEINV123nstGHWAcd";

/* A NUL-terminated string at [from, end) of the captured bytes: its length, or -1 when cut. */
static long cstring(const struct vp_bytes *b, size_t from, size_t end)
{
	size_t lim = end < b->len ? end : b->len;
	const uint8_t *z;

	if (from >= lim)
		return -1;
	z = memchr(b->p + from, 0, lim - from);
	return z ? (long)(z - (b->p + from)) : -1;
}

static int pg_request(const struct vp_bytes *b, struct vp_witness *w)
{
	uint8_t type;
	size_t n = message_at(b, 0, frontend, &type), text = 5;
	long len;

	if (!n || (type != 'Q' && type != 'P'))
		return 0;
	if (type == 'P') { /* the prepared statement's name, then its text */
		long name = cstring(b, 5, n);

		if (name < 0)
			return 0;
		text += (size_t)name + 1;
	}
	len = cstring(b, text, n);
	if (len < 0) {
		/*
		 * The text goes on past the captured bytes, or (a message no
		 * client sends) past its message: what is there, marked cut, so
		 * that more bytes never take the witness back.
		 */
		size_t end = n < b->len ? n : b->len;

		if (end <= text)
			return 0;
		len = (long)(end - text);
		w->flags |= VP_WIT_CUT;
	}
	if (!vp_proto_text(w->text, sizeof(w->text), b->p + text, (size_t)len))
		w->flags |= VP_WIT_CUT;
	if (!w->text[0])
		return 0;
	w->count = 1;
	return 1;
}

/* An ErrorResponse: its SQLSTATE code ('C' field), when captured. */
static void error_fields(const struct vp_bytes *b, size_t at, size_t end, struct vp_witness *w)
{
	char code[8] = "";
	size_t p = at + 5;

	while (p < end && p < b->len && b->p[p]) {
		long n = cstring(b, p + 1, end);

		if (n < 0)
			break;
		if (b->p[p] == 'C') { /* the first one: later bytes must not change it */
			if (n < (long)sizeof(code))
				vp_proto_text(code, sizeof(code), b->p + p + 1, (size_t)n);
			break;
		}
		p += 1 + (size_t)n + 1;
	}
	snprintf(w->err, sizeof(w->err), "ERROR%s%s", code[0] ? " " : "", code);
}

/*
 * The first message decides; the following ones are read as far as they are
 * messages, for an ErrorResponse (after ParseComplete, BindComplete, ...).
 */
static int pg_reply(const struct vp_bytes *b, struct vp_witness *w)
{
	size_t at = 0, n;
	uint8_t type;

	if (!message_at(b, 0, backend, &type))
		return 0;
	while (at < b->len && (n = message_at(b, at, backend, &type))) {
		if (type == 'E') {
			w->flags |= VP_WIT_ERROR;
			error_fields(b, at, at + n, w);
			break;
		}
		at += n;
	}
	return 1;
}

const struct vp_proto_ops vp_proto_pgsql = {
	.name = "postgresql",
	.request = pg_request,
	.reply = pg_reply,
};
