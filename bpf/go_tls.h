/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP/2 inside Go's crypto/tls (docs/recorder.md, "TLS in Go programs"):
 * the same plaintext streams as libssl's (tls.h), from uprobes in a Go
 * binary followed for its goroutines (user/golang.c).  Go's register ABI
 * (ABIInternal, Go 1.17 and later): at a function's entry the receiver is
 * in RAX and a []byte argument's data and length in RBX and RCX; at its
 * return the first result (n int) is in RAX; R14 holds the running g
 * throughout.  Go moves goroutine stacks, so a uretprobe (which rewrites
 * the return address on the stack) is unsafe: the returns are uprobes on
 * each RET instruction of the function (user/x86_ret.c finds them).
 *
 * A goroutine can change threads inside a call that blocks, so a call's
 * state is kept by goroutine (go_tls_gs), not by thread.  The *tls.Conn is
 * tied to its socket as an SSL object is: the handshake's first send
 * belongs to the *tls.Conn its goroutine last entered handshakeContext
 * with (tls_take_last()).
 *
 * Included by vpath.bpf.c after tls.h.
 */
#ifndef VPATH_GO_TLS_H
#define VPATH_GO_TLS_H

/* Set by the recorder once some Go binary's crypto/tls is probed: the send path's one test. */
__u32 go_tls_active = 0;

#if defined(__TARGET_ARCH_x86)
/* The goroutine of a Go function's probe (R14 is its g); 0: not a followed Go process. */
static __always_inline bool go_tls_key_of(struct pt_regs *ctx, __u64 pid_tgid, struct go_tls_key *k)
{
	struct vpath_go_offsets *o = go_offsets(pid_tgid >> 32);

	if (!o)
		return false;
	k->tgid = pid_tgid >> 32;
	k->pad = 0;
	k->goid = go_goid(o, ctx->r14);
	return k->goid != 0;
}

static __always_inline int go_tls_enter(struct pt_regs *ctx, __u32 op)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct go_tls_key k;
	struct go_tls_g *g;

	if (!go_tls_key_of(ctx, pid_tgid, &k))
		return 0;
	g = bpf_map_lookup_elem(&go_tls_gs, &k);
	if (!g) {
		struct go_tls_g fresh = {};

		if (op == TLS_CALL_NONE)
			fresh.last_conn = ctx->ax;
		else {
			fresh.call_conn = ctx->ax;
			fresh.buf = ctx->bx;
			fresh.len = ctx->cx <= 0x7fffffff ? (__u32)ctx->cx : 0;
			fresh.op = op;
		}
		bpf_map_update_elem(&go_tls_gs, &k, &fresh, BPF_ANY);
		return 0;
	}
	if (op == TLS_CALL_NONE) {
		g->last_conn = ctx->ax;
		return 0;
	}
	g->call_conn = ctx->ax;
	g->buf = ctx->bx;
	g->len = ctx->cx <= 0x7fffffff ? (__u32)ctx->cx : 0;
	g->op = op;
	return 0;
}

/* (*Conn).handshakeContext(ctx): every handshake, and every Read and Write (they call it first). */
SEC("uprobe")
int go_tls_handshake(struct pt_regs *ctx)
{
	return go_tls_enter(ctx, TLS_CALL_NONE);
}

/* (*Conn).Write(b []byte) (int, error) */
SEC("uprobe")
int go_tls_write(struct pt_regs *ctx)
{
	return go_tls_enter(ctx, TLS_CALL_WRITE);
}

/* (*Conn).Read(b []byte) (int, error) */
SEC("uprobe")
int go_tls_read(struct pt_regs *ctx)
{
	return go_tls_enter(ctx, TLS_CALL_READ);
}

/* At a RET of Read or Write: n in RAX, the goroutine's call says which it was. */
SEC("uprobe")
int go_tls_return(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__s64 n = (__s64)ctx->ax;
	struct tls_key key = {};
	struct go_tls_key k;
	struct go_tls_g *g;
	struct tls_conn *c;
	__u32 op;

	if (!go_tls_key_of(ctx, pid_tgid, &k))
		return 0;
	g = bpf_map_lookup_elem(&go_tls_gs, &k);
	if (!g || !g->op)
		return 0;
	op = g->op;
	g->op = TLS_CALL_NONE;
	key.ssl = g->call_conn;
	key.tgid = k.tgid;
	c = bpf_map_lookup_elem(&tls_conns, &key);
	if (!c || n <= 0 || n > 0x7fffffff)
		return 0;
	/* The operation's goroutine, before it (the socket path does the same). */
	go_note_running(pid_tgid);
	tls_data(c, &key, pid_tgid, tls_call_dir(op), g->buf, (__u32)n);
	return 0;
}

/*
 * A socket send of a Go process: when its goroutine is inside a Write of
 * the *tls.Conn tied to that socket, the Write's plaintext is written now,
 * whole (its length at entry), and its RET does nothing.  Stamped at its
 * first record's send, as a plain TCP write is, not at the return: a
 * goroutine leaving a system call may wait for a P, and the peer may have
 * answered a request before its Write returns (seen: 20 ms late on two
 * busy cores, the reply read before the request was written).  A Write
 * sends all of its bytes or fails, and a *tls.Conn whose write failed is
 * broken for good (crypto/tls keeps the error), so counting all of them
 * here moves no position of a connection still used.  A global function:
 * verified once, the socket path does not grow by its paths.
 */
__noinline int go_tls_sent(__u64 pid_tgid, __u64 cookie)
{
	struct vpath_go_offsets *o = go_offsets(pid_tgid >> 32);
	struct go_tls_key k = {.tgid = pid_tgid >> 32};
	struct tls_key key = {.tgid = pid_tgid >> 32};
	struct go_tls_g *g;
	struct tls_conn *c;

	if (!o)
		return 0;
	k.goid = go_current(o);
	g = k.goid ? bpf_map_lookup_elem(&go_tls_gs, &k) : NULL;
	if (!g || g->op != TLS_CALL_WRITE || !g->len)
		return 0;
	key.ssl = g->call_conn;
	c = bpf_map_lookup_elem(&tls_conns, &key);
	if (!c || c->cookie != cookie)
		return 0;
	g->op = TLS_CALL_NONE;
	tls_data(c, &key, pid_tgid, VPR_DIR_SEND, g->buf, g->len);
	return 0;
}

/* (*Conn).Close: the connection is over (its address may come back for another). */
SEC("uprobe")
int go_tls_close(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct tls_key key = {.ssl = ctx->ax, .tgid = pid_tgid >> 32};

	if (!go_offsets(key.tgid))
		return 0;
	bpf_map_delete_elem(&tls_conns, &key);
	bpf_map_delete_elem(&tls_carries, &key);
	return 0;
}
#else
static __always_inline int go_tls_sent(__u64 pid_tgid, __u64 cookie)
{
	return 0;
}
#endif

#endif /* VPATH_GO_TLS_H */
