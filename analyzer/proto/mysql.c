// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * MySQL witness (client/server protocol): the statement of a COM_QUERY or
 * COM_STMT_PREPARE packet (sequence 0), and whether the reply (sequence 1)
 * is an ERR packet (error number and SQLSTATE).  The handshake and the
 * authentication packets carry other sequence numbers or commands and give
 * no witness.
 */
#include <stdio.h>

#include "proto.h"

#define COM_QUERY 0x03
#define COM_STMT_PREPARE 0x16

static uint32_t packet_len(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static int mysql_request(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *p = b->p;
	uint32_t len;
	size_t text = 5, end;

	if (b->len < 6 || p[3] != 0 || (p[4] != COM_QUERY && p[4] != COM_STMT_PREPARE))
		return 0;
	len = packet_len(p);
	if (len < 2 || (uint64_t)len + 4 > b->total)
		return 0;
	/* Query attributes (CLIENT_QUERY_ATTRIBUTES) with none set: a count of 0 and one set. */
	if (p[4] == COM_QUERY && p[5] == 0 && b->len > 7 && p[6] == 1)
		text = 7;
	end = (size_t)len + 4;
	if (end > b->len) {
		end = b->len;
		w->flags |= VP_WIT_CUT;
	}
	if (text >= end || p[text] < 0x20 || p[text] > 0x7e)
		return 0;
	if (!vp_proto_text(w->text, sizeof(w->text), p + text, end - text))
		w->flags |= VP_WIT_CUT;
	w->count = 1;
	return 1;
}

static int mysql_reply(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *p = b->p;
	uint32_t len;

	if (b->len < 5 || p[3] != 1)
		return 0;
	len = packet_len(p);
	if (!len || (uint64_t)len + 4 > b->total)
		return 0;
	switch (p[4]) {
	case 0x00: /* OK: affected rows, last insert id, status, warnings */
		return len >= 7;
	case 0xfe: /* EOF, or OK in its place (CLIENT_DEPRECATE_EOF) */
		return len < 0xffffff;
	case 0xff: { /* ERR: error number, '#' and SQLSTATE, message */
		char state[6] = "";

		if (len < 3 || b->len < 7)
			return 0;
		if (len >= 9 && b->len >= 13 && p[7] == '#')
			vp_proto_text(state, sizeof(state), p + 8, 5);
		w->flags |= VP_WIT_ERROR;
		snprintf(w->err, sizeof(w->err), "ERR %u%s%s%s", (unsigned)(p[5] | p[6] << 8),
			 state[0] ? " (" : "", state, state[0] ? ")" : "");
		return 1;
	}
	default: /* a result set: its column count, one byte below 251 */
		return len == 1 && p[4] < 0xfb;
	}
}

const struct vp_proto_ops vp_proto_mysql = {
	.name = "mysql",
	.request = mysql_request,
	.reply = mysql_reply,
};
