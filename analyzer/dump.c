// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "dump.h"
#include "endpoint.h"
#include "recfile.h"

_Static_assert(VPR_READ_OK == 0 && VPR_READ_TORN_TAIL == 1 && VPR_READ_CORRUPT == 2,
	       "vp_dump_status's damage");

static const char *tcp_state_name(unsigned s)
{
	static const char *const names[] = {
		"?",	     "ESTABLISHED", "SYN_SENT",	    "SYN_RECV",	  "FIN_WAIT1",
		"FIN_WAIT2", "TIME_WAIT",   "CLOSE",	    "CLOSE_WAIT", "LAST_ACK",
		"LISTEN",    "CLOSING",	    "NEW_SYN_RECV",
	};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static const char *role_name(unsigned r)
{
	return r == VPR_ROLE_CONNECTED	? "connected"
	       : r == VPR_ROLE_ACCEPTED ? "accepted"
					: "unknown";
}

static const char *task_kind_name(unsigned k)
{
	static const char *const names[] = {"fork", "exec", "exit", "snapshot", "rename"};
	return k < 5 ? names[k] : "?";
}

static const char *h2_type_name(unsigned t)
{
	static const char *const names[] = {
		"DATA",		"HEADERS", "PRIORITY", "RST_STREAM",	"SETTINGS",
		"PUSH_PROMISE", "PING",	   "GOAWAY",   "WINDOW_UPDATE", "CONTINUATION",
	};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : NULL;
}

static const char *h2_lost_name(unsigned why)
{
	static const char *const names[] = {
		"?", "gap", "unreadable", "too_many", "implausible", "no_state",
	};
	return why < sizeof(names) / sizeof(names[0]) ? names[why] : "?";
}

/* A frame header as RFC 9113 names it; an unknown (extension) type by number. */
static void dump_h2_frame(FILE *out, const struct vpr_h2_frame *f)
{
	const char *type = h2_type_name(f->type);

	fprintf(out, " cookie=%#" PRIx64 " %s seq=%u%s", (uint64_t)f->cookie,
		f->dir == VPR_DIR_SEND ? "send" : "recv", f->seq,
		f->kind & VPR_H2_IN_TLS ? " tls" : "");
	if ((f->kind & ~VPR_H2_IN_TLS) == VPR_H2_LOST) {
		fprintf(out, " lost why=%s", h2_lost_name(f->type));
		return;
	}
	if (type)
		fprintf(out, " type=%s", type);
	else
		fprintf(out, " type=%#x", f->type);
	fprintf(out, " flags=%#x stream=%u length=%u", f->flags, f->stream_id, f->length);
}

/*
 * A NUL-padded text field of n bytes as one word: what a recording holds is
 * not trusted to be printable, so a space, a quote, a backslash or a
 * control byte is written \xNN and the line stays one record.
 */
static void dump_word(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > 0x20 && c < 0x7f && c != '"' && c != '\\')
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}

static void endpoint_of(struct vp_endpoint *e, uint8_t family, const uint8_t *addr, uint16_t port)
{
	memset(e, 0, sizeof(*e));
	e->family = family;
	e->port = port;
	memcpy(e->addr, addr, 16);
}

static void dump_bytes(FILE *out, const uint8_t *d, unsigned len);

/*
 * A captured payload's bytes as C-escaped text: requests and replies stay
 * readable, and no byte can move the terminal or split the line.
 */
static void dump_payload(FILE *out, const struct vpr_payload *p)
{
	if (p->h.size < VPR_PAYLOAD_HDR_SIZE || p->len > VPR_PAYLOAD_MAX ||
	    VPR_PAYLOAD_SIZE(p->len) > p->h.size) {
		fprintf(out, " size=%u (damaged: its bytes run past the record, skipped)",
			p->h.size);
		return;
	}
	fprintf(out,
		" pid=%u cookie=%#" PRIx64 " %s bytes=%u seq_end=%u len=%u%s%s%s%s%s data=", p->pid,
		(uint64_t)p->cookie, p->dir == VPR_DIR_SEND ? "send" : "recv", p->bytes, p->seq_end,
		p->len, p->flags & VPR_PAYLOAD_REDACTED ? " redacted" : "",
		p->flags & VPR_PAYLOAD_H2_FRAME ? " h2_frame" : "",
		p->flags & VPR_PAYLOAD_H2_FIRST ? " h2_first" : "",
		p->flags & VPR_PAYLOAD_H2_BROKEN ? " h2_broken" : "",
		p->flags & VPR_PAYLOAD_H2_DATA ? " h2_data" : "");
	dump_bytes(out, p->data, p->len);
}

/* A payload's hashes (--capture-hash): there are no bytes to show. */
static void dump_payload_hash(FILE *out, const struct vpr_payload_hash *p)
{
	fprintf(out,
		" pid=%u cookie=%#" PRIx64 " %s bytes=%u seq_end=%u len=%u hash=%016" PRIx64
		" hash_8=%016" PRIx64 " hash_24=%016" PRIx64,
		p->pid, (uint64_t)p->cookie, p->dir == VPR_DIR_SEND ? "send" : "recv", p->bytes,
		p->seq_end, p->len, (uint64_t)p->hash, (uint64_t)p->hash_8, (uint64_t)p->hash_24);
}

/* A log write's first bytes, C-escaped like a payload's. */
static void dump_log(FILE *out, const struct vpr_log *l)
{
	static const char *const kinds[] = {"?", "file", "pipe", "unix"};

	if (l->h.size < VPR_LOG_HDR_SIZE || l->len > VPR_LOG_MAX ||
	    VPR_LOG_SIZE(l->len) > l->h.size) {
		fprintf(out, " size=%u (damaged: its bytes run past the record, skipped)",
			l->h.size);
		return;
	}
	fprintf(out, " pid=%u fd=%u ino=%" PRIu64 " %s bytes=%u len=%u%s data=", l->pid, l->fd,
		(uint64_t)l->ino, kinds[l->kind <= VPR_LOG_UNIX ? l->kind : 0], l->bytes, l->len,
		l->flags & VPR_LOG_REDACTED ? " redacted" : "");
	dump_bytes(out, l->data, l->len);
}

static void dump_bytes(FILE *out, const uint8_t *d, unsigned len)
{
	fputc('"', out);
	for (unsigned i = 0; i < len; i++) {
		unsigned char c = d[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
	fputc('"', out);
}

static void dump_conn(FILE *out, const struct vpr_conn *c)
{
	char a[VP_ADDRSTRLEN], b[VP_ADDRSTRLEN];
	struct vp_endpoint e;

	endpoint_of(&e, c->family, c->saddr, c->sport);
	vp_endpoint__format(&e, a, sizeof(a));
	endpoint_of(&e, c->family, c->daddr, c->dport);
	vp_endpoint__format(&e, b, sizeof(b));
	fprintf(out,
		" pid=%u cookie=%#" PRIx64 " %s -> %s netns=%u %s->%s origin=%s role=%s"
		" snd_seq=%u rcv_seq=%u",
		c->pid, (uint64_t)c->cookie, a, b, c->netns, tcp_state_name(c->oldstate),
		tcp_state_name(c->newstate),
		c->origin == VPR_CONN_PREEXISTING ? "preexisting" : "state", role_name(c->role),
		c->snd_seq, c->rcv_seq);
}

static void dump_task(FILE *out, const struct vpr_task *t)
{
	char comm[VPR_COMM_LEN + 1];

	memcpy(comm, t->comm, VPR_COMM_LEN);
	comm[VPR_COMM_LEN] = 0;
	fprintf(out, " pid=%u %s", t->pid, task_kind_name(t->kind));
	if (t->kind == VPR_TASK_FORK)
		fprintf(out, " parent_tid=%u", t->parent_tid);
	if (t->kind == VPR_TASK_EXIT && t->exit_signal)
		fprintf(out, " signal=%u", t->exit_signal);
	fprintf(out, " comm=\"%s\"", comm);
}

void vp_dump_record(FILE *out, const struct vpr_hdr *h)
{
	char a[VP_ADDRSTRLEN];

	fprintf(out, "%-7s ts=%" PRIu64 " tid=%u", vpr_type_name(h->type), (uint64_t)h->ts_ns,
		h->tid);
	switch (h->type) {
	case VPR_SOCK_OP:
	case VPR_TLS_OP: {
		/* The same layout (record.h); a TLS operation's range is in its plaintext. */
		const struct vpr_sock_op *op = (const void *)h;
		uint32_t start = op->seq_end - op->bytes;

		fprintf(out, " pid=%u cookie=%#" PRIx64 " %s bytes=%u range=[%u,%u)%s%s%s%s",
			op->pid, (uint64_t)op->cookie, op->dir == VPR_DIR_SEND ? "send" : "recv",
			op->bytes, start, op->seq_end,
			op->flags & VPR_OP_STREAM_START ? " stream_start" : "",
			op->flags & VPR_OP_TLS_HS ? " tls_hs" : "",
			op->flags & VPR_OP_H2_PREFACE ? " h2_preface" : "",
			op->flags & VPR_OP_FALLBACK ? " fallback" : "");
		break;
	}
	case VPR_CONN:
		dump_conn(out, (const struct vpr_conn *)h);
		break;
	case VPR_TASK:
		dump_task(out, (const struct vpr_task *)h);
		break;
	case VPR_CLOCK: {
		const struct vpr_clock *c = (const void *)h;

		fprintf(out, " realtime=%" PRIu64 ".%09" PRIu64,
			(uint64_t)c->realtime_ns / 1000000000,
			(uint64_t)c->realtime_ns % 1000000000);
		break;
	}
	case VPR_DROPS: {
		const struct vpr_drops *d = (const void *)h;

		fprintf(out, " cpu=%u lost=%" PRIu64, h->tid, (uint64_t)d->lost);
		break;
	}
	case VPR_ADDR: {
		const struct vpr_addr *ad = (const void *)h;

		fprintf(out, " netns=%u ifindex=%u %s/%u", ad->netns, ad->ifindex,
			vp_addr__format(ad->family, ad->addr, a, sizeof(a)), ad->prefixlen);
		break;
	}
	case VPR_GOROUTINE: {
		const struct vpr_goroutine *g = (const void *)h;
		static const char *const kinds[] = {"run", "new", "ready", "h2-write", "pending"};

		fprintf(out, " pid=%u %s goid=%" PRIu64, g->pid, g->kind < 5 ? kinds[g->kind] : "?",
			(uint64_t)g->goid);
		if (g->kind != VPR_GO_RUN && g->kind != VPR_GO_PENDING)
			fprintf(out, " other=%" PRIu64, (uint64_t)g->other);
		break;
	}
	case VPR_WAKEUP: {
		const struct vpr_wakeup *w = (const void *)h;

		fprintf(out, " pid=%u woke tid=%u pid=%u flags=%#x", w->pid, w->woken_tid,
			w->woken_pid, w->flags);
		break;
	}
	case VPR_PAYLOAD:
		dump_payload(out, (const struct vpr_payload *)h);
		break;
	case VPR_LOG:
		dump_log(out, (const struct vpr_log *)h);
		break;
	case VPR_PAYLOAD_HASH:
		dump_payload_hash(out, (const struct vpr_payload_hash *)h);
		break;
	case VPR_SEND_FAILED: {
		const struct vpr_send_failed *sf = (const void *)h;

		fprintf(out, " pid=%u cookie=%#" PRIx64 " err=%d", sf->pid, (uint64_t)sf->cookie,
			sf->err);
		break;
	}
	case VPR_H2_FRAME:
		dump_h2_frame(out, (const struct vpr_h2_frame *)h);
		break;
	case VPR_WRITER: {
		const struct vpr_writer_info *wi = (const void *)h;

		fputs(" version=", out);
		dump_word(out, wi->version, sizeof(wi->version));
		fputs(" program=", out);
		dump_word(out, wi->program, sizeof(wi->program));
		break;
	}
	default:
		fprintf(out, " size=%u (unknown type %u, skipped)", h->size, h->type);
	}
}

void vp_dump_header(FILE *out, const struct vpr_file_header *hd)
{
	fprintf(out,
		"header  version=%u host=\"%.*s\" machine_id=%.*s boot_id=%.*s kernel=\"%.*s\""
		" start_mono=%" PRIu64 " start_real=%" PRIu64 ".%09" PRIu64
		" netns=%u flags=%s%s%s%s%s%s",
		hd->version, VPR_HOSTNAME_LEN, hd->hostname, VPR_ID_LEN, hd->machine_id, VPR_ID_LEN,
		hd->boot_id, VPR_KERNEL_LEN, hd->kernel, (uint64_t)hd->start_mono_ns,
		(uint64_t)hd->start_real_ns / 1000000000, (uint64_t)hd->start_real_ns % 1000000000,
		hd->netns, hd->flags ? "" : "none",
		hd->flags & VPR_FILE_FALLBACK ? "fallback," : "",
		hd->flags & VPR_FILE_SEGMENT ? "segment," : "",
		hd->flags & VPR_FILE_PAYLOAD ? "payload," : "",
		hd->flags & VPR_FILE_LOGS ? "logs," : "",
		hd->flags & VPR_FILE_PAYLOAD_HASH ? "payload_hash," : "");
	if (hd->flags & VPR_FILE_SEGMENT)
		fprintf(out, " segment=%u", hd->segment);
	fputc('\n', out);
}

int vp_dump_status(FILE *out, FILE *errf, const char *path, unsigned damage, const char *why,
		   const char *intact)
{
	switch (damage) {
	case 0:
		fprintf(out, "status  ok\n");
		return 0;
	case 1:
		fprintf(out, "status  torn tail: %s\n", why);
		fprintf(errf, "warning: %s: %s; %s\n", path, why, intact);
		return 1;
	default:
		fprintf(out, "status  corrupt: %s\n", why);
		fprintf(errf, "error: %s: %s\n", path, why);
		return -EBADMSG;
	}
}

int vp_dump_file(const char *path, FILE *out, FILE *errf)
{
	uint64_t counts[VPR_TYPE_MAX + 1] = {0}, total = 0;
	const struct vpr_hdr *rec;
	struct vpr_reader *r;
	char err[256];
	int ret;

	r = vpr_reader__open(path, err, sizeof(err));
	if (!r) {
		fprintf(errf, "error: %s: %s\n", path, err);
		return -EINVAL;
	}
	vp_dump_header(out, vpr_reader__header(r));
	while (vpr_reader__next(r, &rec) == 1) {
		vp_dump_record(out, rec);
		fputc('\n', out);
		counts[rec->type < VPR_TYPE_MAX ? rec->type : VPR_TYPE_MAX]++;
		total++;
	}
	fprintf(out, "records %" PRIu64 " in %" PRIu64 " blocks:", total, vpr_reader__blocks(r));
	for (unsigned t = 1; t <= VPR_TYPE_MAX; t++)
		if (counts[t])
			fprintf(out, " %s=%" PRIu64,
				t == VPR_TYPE_MAX ? "unknown" : vpr_type_name((uint16_t)t),
				counts[t]);
	fputc('\n', out);
	ret = vp_dump_status(out, errf, path, vpr_reader__status(r), vpr_reader__error(r),
			     "the records before it are intact (a crash leaves this)");
	vpr_reader__close(r);
	return ret;
}
