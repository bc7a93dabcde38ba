#!/usr/bin/env bash
# The syscall-tracepoint fallback (for kernels without sock_*_length) records
# the same exchange exactly as the fast path does, and says so in the header
# and in every operation.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record fallback"
record_exchange_test "record fallback" 127.0.0.1 --fallback --force-fallback
