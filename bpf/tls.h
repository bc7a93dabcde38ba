/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP/2 inside TLS: the plaintext of OpenSSL's libssl (docs/recorder.md,
 * "TLS").  Uprobes on SSL_read, SSL_read_ex, SSL_write and SSL_write_ex
 * (entry: the SSL object and the caller's buffer; return: how many bytes)
 * give each connection's plaintext as two streams, the same bytes at both
 * ends whatever the TLS records and TCP segments were.  On those streams
 * the frame walk of bpf/h2_frames.h runs as it does on plain TCP, and its
 * records (VPR_H2_FRAME with VPR_H2_IN_TLS) follow a VPR_TLS_OP that says
 * which call carried them.
 *
 * Which TCP connection an SSL object speaks on is not in libssl's calls
 * (Node.js gives libssl memory buffers, not the socket).  It is learnt once,
 * at the handshake: a socket send that begins its stream with a TLS
 * handshake record (a ClientHello, a ServerHello: VPR_OP_TLS_HS) belongs to
 * the SSL object that the sending thread last entered libssl with (its
 * SSL_do_handshake, SSL_connect, SSL_accept, or an SSL_read/SSL_write that
 * drove the handshake): libssl sends it from inside that call, or the
 * program sends what the call left in its buffer right after.  Positions
 * count from there: the plaintext begins after the handshake, so the
 * tie is made before the first plaintext byte, and an object seen first
 * after its handshake (the recorder started later) is never tied, never
 * followed.  A tie is never moved once plaintext went through it.
 *
 * Everything below runs only in processes whose libssl (or an executable
 * with OpenSSL built in and exported, as Node.js's) the recorder probed
 * (user/tlsprobe.c); tls_active gates the one test on the socket path.
 *
 * Included by vpath.bpf.c after h2_frames.h.
 */
#ifndef VPATH_TLS_H
#define VPATH_TLS_H

/* Set by the recorder once some libssl is probed. */
__u32 tls_active = 0;

enum tls_call_op {
	TLS_CALL_NONE = 0,
	TLS_CALL_READ = 1,
	TLS_CALL_WRITE = 2,
};

/* A thread's libssl calls. */
struct tls_thread {
	__u64 last_ssl; /* the SSL object it last entered libssl with, until a handshake send takes it */
	__u64 call_ssl; /* the SSL_read/SSL_write in progress: its object */
	__u64 buf;	/* its buffer */
	__u64 lenp;	/* the _ex forms: where the count goes (0: the return value is it) */
	__u32 op;	/* enum tls_call_op, NONE when no call is in progress */
	__u32 nested; /* calls entered inside it (libssl calling itself): their returns are not its */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct tls_thread);
} tls_threads SEC(".maps");

/*
 * Go's crypto/tls (go_tls.h): a goroutine's calls, by process and
 * goroutine id (a goroutine changes threads inside a call that blocks).
 */
struct go_tls_key {
	__u64 goid;
	__u32 tgid;
	__u32 pad;
};

struct go_tls_g {
	__u64 last_conn; /* the *tls.Conn it last began a handshake with, until a handshake send takes it */
	__u64 call_conn; /* the Read or Write in progress: its *tls.Conn */
	__u64 buf;	 /* its []byte's data */
	__u32 op;	 /* enum tls_call_op, NONE when no call is in progress */
	__u32 len; /* its []byte's length (a Write's, sent whole: go_tls_sent()); 0 too long */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct go_tls_key);
	__type(value, struct go_tls_g);
} go_tls_gs SEC(".maps");

/* An SSL object of a process: its address there. */
struct tls_key {
	__u64 ssl;
	__u32 tgid;
	__u32 pad;
};

/* A tied SSL object: its connection and where its plaintext is. */
struct tls_conn {
	__u64 cookie;
	__u32 base[2]; /* by enum vpr_dir: the first TCP sequence number of that direction */
	__u32 pos[2];  /* plaintext bytes so far */
	__u32 lost;    /* a call's bytes went uncounted: positions unknown from here */
	__u32 capture; /* its header blocks are captured (--capture, on its TCP socket at the tie) */
	struct h2_sock h2; /* the frame walks (h2_frames.h); modes H2_OFF until HTTP/2 shows */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct tls_key);
	__type(value, struct tls_conn);
} tls_conns SEC(".maps");

/*
 * A tied object's header blocks carried across its calls (--capture;
 * h2_frames.h's struct h2_carry, as sockets keep theirs in h2_carries): made
 * at its first carry, gone with its tie.  Apart from tls_conns so that an
 * object that never carries, and every one without --capture, pays nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct tls_key);
	__type(value, struct h2_carry);
} tls_carries SEC(".maps");

static __always_inline __u8 tls_call_dir(__u32 op)
{
	return op == TLS_CALL_WRITE ? VPR_DIR_SEND : VPR_DIR_RECV;
}

static __always_inline bool tls_followed(const struct tls_conn *c)
{
	return c->h2.d[0].mode != H2_OFF || c->h2.d[1].mode != H2_OFF;
}

/* The walks still on end with a VPR_H2_LOST each: the analyzer stops trusting them. */
static __always_inline void tls_lose(struct tls_conn *c, __u64 pid_tgid, __u32 why)
{
	struct h2_walk w = {};
	struct flight f;

	c->lost = 1;
	flight_begin(&f);
	w.cookie = c->cookie;
	w.ts = f.ts;
	w.tid = (__u32)pid_tgid;
	w.space = VPR_H2_IN_TLS;
	for (int i = 0; i < 2; i++) {
		w.dir = i;
		if (c->h2.d[i].mode == H2_TRACK)
			h2_emit(&w, &c->h2.d[i], NULL, VPR_H2_LOST, why);
		c->h2.d[i].mode = H2_OFF;
	}
	flight_end(&f);
}

/*
 * The object whose handshake the current thread sends: libssl's, the
 * thread's last; Go's, its goroutine's last *tls.Conn (go_tls.h).  Taken:
 * one handshake ties one connection.  0: none.
 */
static __always_inline __u64 tls_take_last(__u64 pid_tgid)
{
	__u32 tid = (__u32)pid_tgid;
	struct tls_thread *t = bpf_map_lookup_elem(&tls_threads, &tid);
	struct go_tls_key gk = {.tgid = pid_tgid >> 32};
	struct vpath_go_offsets *o;
	struct go_tls_g *g;
	__u64 obj;

	if (t && t->last_ssl) {
		obj = t->last_ssl;
		t->last_ssl = 0;
		return obj;
	}
	o = go_offsets(gk.tgid);
	if (!o)
		return 0;
	gk.goid = go_current(o);
	g = gk.goid ? bpf_map_lookup_elem(&go_tls_gs, &gk) : NULL;
	if (!g || !g->last_conn)
		return 0;
	obj = g->last_conn;
	g->last_conn = 0;
	return obj;
}

/*
 * A send that begins its connection's stream with a TLS handshake record
 * (record_op()): the thread's last SSL object (or the goroutine's last Go
 * *tls.Conn) is tied to it.  send_first
 * and recv_first are the first sequence numbers of the connection's two
 * directions; capture: the socket's bytes are captured (--capture), and so
 * are the header blocks of its plaintext.  A global function: verified
 * once, on its own, so that the socket path's programs do not grow by its
 * paths.
 */
__noinline int tls_bind(__u64 pid_tgid, __u64 cookie, __u32 send_first, __u32 recv_first,
			__u32 capture)
{
	struct tls_conn fresh = {}, *c;
	struct tls_key key = {};

	key.ssl = tls_take_last(pid_tgid);
	if (!key.ssl)
		return 0;
	key.tgid = pid_tgid >> 32;
	c = bpf_map_lookup_elem(&tls_conns, &key);
	/*
	 * Plaintext went through it already: it speaks on another connection,
	 * and this send is some other object's (one the probes never saw).
	 */
	if (c && (c->pos[0] || c->pos[1]))
		return 0;
	fresh.cookie = cookie;
	fresh.base[VPR_DIR_SEND] = send_first;
	fresh.base[VPR_DIR_RECV] = recv_first;
	fresh.capture = capture;
	/* Blocks an earlier connection of the same address carried are not this one's. */
	bpf_map_delete_elem(&tls_carries, &key);
	/* A full table: this connection is not followed (its bytes still are). */
	bpf_map_update_elem(&tls_conns, &key, &fresh, BPF_ANY);
	return 0;
}

/* ---- entry probes ---- */

static __always_inline int tls_enter(__u64 ssl, __u64 buf, __u64 lenp, __u32 op)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct tls_thread *t = bpf_map_lookup_elem(&tls_threads, &tid);

	if (!t) {
		struct tls_thread fresh = {.last_ssl = ssl};

		if (op) {
			fresh.call_ssl = ssl;
			fresh.buf = buf;
			fresh.lenp = lenp;
			fresh.op = op;
		}
		if (bpf_map_update_elem(&tls_threads, &tid, &fresh, BPF_NOEXIST) && op) {
			/* The call's bytes will go uncounted: its connection's positions are lost. */
			struct tls_key key = {.ssl = ssl, .tgid = bpf_get_current_pid_tgid() >> 32};
			struct tls_conn *c = bpf_map_lookup_elem(&tls_conns, &key);

			if (c && !c->lost)
				tls_lose(c, bpf_get_current_pid_tgid(), VPR_H2_LOST_NO_STATE);
		}
		return 0;
	}
	/* Inside a read or write of its own (the handshake it drives, or libssl calling itself). */
	if (t->op) {
		if (op)
			t->nested++;
		return 0;
	}
	t->last_ssl = ssl;
	if (!op)
		return 0;
	t->call_ssl = ssl;
	t->buf = buf;
	t->lenp = lenp;
	t->op = op;
	t->nested = 0;
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(tls_write_entry, void *ssl, const void *buf, int num)
{
	return tls_enter((__u64)ssl, (__u64)buf, 0, TLS_CALL_WRITE);
}

SEC("uprobe")
int BPF_KPROBE(tls_write_ex_entry, void *ssl, const void *buf, __u64 num, __u64 *written)
{
	return tls_enter((__u64)ssl, (__u64)buf, (__u64)written, TLS_CALL_WRITE);
}

SEC("uprobe")
int BPF_KPROBE(tls_read_entry, void *ssl, void *buf, int num)
{
	return tls_enter((__u64)ssl, (__u64)buf, 0, TLS_CALL_READ);
}

SEC("uprobe")
int BPF_KPROBE(tls_read_ex_entry, void *ssl, void *buf, __u64 num, __u64 *readbytes)
{
	return tls_enter((__u64)ssl, (__u64)buf, (__u64)readbytes, TLS_CALL_READ);
}

/* SSL_do_handshake, SSL_connect, SSL_accept: the object whose handshake the thread sends next. */
SEC("uprobe")
int BPF_KPROBE(tls_handshake_entry, void *ssl)
{
	return tls_enter((__u64)ssl, 0, 0, TLS_CALL_NONE);
}

/* SSL_free: the object's connection is over (its address may come back for another). */
SEC("uprobe")
int BPF_KPROBE(tls_forget, void *ssl)
{
	struct tls_key key = {.ssl = (__u64)ssl, .tgid = bpf_get_current_pid_tgid() >> 32};

	bpf_map_delete_elem(&tls_conns, &key);
	bpf_map_delete_elem(&tls_carries, &key);
	return 0;
}

/*
 * SSL_clear: the object is made ready for another connection.  Before a
 * tie (libssl may clear an object as its first handshake begins) that is
 * nothing; on a connection followed, its frames end there, and say so.
 */
SEC("uprobe")
int BPF_KPROBE(tls_clear, void *ssl)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct tls_key key = {.ssl = (__u64)ssl, .tgid = pid_tgid >> 32};
	struct tls_conn *c = bpf_map_lookup_elem(&tls_conns, &key);

	if (c && !c->lost && tls_followed(c))
		tls_lose(c, pid_tgid, VPR_H2_LOST_GAP);
	bpf_map_delete_elem(&tls_conns, &key);
	bpf_map_delete_elem(&tls_carries, &key);
	return 0;
}

/* ---- the plaintext ---- */

/*
 * HTTP/2 found at the start of the plaintext of direction dir (bpf/h2.h's
 * rules, as h2_begin() has them for plain TCP): the client preface, or a
 * server's SETTINGS on trust while the other direction has said nothing.
 */
static __always_inline void tls_h2_begin(struct tls_conn *c, __u8 dir, __u32 start, bool preface)
{
	__u8 other = (dir & 1) ^ 1;

	if (tls_followed(c) || (!preface && c->pos[other]))
		return;
	h2_begin_walks(&c->h2.d[dir & 1], &c->h2.d[other], preface, start, c->base[other]);
	c->h2.confirmed = preface;
	c->h2.trusted = dir;
}

/*
 * The first bytes of a plaintext stream, as many of 24 (the preface), 16
 * (its request line) or 9 (a SETTINGS header) as it has: fixed sizes, which
 * the verifier takes without a bound to prove.  How many were read, or 0.
 */
static __always_inline __u32 tls_head(__u64 buf, __u32 bytes, __u8 *head)
{
	__u32 n = bytes >= H2_PREFACE_LEN     ? H2_PREFACE_LEN
		  : bytes >= H2_PREFACE_MIN   ? H2_PREFACE_MIN
		  : bytes >= H2_FRAME_HDR_LEN ? H2_FRAME_HDR_LEN
					      : 0;

	if (n == H2_PREFACE_LEN)
		return bpf_probe_read_user(head, H2_PREFACE_LEN, (const void *)buf) ? 0 : n;
	if (n == H2_PREFACE_MIN)
		return bpf_probe_read_user(head, H2_PREFACE_MIN, (const void *)buf) ? 0 : n;
	if (n == H2_FRAME_HDR_LEN)
		return bpf_probe_read_user(head, H2_FRAME_HDR_LEN, (const void *)buf) ? 0 : n;
	return 0;
}

/* A call of c's object (key) moved bytes of plaintext at buf in direction dir. */
static __always_inline void tls_data(struct tls_conn *c, const struct tls_key *key, __u64 pid_tgid,
				     __u8 dir, __u64 buf, __u32 bytes)
{
	struct h2_owner owner = {.carries = &tls_carries, .key = key};
	__u8 head[H2_PREFACE_LEN] __attribute__((aligned(8))) = {};
	__u32 start, n = 0;
	struct vpr_tls_op *r;
	struct flight f;
	bool at_start, preface = false;
	__u8 flags = 0;

	dir &= 1;
	start = c->base[dir] + c->pos[dir];
	at_start = c->pos[dir] == 0;
	c->pos[dir] += bytes;
	if (c->lost)
		return;
	if (at_start) {
		flags = VPR_OP_STREAM_START;
		n = tls_head(buf, bytes, head);
		preface = h2_preface_match(head, n);
		if (preface)
			flags |= VPR_OP_H2_PREFACE;
		if (preface || h2_server_settings(head, n))
			tls_h2_begin(c, dir, start, preface);
	}
	if (!tls_followed(c))
		return;
	/* A walk begun on trust: the other direction's first call decides it (h2_op()). */
	if (!c->h2.confirmed) {
		int v = h2_trust_decide(c->h2.trusted, dir, at_start, preface);

		if (v == H2_TRUST_DROPPED) {
			c->h2.d[0].mode = c->h2.d[1].mode = H2_OFF;
			return;
		}
		c->h2.confirmed = v == H2_TRUST_CONFIRMED;
	}
	flight_begin(&f);
	r = ring_reserve(sizeof(*r));
	if (r) {
		fill_hdr(&r->h, VPR_TLS_OP, sizeof(*r), (__u32)pid_tgid, f.ts);
		r->cookie = c->cookie;
		r->pid = pid_tgid >> 32;
		r->bytes = bytes;
		r->seq_end = start + bytes;
		r->dir = dir;
		r->flags = flags;
		r->pad = 0;
		ring_submit(r);
	}
	/*
	 * Its frames, stamped like it, after it in the ring, and with --capture
	 * their header blocks, redacted as the socket path's are (the
	 * recorder's HPACK rules see the same records).  capture_len is a
	 * .rodata constant: with capture off the blocks' code is dropped.
	 */
	h2_walk_op(&c->h2, &owner, dir, pid_tgid, c->cookie, f.ts, start, start + bytes,
		   USER_DATA_BUF, buf, capture_len && c->capture, VPR_H2_IN_TLS);
	flight_end(&f);
}

static __always_inline int tls_return(int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct tls_thread *t = bpf_map_lookup_elem(&tls_threads, &tid);
	struct tls_key key = {};
	struct tls_conn *c;
	__u64 bytes = 0;
	__u32 op;

	if (!t || !t->op)
		return 0;
	if (t->nested) {
		t->nested--;
		return 0;
	}
	op = t->op;
	t->op = TLS_CALL_NONE;
	key.ssl = t->call_ssl;
	key.tgid = pid_tgid >> 32;
	c = bpf_map_lookup_elem(&tls_conns, &key);
	if (!c)
		return 0;
	if (t->lenp) {
		/* SSL_read_ex, SSL_write_ex: 1 and the count, or 0. */
		if (ret != 1 || bpf_probe_read_user(&bytes, sizeof(bytes), (const void *)t->lenp)) {
			if (ret == 1 && !c->lost)
				tls_lose(c, pid_tgid, VPR_H2_LOST_UNREADABLE);
			return 0;
		}
	} else if (ret > 0) {
		bytes = ret;
	}
	if (!bytes || bytes > 0x7fffffff)
		return 0;
	tls_data(c, &key, pid_tgid, tls_call_dir(op), t->buf, (__u32)bytes);
	return 0;
}

/* The return of any of the four: the thread's call says which it was. */
SEC("uretprobe")
int BPF_KRETPROBE(tls_return_probe, int ret)
{
	return tls_return(ret);
}

/* A thread's calls go with it. */
static __always_inline void tls_forget_thread(__u32 tid)
{
	if (tls_active)
		bpf_map_delete_elem(&tls_threads, &tid);
}

#endif /* VPATH_TLS_H */
