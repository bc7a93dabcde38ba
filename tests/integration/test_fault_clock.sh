#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fault: the wall clock jumps while recording.  The machine's clock is not
# touched (other tests run on it): the recorders run under an LD_PRELOAD shim
# (tests/shim/realtime_step.c) that steps CLOCK_REALTIME for them alone, the
# only clock they read the wall time from.  xa's recorder starts with its
# wall clock an hour ahead; mid-run, client's wall clock steps 5 minutes
# forward, fa's 3 minutes back, xa's back to the right time, and xb's
# forward and back again.  The analyzer must keep every host's times on
# its monotonic clock: all paths right, a one-line warning for exactly the
# hosts whose clock stepped; and with every recording made to look like its
# own machine (boot_id rewritten), the hosts are still aligned by their
# messages to within a second, and xa's calls, read an hour late on the wall
# clocks' timeline, are neither given up nor given out twice.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/e2e/faults.sh

SHIM=$OUTPUT/tests/realtime_step.so
why=$(e2e_unavailable)
[ -n "$why" ] || [ -r "$SHIM" ] || why="not built: $SHIM (make tests-build)"
if [ -n "$why" ]; then
	skip "fault: the wall clock jumps while recording" "$why"
	exit 0
fi
d=$(scratch_dir)
# Each recorder's step file is named after its --host.
cat >"$d/record.sh" <<EOS
#!/bin/sh
host=; prev=
for a in "\$@"; do [ "\$prev" = --host ] && host=\$a; prev=\$a; done
VPATH_REALTIME_STEP_FILE=$d/step.\$host LD_PRELOAD=$(realpath "$SHIM") exec $(realpath "$VPATH_RECORD") "\$@"
EOS
chmod +x "$d/record.sh"
echo 3600 >"$d/step.xa"
fault_start "$d" "fault clock" "the steps" "$d/record.sh" || exit 0
echo 300 >"$d/step.client"
echo -180 >"$d/step.fa"
echo 0 >"$d/step.xa"
echo 300 >"$d/step.xb"
sleep 2.5 # a clock record (one a second) sees xb's step before it is undone
rm "$d/step.xb"
check "fault clock: the client ran without errors" fault_client_wait
check "fault clock: no client errors" test ! -s "$E2E_DIR/client.log"
e2e_servers_stop
check "fault clock: every recorder exits 0" e2e_recorders_stop
e2e_analyze
check "fault clock: vpath-analyze exits 0" test $? -eq 0
# Accuracy alone would not see a call given out twice (in its tree and as a root).
compare_clean() { # label
	e2e_compare --tap --label "$1" | tee "$d/compare.txt"
	check "$1 no call also found as a root, no request incomplete" \
		sh -c "grep -q 'inner calls .* 0 orphaned, 0 mis-linked, 0 missing' '$d/compare.txt' &&
			grep -qE 'requests marked incomplete +0\$' '$d/compare.txt'"
}
compare_clean "fault clock:"
warned() { # host [count]
	grep -qE "^warning: $1(#[0-9]+)?: its wall clock was stepped ${2:-1} time" "$E2E_DIR/analyze.log"
}
for h in client fa xa; do
	check "fault clock: $h's step is reported" warned "$h"
done
check "fault clock: xb's two steps are reported" warned xb 2
check "fault clock: no other warning ($(grep -c . "$E2E_DIR/analyze.log") lines)" \
	test "$(grep -c . "$E2E_DIR/analyze.log")" -eq 4

# Every recording its own machine: offsets from messages, not wall clocks.
python3 - "$E2E_DIR"/*.vpr <<'EOP'
import sys, zlib
for n, path in enumerate(sys.argv[1:]):
    with open(path, "r+b") as f:
        h = bytearray(f.read(256))
        h[152:192] = ("machine-%032d" % n).encode().ljust(40, b"\0")
        h[44:48] = b"\0\0\0\0"
        h[44:48] = zlib.crc32(bytes(h)).to_bytes(4, "little")
        f.seek(0)
        f.write(h)
EOP
"$VPATH_ANALYZE" paths --json -v "$E2E_DIR"/*.vpr >"$E2E_DIR/found.json" 2>"$E2E_DIR/analyze.log"
check "fault clock: vpath-analyze exits 0 (one machine per host)" test $? -eq 0
compare_clean "fault clock, one machine per host:"
aligned=$(grep -cE '^host [0-9]+ .*offset -?[0-9]{1,9} ns \((from messages|the common timeline)' "$E2E_DIR/analyze.log")
check "fault clock: every host aligned by messages within 1 s ($aligned of ${#E2E_HOSTS[@]})" \
	test "$aligned" -eq "${#E2E_HOSTS[@]}"
grep '^host ' "$E2E_DIR/analyze.log" | sed 's/^/# /'
