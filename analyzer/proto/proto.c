// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Protocol witnesses: the dispatch that sniffs the protocol from both sides of an exchange. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

static const struct vp_proto_ops *const protos[VP_PROTO_MAX] = {
	[VP_PROTO_HTTP] = &vp_proto_http,   [VP_PROTO_PGSQL] = &vp_proto_pgsql,
	[VP_PROTO_REDIS] = &vp_proto_redis, [VP_PROTO_MYSQL] = &vp_proto_mysql,
	[VP_PROTO_AMQP] = &vp_proto_amqp,
};

const struct vp_proto_ops *vp_proto_ops_of(uint8_t proto)
{
	return proto < VP_PROTO_MAX ? protos[proto] : NULL;
}

bool vp_proto_witness_as(uint8_t proto, const struct vp_bytes *req, const struct vp_bytes *rep,
			 struct vp_witness *w)
{
	const struct vp_proto_ops *o = vp_proto_ops_of(proto);

	memset(w, 0, sizeof(*w));
	if (!o || !req || !rep || !req->len || !rep->len)
		return false;
	if (o->request(req, w) != 1 || o->reply(rep, w) != 1) {
		memset(w, 0, sizeof(*w));
		return false;
	}
	w->proto = proto;
	if (!w->count)
		w->count = 1;
	return true;
}

bool vp_proto_witness(const struct vp_bytes *req, const struct vp_bytes *rep, struct vp_witness *w)
{
	struct vp_witness t;
	int found = 0;

	memset(w, 0, sizeof(*w));
	for (uint8_t p = VP_PROTO_NONE + 1; p < VP_PROTO_MAX; p++) {
		if (!vp_proto_witness_as(p, req, rep, &t))
			continue;
		if (found++) /* two protocols read the same bytes: they decide nothing */
			break;
		*w = t;
	}
	if (found != 1)
		memset(w, 0, sizeof(*w));
	return found == 1;
}

bool vp_proto_text(char *dst, size_t cap, const uint8_t *src, size_t n)
{
	size_t o = 0, i;
	bool space = false;

	if (!cap)
		return false;
	for (i = 0; i < n && o + 1 < cap; i++) {
		uint8_t c = src[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			space = o > 0;
			continue;
		}
		if (space) {
			dst[o++] = ' ';
			space = false;
			if (o + 1 >= cap)
				break;
		}
		dst[o++] = c >= 0x21 && c <= 0x7e ? (char)c : '?';
	}
	dst[o] = '\0';
	/* Only white space left over is no loss. */
	while (i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n'))
		i++;
	return i == n;
}

char *vp_witness_label(const struct vp_witness *w, size_t max_text, char *buf, size_t len)
{
	char text[VP_WIT_TEXT_MAX + 4];
	size_t n = strlen(w->text);
	bool cut = w->flags & VP_WIT_CUT;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (w->proto == VP_PROTO_NONE)
		return buf;
	if (max_text < 4)
		max_text = 4;
	if (n > max_text) {
		n = max_text - 3;
		cut = true;
	}
	snprintf(text, sizeof(text), "%.*s%s", (int)n, w->text, cut ? "..." : "");
	switch (w->proto) {
	case VP_PROTO_HTTP: {
		char grpc[24] = "";

		if (w->flags & VP_WIT_GRPC)
			snprintf(grpc, sizeof(grpc), " grpc-status %u", w->grpc_status);
		if (w->status)
			snprintf(buf, len, "%s %s %u%s", w->verb, text, w->status, grpc);
		else
			snprintf(buf, len, "%s %s%s", w->verb, text, grpc);
		break;
	}
	case VP_PROTO_REDIS:
		if (w->count > 1)
			snprintf(buf, len, "%s (%u%s commands)%s%s", w->verb, w->count,
				 w->flags & VP_WIT_MORE ? "+" : "", w->err[0] ? " " : "", w->err);
		else
			snprintf(buf, len, "%s%s%s", w->verb, w->err[0] ? " " : "", w->err);
		break;
	case VP_PROTO_AMQP:
		snprintf(buf, len, "%s%s%s%s%s", w->verb, text[0] ? " " : "", text,
			 w->err[0] ? " " : "", w->err);
		break;
	default:
		snprintf(buf, len, "%s%s%s", text, w->err[0] ? " " : "", w->err);
		break;
	}
	return buf;
}

static bool is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* SQL with its literal values as '?': numbers and quoted strings. */
static void sql_key(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	while (*s && o + 1 < len) {
		char c = *s;

		/* '...' is a string; "..." an identifier (PostgreSQL) or a string (MySQL): kept. */
		if (c == '\'') {
			for (s++; *s; s++) {
				if (*s == '\'' && s[1] != '\'')
					break;
				if (*s == '\'') /* '' inside a string */
					s++;
			}
			if (*s)
				s++;
			buf[o++] = '?';
			continue;
		}
		if (isdigit((unsigned char)c) && (o == 0 || !is_word(buf[o - 1]))) {
			while (isalnum((unsigned char)*s) || *s == '.')
				s++;
			buf[o++] = '?';
			continue;
		}
		buf[o++] = c;
		s++;
	}
	buf[o] = '\0';
}

/* An HTTP path without its query, with segments of digits only as '?'. */
static void http_key(const char *verb, const char *target, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s ", verb);
	const char *s = target;

	if (o >= len)
		return;
	while (*s && *s != '?' && *s != '#' && o + 1 < len) {
		size_t seg = strspn(s, "0123456789");

		if (seg && (s[seg] == '/' || s[seg] == '\0' || s[seg] == '?' || s[seg] == '#') &&
		    (s == target || s[-1] == '/')) {
			buf[o++] = '?';
			s += seg;
			continue;
		}
		buf[o++] = *s++;
	}
	buf[o] = '\0';
}

char *vp_witness_pattern_key(const struct vp_witness *w, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	switch (w->proto) {
	case VP_PROTO_HTTP:
		http_key(w->verb, w->text, buf, len);
		break;
	case VP_PROTO_REDIS:
		snprintf(buf, len, "%s", w->verb);
		break;
	case VP_PROTO_AMQP: /* a method and its exchange and routing key: few values */
		snprintf(buf, len, "%s%s%s", w->verb, w->text[0] ? " " : "", w->text);
		break;
	case VP_PROTO_PGSQL:
	case VP_PROTO_MYSQL:
		sql_key(w->text, buf, len);
		break;
	default:
		break;
	}
	return buf;
}
