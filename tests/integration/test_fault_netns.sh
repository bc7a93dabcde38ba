#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fault: a recorded network namespace disappears while recording, with
# traffic in it.  The two vApp branches of tests/e2e/faults.sh, each host a
# namespace with its own recorder (--netns, as the harness records); xa's
# namespace goes the way a deleted container's does, mid-run: its processes
# are killed, its network link deleted and its name removed.  (Its recorder,
# inside it, keeps the empty namespace alive until it stops.)  Every
# recorder goes on, says nothing but its usual lines and exits 0; every
# request the client saw answered comes out right, before and after; those
# the fault cut come out incomplete (or one-way), never as complete paths.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/e2e/faults.sh

e2e_require "fault: a recorded network namespace disappears"
d=$(scratch_dir)
fault_start "$d" "fault netns" "the namespace goes" || exit 0
answered=$(wc -l <"$E2E_DIR/truth.jsonl")
ns=$(e2e_ns "${E2E_SERVER_HOST[xa]}")
ino=$(stat -L -c %i "/run/netns/$ns")
# The bridge-side end of xa's veth pair (harness: v<host index>).
for i in "${!E2E_HOSTS[@]}"; do
	[ "${E2E_HOSTS[$i]}" = "${E2E_SERVER_HOST[xa]}" ] && veth=v$i
done
for p in $(ip netns pids "$ns"); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = vpath-record ] || kill -KILL "$p"
done
ip -n "$E2E_BRIDGE" link del "$veth"
ip netns del "$ns"
gone() {
	! ip -n "$E2E_BRIDGE" link show "$veth" >/dev/null 2>&1 && [ ! -e "/run/netns/$ns" ] &&
		[ "$(ls -l /proc/[0-9]*/ns/net 2>/dev/null | grep -c "net:\[$ino\]")" -le 1 ]
}
check "fault netns: namespace $ino gone (no name, no link, nothing in it but its recorder)" gone
fault_finish "fault netns" "$answered"
