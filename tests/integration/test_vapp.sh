#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vApp alone, without the recorder, on loopback (no root needed): the ground
# truth it writes is well-formed and consistent, the same seed gives the same
# paths, bad topologies are refused, and the comparison tool catches every
# kind of wrong path it is meant to catch.
cd "$(dirname "$0")/../.."
source tests/lib.sh
VAPP=${VAPP:-$OUTPUT/vapp}
COMPARE=tests/e2e/vpcompare.py
dir=$(scratch_dir)

if [ ! -x "$VAPP" ]; then
	not_ok "vapp is built ($VAPP missing: run make)"
	exit 1
fi
if ! command -v python3 >/dev/null; then
	skip "vapp ground truth" "needs python3 (scripts/install-deps.sh)"
	exit 0
fi

# The accuracy topology, moved to loopback on ports nobody else is likely to use.
base=$((20000 + RANDOM % 30000))
awk -v base="$base" '$1 == "server" { $4 = "127.0.0.1:" (base + n++) }
	$1 == "client" { $2 = "127.0.0.1" } { print }' \
	tests/e2e/scenarios/accuracy.conf >"$dir/lo.conf"
"$VAPP" topology --config "$dir/lo.conf" --json >"$dir/topology.json"

printf 'server a thread 127.0.0.1:1 nobody\nclient 127.0.0.1 a\n' >"$dir/bad.conf"
check "vapp refuses a topology that calls an unknown server" \
	eval "! '$VAPP' topology --config '$dir/bad.conf' 2>'$dir/bad.err' && [ \$(wc -l <'$dir/bad.err') -eq 1 ]"
printf 'server a sometimes 127.0.0.1:1\nclient 127.0.0.1 a\n' >"$dir/bad.conf"
check "vapp refuses an unknown threading model" \
	eval "! '$VAPP' topology --config '$dir/bad.conf' 2>/dev/null"

pids=()
stop_servers() {
	local p
	for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}
on_exit stop_servers
# Fresh servers, so the pooled connections' ordinals start at 0 again.
start_servers() {
	local kind name
	rm -f "$dir"/*.log
	while read -r kind name _; do
		[ "$kind" = server ] || continue
		setsid "$VAPP" server --config "$dir/lo.conf" --name "$name" 2>"$dir/$name.log" &
		pids+=($!)
	done < <("$VAPP" topology --config "$dir/lo.conf")
	for _ in $(seq 50); do
		[ "$(cat "$dir"/*.log | grep -c 'listening on')" -eq "${#pids[@]}" ] && return 0
		sleep 0.1
	done
	cat "$dir"/*.log | sed 's/^/# /'
	return 1
}
check "all vapp servers listen" start_servers

requests=2000
run_client() { # truth-file
	"$VAPP" client --config "$dir/lo.conf" --sessions 16 --requests $requests --seed 42 \
		--reconnect-every 50 --out "$1" >"$1.summary" 2>"$1.err"
}
check "vapp client completes $requests requests without errors" run_client "$dir/truth1.jsonl"
check "client summary counts every request" \
	grep -q "\"requests\":$requests,\"errors\":0" "$dir/truth1.jsonl.summary"
python3 $COMPARE check-truth --truth "$dir/truth1.jsonl" --topology "$dir/topology.json" \
	--requests $requests >"$dir/check1.out"
rc=$?
cat "$dir/check1.out"
check "truth well-formed: every call has its fields, ordinals 0..n-1 per connection" [ $rc -eq 0 ]
check "paths are not trivial (nested calls exist)" \
	grep -qE '"path":"[a-z0-9]+\([a-z0-9]+\(' "$dir/truth1.jsonl"
stop_servers
start_servers
run_client "$dir/truth2.jsonl"
python3 $COMPARE check-truth --truth "$dir/truth2.jsonl" --topology "$dir/topology.json" \
	--requests $requests --same-seed "$dir/truth1.jsonl" >"$dir/check2.out"
rc=$?
cat "$dir/check2.out"
check "the same seed gives the same paths whatever the scheduling" [ $rc -eq 0 ]
first=${pids[0]}
stop_servers
check "servers stopped" eval "! kill -0 $first 2>/dev/null"

# The comparison must pass a perfect analysis and fail each broken one.
python3 $COMPARE fake-found --truth "$dir/truth1.jsonl" --topology "$dir/topology.json" \
	>"$dir/perfect.json"
python3 $COMPARE compare --truth "$dir/truth1.jsonl" --found "$dir/perfect.json" \
	--topology "$dir/topology.json" >/dev/null
check "comparison accepts a perfect analysis" [ $? -eq 0 ]
for broken in orphan swap drop relink; do
	python3 $COMPARE fake-found --truth "$dir/truth1.jsonl" --topology "$dir/topology.json" \
		--break $broken >"$dir/$broken.json"
	python3 $COMPARE compare --truth "$dir/truth1.jsonl" --found "$dir/$broken.json" \
		--topology "$dir/topology.json" >/dev/null
	check "comparison fails an analysis with a $broken call" [ $? -eq 1 ]
done
