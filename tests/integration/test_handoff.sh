#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Hand-off front ends (tests/handoff, issue 10) whose gates the analyzer
# meets: Python's ThreadPoolExecutor, Java's CompletableFuture and Go's
# net/http with a shared http.Client.  Their calls, made by threads (Go:
# goroutines) that never reply, are followed through the recorder's
# scheduler wake-ups and the Go runtime's goroutine creations and wake-ups
# (basis wakeup, always inferred) or come out as unclaimed roots; no link
# marked exact may be wrong, and no request is marked exact that might miss
# a call.  Go must have 99% of its paths right; for Python and Java overall
# accuracy is printed (goal 99%, not met yet).
HANDOFF_APPS="python java go" exec bash "$(dirname "$0")/../handoff/test_handoff.sh"
