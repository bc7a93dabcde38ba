// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Redis queue messages (the analyzer's queue hops, queues.h): a hash of
 * a message's queue and of all its bytes, read whole from the capture, on
 * the side that puts it and on the side it is delivered to.
 *
 *   lists    LPUSH/RPUSH key msg                 -> BRPOP/BLPOP reply [key, msg];
 *                                                   BLMOVE/BRPOPLPUSH/LMOVE/RPOPLPUSH
 *                                                   src ... -> reply msg
 *   streams  XADD key [opts] id f v [f v ...]    -> XREADGROUP/XREAD reply with one
 *            (reply: the entry's id)                stream and one entry [id, [f v ...]]
 *   pub/sub  PUBLISH/SPUBLISH channel msg         -> a push on each subscriber's connection:
 *            (reply: the subscribers reached)       [message, channel, msg],
 *                                                   [pmessage, pattern, channel, msg],
 *                                                   [smessage, channel, msg]
 *
 * A push has no request: the exchanges stage cuts each of a subscribed
 * connection's reply-direction operations into an exchange of its own
 * (exchanges.h), whose witness vp_witness_push reads from the push alone.
 * Its message goes to every subscriber (VP_WIT_FANOUT), so one PUBLISH
 * may have several deliveries.
 *
 * A stream's entry also carries its id (qid): the one XADD's reply gives
 * is the one the delivery shows, so when both are captured the id decides
 * which XADD it was, whatever other entries share its bytes.  A move's
 * list is in its request and its message in its reply: the request's
 * reader leaves the list's part of the hash in qmsg (qkind still NONE),
 * the reply's completes it or clears it.
 */
#include <string.h>

#include "fields.h"
#include "fnv.h"
#include "redisq.h"
#include "resp.h"

#define ARGS_MAX 64
#define FNV_BASIS VP_FNV_BASIS
/* Streams' hashes start elsewhere: a list's message never equals a stream's. */
#define STREAM_BASIS (FNV_BASIS ^ 0x5354524541ull)
/* And pub/sub's: a channel is not a list of the same name. */
#define PUBSUB_BASIS (FNV_BASIS ^ 0x505542ull)

struct args {
	size_t n;
	const uint8_t *p[ARGS_MAX];
	long long len[ARGS_MAX];
};

/* A bulk string at `at`, whole in the captured bytes: where it ends, and its bytes; 0: not one. */
static size_t bulk_at(const struct vp_bytes *b, size_t at, const uint8_t **s, long long *n)
{
	long l = vp_resp_line(b, at);

	if (l < 2 || b->p[at] != '$' || !vp_resp_number(b->p + at + 1, l - 1, n) || *n < 0 ||
	    *n > (long long)b->len)
		return 0;
	at += (size_t)l + 2;
	if (at + (size_t)*n + 2 > b->len || b->p[at + *n] != '\r' || b->p[at + *n + 1] != '\n')
		return 0;
	*s = b->p + at;
	return at + (size_t)*n + 2;
}

/* An aggregate's header `<type><count>\r\n` at `at`: where it ends, 0 when not that. */
static size_t header_at(const struct vp_bytes *b, size_t at, char type, long long *count)
{
	long l = vp_resp_line(b, at);

	if (l < 2 || b->p[at] != (uint8_t)type || !vp_resp_number(b->p + at + 1, l - 1, count))
		return 0;
	return at + (size_t)l + 2;
}

/* FNV-1a over one part of a message: its length, then its bytes. */
static uint64_t fnv_part(uint64_t h, const uint8_t *p, long long n)
{
	return vp_fnv1a(vp_fnv1a_u64(h, (uint64_t)n), p, n > 0 ? (size_t)n : 0);
}

static uint64_t nonzero(uint64_t h)
{
	return h ? h : 1;
}

/* A command's arguments, each whole in the capture; false when not (or more than ARGS_MAX). */
static bool args_of(const struct vp_bytes *b, struct args *a)
{
	long long n;
	size_t at = header_at(b, 0, '*', &n);

	if (!at || n < 1 || n > ARGS_MAX)
		return false;
	for (size_t i = 0; i < (size_t)n; i++)
		if (!(at = bulk_at(b, at, &a->p[i], &a->len[i])))
			return false;
	a->n = (size_t)n;
	return true;
}

static bool arg_is(const struct args *a, size_t i, const char *s)
{
	size_t n = strlen(s);

	if (i >= a->n || a->len[i] != (long long)n)
		return false;
	for (size_t k = 0; k < n; k++)
		if ((a->p[i][k] | 0x20) != (s[k] | 0x20))
			return false;
	return true;
}

static bool verb_in(const struct vp_witness *w, const char *const *verbs)
{
	for (; *verbs; verbs++)
		if (!strcmp(w->verb, *verbs))
			return true;
	return false;
}

static const char *const list_moves[] = {"BLMOVE", "BRPOPLPUSH", "LMOVE", "RPOPLPUSH", NULL};
static const char *const list_pops[] = {"BRPOP", "BLPOP", NULL};
static const char *const stream_reads[] = {"XREADGROUP", "XREAD", NULL};
static const char *const subscribes[] = {"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", NULL};
static const char *const unsubscribes[] = {"UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "RESET",
					   NULL};
static const char *const publishes[] = {"PUBLISH", "SPUBLISH", NULL};

bool vp_witness_waits(const struct vp_witness *w)
{
	return w->proto == VP_PROTO_REDIS &&
	       (verb_in(w, list_pops) || verb_in(w, list_moves) || verb_in(w, stream_reads));
}

bool vp_witness_subscribes(const struct vp_witness *w)
{
	return w->proto == VP_PROTO_REDIS && !(w->flags & VP_WIT_ERROR) && verb_in(w, subscribes);
}

bool vp_witness_unsubscribes(const struct vp_witness *w)
{
	return w->proto == VP_PROTO_REDIS && verb_in(w, unsubscribes);
}

/* XADD's first field: after the key, NOMKSTREAM, MAXLEN|MINID [=|~] n [LIMIT n], the id. */
static size_t xadd_fields(const struct args *a)
{
	size_t i = 2;

	if (arg_is(a, i, "NOMKSTREAM"))
		i++;
	if (arg_is(a, i, "MAXLEN") || arg_is(a, i, "MINID")) {
		i++;
		if (arg_is(a, i, "=") || arg_is(a, i, "~"))
			i++;
		i++;
		if (arg_is(a, i, "LIMIT"))
			i += 2;
	}
	return i + 1;
}

static void stream_push(const struct args *a, struct vp_witness *w)
{
	size_t f = xadd_fields(a);
	uint64_t h;

	if (f >= a->n || (a->n - f) % 2)
		return;
	h = fnv_part(STREAM_BASIS, a->p[1], a->len[1]);
	for (; f < a->n; f++)
		h = fnv_part(h, a->p[f], a->len[f]);
	w->qmsg = nonzero(h);
	w->qkind = VP_WIT_Q_PUSH;
}

static void distinct_keys(const uint8_t *const *m, const long long *mlen, size_t n,
			  struct vp_witness *w);

void vp_redisq_request(const struct vp_bytes *b, struct vp_witness *w)
{
	struct args a;

	if (w->count != 1 || (w->flags & VP_WIT_MORE) || !args_of(b, &a))
		return;
	if ((!strcmp(w->verb, "LPUSH") || !strcmp(w->verb, "RPUSH")) && a.n == 3) {
		w->qmsg =
			nonzero(fnv_part(fnv_part(FNV_BASIS, a.p[1], a.len[1]), a.p[2], a.len[2]));
		w->qkind = VP_WIT_Q_PUSH;
	} else if (verb_in(w, list_moves) && a.n >= 3) {
		w->qmsg = fnv_part(FNV_BASIS, a.p[1], a.len[1]); /* the reply says the rest */
	} else if (!strcmp(w->verb, "XADD") && a.n >= 5) {
		stream_push(&a, w);
	} else if (verb_in(w, publishes) && a.n == 3) {
		w->qmsg = nonzero(
			fnv_part(fnv_part(PUBSUB_BASIS, a.p[1], a.len[1]), a.p[2], a.len[2]));
		w->qkind = VP_WIT_Q_PUSH;
		w->flags |= VP_WIT_FANOUT;
		/* Its fields: what tells its work from others' where a read's capture ends first. */
		distinct_keys(&a.p[2], &a.len[2], 1, w);
	}
}

/* A BRPOP/BLPOP reply that delivers: `*2`, the list, the message (RESP2 and RESP3). */
static void list_pop(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *key, *val;
	long long klen, vlen, n;
	size_t at = header_at(b, 0, '*', &n);

	if (!at || n != 2 || !(at = bulk_at(b, at, &key, &klen)) || !bulk_at(b, at, &val, &vlen))
		return;
	w->qmsg = nonzero(fnv_part(fnv_part(FNV_BASIS, key, klen), val, vlen));
	w->qkind = VP_WIT_Q_POP;
}

/*
 * An XREADGROUP/XREAD reply of one stream and one entry: RESP2 `*1 *2 key
 * *1 *2 id *2k f v ...`, RESP3 `%1 key *1 *2 id *2k f v ...`.
 */
static void stream_delivery(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *s;
	long long n, k;
	size_t at = header_at(b, 0, '%', &n);
	uint64_t h;

	if (!at) { /* RESP2: an array of [key, entries] pairs */
		if (!(at = header_at(b, 0, '*', &n)) || n != 1 ||
		    !(at = header_at(b, at, '*', &k)) || k != 2)
			return;
	}
	if (n != 1 || !(at = bulk_at(b, at, &s, &n)))
		return;
	h = fnv_part(STREAM_BASIS, s, n);
	if (!(at = header_at(b, at, '*', &n)) || n != 1 || !(at = header_at(b, at, '*', &n)) ||
	    n != 2 || !(at = bulk_at(b, at, &s, &n)))
		return;
	w->qid = nonzero(fnv_part(FNV_BASIS, s, n));
	if (!(at = header_at(b, at, '*', &k)) || k < 2 || k % 2 || k > ARGS_MAX)
		goto none;
	for (long long i = 0; i < k; i++) {
		if (!(at = bulk_at(b, at, &s, &n)))
			goto none;
		h = fnv_part(h, s, n);
	}
	w->qmsg = nonzero(h);
	w->qkind = VP_WIT_Q_POP;
	return;
none:
	w->qid = 0;
}

void vp_redisq_reply(const struct vp_bytes *b, struct vp_witness *w)
{
	uint64_t list = w->qmsg;
	const uint8_t *s;
	long long n;

	if (w->flags & VP_WIT_ERROR) { /* nothing was pushed, nothing delivered */
		w->qkind = VP_WIT_Q_NONE;
		w->qmsg = w->qid = 0;
		w->nqkeys = 0;
		memset(w->qkeys, 0, sizeof(w->qkeys));
		return;
	}
	if (w->qkind == VP_WIT_Q_PUSH) {
		if (verb_in(w, publishes) && b->len >= 3 && !memcmp(b->p, ":0\r", 3)) {
			w->qkind = VP_WIT_Q_NONE; /* no subscriber: delivered to nobody */
			w->qmsg = 0;
			w->nqkeys = 0;
			memset(w->qkeys, 0, sizeof(w->qkeys));
			w->flags &= (uint8_t)~VP_WIT_FANOUT;
		}
		if (strcmp(w->verb, "XADD"))
			return;
		if (bulk_at(b, 0, &s, &n)) {
			w->qid = nonzero(fnv_part(FNV_BASIS, s, n)); /* the entry's id */
		} else if (b->len >= 2 && (b->p[0] == '_' || !memcmp(b->p, "$-", 2))) {
			w->qkind = VP_WIT_Q_NONE; /* nil: NOMKSTREAM and no stream, nothing added */
			w->qmsg = 0;
		}
		return;
	}
	w->qmsg = 0;
	if (verb_in(w, list_pops))
		list_pop(b, w);
	else if (verb_in(w, stream_reads))
		stream_delivery(b, w);
	else if (list && verb_in(w, list_moves) && bulk_at(b, 0, &s, &n)) {
		w->qmsg = nonzero(fnv_part(list, s, n));
		w->qkind = VP_WIT_Q_POP;
	}
}

/* A push's kind: its array's size and first element's name. */
static const struct {
	long long n;
	const char *kind, *verb;
} push_kinds[] = {
	{3, "message", "MESSAGE"},
	{4, "pmessage", "PMESSAGE"},
	{3, "smessage", "SMESSAGE"},
};

/*
 * The push at `at`: where it ends, its verb's index in push_kinds and its
 * message's hash; 0 when the bytes there are not one whole push.  *m, *mlen:
 * the message's bytes.
 */
static size_t push_at(const struct vp_bytes *b, size_t at, size_t *kind, uint64_t *msg,
		      const uint8_t **m, long long *mlen)
{
	const uint8_t *s[4];
	long long n, len[4];
	size_t start = at;

	if (!(at = header_at(b, start, '*', &n)))
		at = header_at(b, start, '>', &n); /* RESP3 */
	if (!at || (n != 3 && n != 4))
		return 0;
	for (long long i = 0; i < n; i++)
		if (!(at = bulk_at(b, at, &s[i], &len[i])))
			return 0;
	for (size_t k = 0; k < sizeof(push_kinds) / sizeof(push_kinds[0]); k++) {
		size_t kl = strlen(push_kinds[k].kind);

		if (n != push_kinds[k].n || len[0] != (long long)kl ||
		    memcmp(s[0], push_kinds[k].kind, kl))
			continue;
		*kind = k;
		*msg = nonzero(fnv_part(fnv_part(PUBSUB_BASIS, s[n - 2], len[n - 2]), s[n - 1],
					len[n - 1]));
		*m = s[n - 1];
		*mlen = len[n - 1];
		return at;
	}
	return 0;
}

#define MSG_FIELDS_MAX 32

/* Whether field h is among message j's (fields[j], nf[j] of them). */
static bool has_field(uint64_t fields[][MSG_FIELDS_MAX], const size_t *nf, size_t j, uint64_t h)
{
	for (size_t i = 0; i < nf[j]; i++)
		if (fields[j][i] == h)
			return true;
	return false;
}

/*
 * The fields of each of n messages that no other holds (vp_witness.qkeys):
 * what can tell which of them a later call was for.
 */
static void distinct_keys(const uint8_t *const *m, const long long *mlen, size_t n,
			  struct vp_witness *w)
{
	uint64_t fields[VP_WIT_QMSGS_MAX][MSG_FIELDS_MAX];
	size_t nf[VP_WIT_QMSGS_MAX];

	for (size_t i = 0; i < n; i++)
		if ((nf[i] = vp_fields(m[i], (size_t)mlen[i], fields[i], MSG_FIELDS_MAX)) >
		    MSG_FIELDS_MAX)
			goto unknown;
	for (size_t i = 0; i < n; i++)
		for (size_t f = 0; f < nf[i]; f++) {
			bool shared = false;

			for (size_t j = 0; j < n && !shared; j++)
				shared = j != i && has_field(fields, nf, j, fields[i][f]);
			if (shared)
				continue;
			if (w->nqkeys == VP_WIT_QKEYS_MAX)
				goto unknown;
			w->qkey_of[w->nqkeys] = (uint8_t)i;
			w->qkeys[w->nqkeys++] = fields[i][f];
		}
	return;
unknown:
	w->nqkeys = VP_WIT_QKEYS_UNKNOWN;
	memset(w->qkeys, 0, sizeof(w->qkeys));
	memset(w->qkey_of, 0, sizeof(w->qkey_of));
}

bool vp_witness_push(const struct vp_bytes *b, struct vp_witness *w)
{
	const uint8_t *m[VP_WIT_QMSGS_MAX];
	long long mlen[VP_WIT_QMSGS_MAX];
	size_t at = 0, n = 0, kind = 0, k, next;

	memset(w, 0, sizeof(*w));
	/*
	 * Every byte read is whole pushes: with a part of one, the consumer reads
	 * on without us.  Pushes the capture cut, or past VP_WIT_QMSGS_MAX, are
	 * VP_WIT_MORE: those kept, and more unseen after them.
	 */
	while (at < b->len) {
		if (n < VP_WIT_QMSGS_MAX &&
		    (next = push_at(b, at, &k, &w->qmsgs[n], &m[n], &mlen[n]))) {
			kind = n++ ? kind : k;
			at = next;
			continue;
		}
		if (!n || (b->p[at] != '*' && b->p[at] != '>') ||
		    (n < VP_WIT_QMSGS_MAX && b->len == b->total))
			goto none;
		w->flags = VP_WIT_MORE;
		break;
	}
	if (!n)
		goto none;
	if (b->len != b->total)
		w->flags = VP_WIT_MORE;
	w->proto = VP_PROTO_REDIS;
	w->count = 1;
	strcpy(w->verb, push_kinds[kind].verb);
	w->qmsg = w->qmsgs[0];
	w->qkind = VP_WIT_Q_POP;
	w->flags |= VP_WIT_FANOUT;
	if (n == 1 && !(w->flags & VP_WIT_MORE)) {
		w->qmsgs[0] = 0;
		return true;
	}
	w->nqmsgs = (uint8_t)n;
	distinct_keys(m, mlen, n, w);
	return true;
none:
	memset(w, 0, sizeof(*w));
	return false;
}
