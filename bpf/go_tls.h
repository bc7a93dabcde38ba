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
#endif

#endif /* VPATH_GO_TLS_H */
