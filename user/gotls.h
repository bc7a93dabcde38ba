/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Go's crypto/tls in a Go binary: where the uprobes of bpf/go_tls.h go
 * (docs/recorder.md, "TLS in Go programs").  golang.c attaches them to
 * each Go binary it follows.
 */
#ifndef VPATH_RECORD_GOTLS_H
#define VPATH_RECORD_GOTLS_H

#include <stdint.h>

/* RETs probed per function at most: Go's Read and Write have about eight. */
#define GO_TLS_MAX_RETS 32

enum go_tls_fn {
	GO_TLS_HANDSHAKE, /* (*Conn).handshakeContext: entry */
	GO_TLS_WRITE,	  /* (*Conn).Write: entry and RETs */
	GO_TLS_READ,	  /* (*Conn).Read: entry and RETs */
	GO_TLS_CLOSE,	  /* (*Conn).Close: entry */
	GO_TLS_NFN
};

struct go_tls_probes {
	uint64_t entry[GO_TLS_NFN]; /* file offsets of the functions */
	uint32_t nrets[GO_TLS_NFN]; /* RETs found: Write's and Read's */
	uint64_t rets[GO_TLS_NFN][GO_TLS_MAX_RETS];
};

/*
 * The probes of crypto/tls in the Go binary open at fd, of Go version
 * version ("go1.19.8", "" unknown): 1 found (*p filled), 0 the binary has
 * no crypto/tls, -1 it cannot be probed (*why says why: a Go before the
 * register ABI, a function whose code the RET finder cannot walk, ...).
 */
int go_tls__inspect(int fd, const char *version, struct go_tls_probes *p, const char **why);

/* The Go version uses the register ABI (go1.17 and later); "" or unparsable: no. */
int go_tls__register_abi(const char *version);

/* The program of bpf/go_tls.h for an entry of fn; the RETs' is "go_tls_return". */
const char *go_tls__entry_prog(enum go_tls_fn fn);

#endif
