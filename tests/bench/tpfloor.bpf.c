// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor under the recorder's cost on the echo worst case: a program
 * that does nothing, on each of the two tracepoints the recorder's socket
 * programs use.  What echobench loses to these is the kernel's price for
 * running any program there (the tracepoint's dispatch, and the time
 * kernel.bpf_stats_enabled adds when on), which no change to vpath's
 * programs can win back (tests/bench/recorder.sh, FLOOR_PAIRS).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sock_send_length")
int BPF_PROG(floor_send, struct sock *sk, int ret, int flags)
{
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(floor_recv, struct sock *sk, int ret, int flags)
{
	return 0;
}
