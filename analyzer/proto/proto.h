/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Protocol witnesses: what a call was, read from the first bytes of its
 * request and its reply (VPR_PAYLOAD, recorded with vpath-record --capture).
 * One small parser per protocol (http.c, pgsql.c, redis.c, mysql.c, amqp.c); this
 * dispatch sniffs the protocol from both sides together: a witness is given
 * only when exactly one protocol reads the request AND the reply as its
 * own.  Unknown, partial or ambiguous bytes give no witness, never a wrong
 * one: a witness is evidence of what the call was, not a guess.
 *
 * Every text in a witness is printable ASCII (other bytes become '?',
 * runs of white space one space), NUL-terminated and bounded.
 */
#ifndef VPATH_PROTO_H
#define VPATH_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vp_proto {
	VP_PROTO_NONE = 0,
	VP_PROTO_HTTP,
	VP_PROTO_PGSQL,
	VP_PROTO_REDIS,
	VP_PROTO_MYSQL,
	VP_PROTO_AMQP, /* AMQP 0-9-1 (RabbitMQ) */
	VP_PROTO_MAX,
};

#define VP_WIT_VERB_MAX 24  /* HTTP method, Redis command name */
#define VP_WIT_TEXT_MAX 256 /* HTTP path and query, SQL statement */
#define VP_WIT_ERR_MAX 64   /* the reply's error: code and the start of its message */

/* Witness flags. */
#define VP_WIT_CUT 0x01	  /* text is the start of a longer one (capture length, or the cap) */
#define VP_WIT_ERROR 0x02 /* the reply is an error (PostgreSQL, MySQL, Redis) */
/*
 * Bytes after the counted requests were not read whole: count is a minimum
 * (a push read: more messages than nqmsgs, unseen).
 */
#define VP_WIT_MORE 0x04
#define VP_WIT_GRPC 0x08 /* grpc_status holds the reply's grpc-status (HTTP/2, hpack.h) */
/*
 * A queue message every subscriber gets (Redis pub/sub, qkind PUSH or
 * POP): one publish may have several deliveries.
 */
#define VP_WIT_FANOUT 0x10

/* Messages one read may deliver together, and their distinctive fields kept (vp_witness). */
#define VP_WIT_QMSGS_MAX 4
#define VP_WIT_QKEYS_MAX 8
#define VP_WIT_QKEYS_UNKNOWN 0xff

enum vp_wit_qkind {
	VP_WIT_Q_NONE = 0,
	VP_WIT_Q_PUSH, /* the request puts one message on a queue */
	VP_WIT_Q_POP,  /* the reply delivers one message taken off a queue */
	VP_WIT_Q_WAIT, /* a consumer's request for deliveries whose reply delivered none (AMQP) */
};

struct vp_witness {
	uint8_t proto;	      /* enum vp_proto; VP_PROTO_NONE: no witness */
	uint8_t flags;	      /* VP_WIT_* */
	uint16_t status;      /* HTTP status code, 0 otherwise */
	uint16_t count;	      /* requests in the captured request bytes (pipelines), >= 1 */
	uint16_t grpc_status; /* with VP_WIT_GRPC: 0 OK, 1 CANCELLED .. 16 UNAUTHENTICATED */
	uint8_t qkind;	      /* enum vp_wit_qkind: a message put on or taken off a queue */
	/*
	 * That message: a hash of its queue's name and of all its bytes, read
	 * whole from the capture (a Redis list's LPUSH/RPUSH request, a
	 * BRPOP/BLPOP/BLMOVE reply; a stream's XADD, an XREADGROUP reply:
	 * redisq.c; AMQP's basic.publish, basic.deliver and basic.get-ok:
	 * exchange, routing key and body, amqp.c); the analyzer's queue hops
	 * (queues.h) match it.
	 */
	uint64_t qmsg;
	/* The message's own id where the broker gives one (a stream entry's), hashed; 0: none. */
	uint64_t qid;
	/*
	 * A read that delivered several messages at once (Redis pub/sub's
	 * pushes read together, redisq.c): nqmsgs > 1, qmsg is the first's,
	 * qmsgs[] each one's hash in the order read; qkeys[] the named fields
	 * (proto/fields.h) of each that no other message of the read holds,
	 * qkey_of[] whose.  nqkeys VP_WIT_QKEYS_UNKNOWN: more than fit, so none
	 * decides (a call could carry one not kept).  With VP_WIT_MORE, more
	 * messages came in the read than the capture holds (or than are kept):
	 * nqmsgs >= 1 are its first, and the unseen may hold the same fields.
	 * A PUBLISH (qkind PUSH, nqmsgs 0) keeps its message's fields there,
	 * qkey_of[] 0: those of a message such a read left unseen.
	 */
	uint8_t nqmsgs, nqkeys;
	uint8_t qkey_of[VP_WIT_QKEYS_MAX];
	uint64_t qmsgs[VP_WIT_QMSGS_MAX];
	uint64_t qkeys[VP_WIT_QKEYS_MAX];
	char verb[VP_WIT_VERB_MAX];
	char text[VP_WIT_TEXT_MAX];
	char err[VP_WIT_ERR_MAX];
};

/* The first len bytes of an operation that carried total bytes. */
struct vp_bytes {
	const uint8_t *p;
	size_t len;
	uint64_t total;
};

/*
 * One protocol's two readers.  request: 1 when the bytes are a request of
 * this protocol (fills verb, text, count, flags), 0 when not or when the
 * bytes do not decide it.  reply: 1 when the bytes are a reply of this
 * protocol (fills status, err, flags).  Both must say 1 for a witness.
 */
struct vp_proto_ops {
	const char *name; /* "http", "postgresql", "redis", "mysql" (OpenTelemetry db.system) */
	int (*request)(const struct vp_bytes *b, struct vp_witness *w);
	int (*reply)(const struct vp_bytes *b, struct vp_witness *w);
	/*
	 * Pipelines: the length of the first request in b when the bytes say
	 * it exactly (0: they do not); a message that holds several requests
	 * is cut there.  NULL for protocols whose messages are not split.
	 */
	size_t (*request_len)(const struct vp_bytes *b);
	/* The same for one reply. */
	size_t (*reply_len)(const struct vp_bytes *b);
};

extern const struct vp_proto_ops vp_proto_http, vp_proto_pgsql, vp_proto_redis, vp_proto_mysql,
	vp_proto_amqp;

/* The ops of a protocol, NULL for VP_PROTO_NONE or an unknown value. */
const struct vp_proto_ops *vp_proto_ops_of(uint8_t proto);
static inline const char *vp_proto_name(uint8_t proto)
{
	const struct vp_proto_ops *o = vp_proto_ops_of(proto);

	return o ? o->name : "";
}

/*
 * The witness of one exchange from its request's and reply's first bytes:
 * true and *w filled when exactly one protocol reads both; false and *w
 * zeroed otherwise.
 */
bool vp_proto_witness(const struct vp_bytes *req, const struct vp_bytes *rep, struct vp_witness *w);
/* Only one protocol's readers (the fuzz targets use this). */
bool vp_proto_witness_as(uint8_t proto, const struct vp_bytes *req, const struct vp_bytes *rep,
			 struct vp_witness *w);

/*
 * A call that waits on a queue for a message (BRPOP, BLMOVE, XREADGROUP,
 * ...), whether or not its reply delivered one: a consumer's wait.
 */
bool vp_witness_waits(const struct vp_witness *w);
/* A call after whose reply the server sends unasked (Redis SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE). */
bool vp_witness_subscribes(const struct vp_witness *w);
/*
 * One that may end that (UNSUBSCRIBE, PUNSUBSCRIBE, SUNSUBSCRIBE, RESET):
 * a reply in several reads after it must not be taken for pushes.
 */
bool vp_witness_unsubscribes(const struct vp_witness *w);
/*
 * A message the server sent unasked on a subscribed connection, with no
 * request (Redis pub/sub's `message`, `pmessage`, `smessage` push): true
 * and *w a delivery (qkind POP, VP_WIT_FANOUT) when b holds whole pushes
 * and nothing else, at most VP_WIT_QMSGS_MAX (with several, nqmsgs, qmsgs
 * and the fields that tell them apart, qkeys); false and *w zeroed
 * otherwise.
 */
bool vp_witness_push(const struct vp_bytes *b, struct vp_witness *w);

/* "GET /cart 200", "SELECT * FROM t WHERE id = 5", "GET (3 commands)": cut to len. */
char *vp_witness_label(const struct vp_witness *w, size_t max_text, char *buf, size_t len);
/*
 * What patterns group by: "GET /cart" (path without the query, segments of
 * digits as '?'), SQL with numbers and quoted strings as '?', the Redis
 * command.  Empty when there is no witness.
 */
char *vp_witness_pattern_key(const struct vp_witness *w, char *buf, size_t len);

/* Helpers of the parsers (proto.c). */
/* Copy n bytes as printable text into dst (cap bytes with the NUL); true when all fit. */
bool vp_proto_text(char *dst, size_t cap, const uint8_t *src, size_t n);
static inline uint32_t vp_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
