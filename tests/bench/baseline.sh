#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath's exact paths beside Project 5's statistical baselines (issue 14), on
# the same recordings of the vApp (tests/e2e, accuracy scenario):
#   - 1, 4, 16, 64 and 128 concurrent sessions;
#   - clock skew: the 16-session recording with one middle-tier host's
#     clock shifted after the fact (tests/tools/vpr_skew.py: its wall clock
#     moved and its boot id changed, so vpath must align it from messages);
#   - record loss: 64 sessions recorded with a small kernel ring
#     (--ringbuf-size), so the recorders lose records (bursty, as the
#     paper's sniffer with a finite queue; the rate is measured, not set).
# One row per run: completeness / accuracy of vpath's paths, of the nesting
# algorithm (both per request) and of the convolution algorithm (per causal
# step; tests/bench/baseline_score.py says how).  Needs root.  About 13
# minutes on a loaded 2-core machine, almost all of it the vApp runs;
# --quick: 1 and 16 sessions and the skews only.
#
#   tests/bench/baseline.sh [--quick] [--keep DIR]
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh

quick=0 keep=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--keep) keep=$2; shift ;;
	*) echo "baseline.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
if [ "$(id -u)" != 0 ]; then
	echo "ok - baseline comparison # SKIP needs root (network namespaces, BPF)"
	exit 0
fi
A=${OUTPUT:-.output}/vpath-analyze
work=$(mktemp -d /tmp/vpath-baseline.XXXXXX)
on_exit "rm -rf '$work'"

# The three analyses of one kept run, then its row.
score() { # dir label
	local d=$1
	"$A" paths --json "$d"/*.vpr >"$d/found.json" 2>/dev/null
	"$A" baseline --nesting --json "$d"/*.vpr >"$d/nesting.json" 2>/dev/null
	"$A" baseline --convolution --json "$d"/*.vpr >"$d/convolution.json" 2>/dev/null
	python3 tests/bench/baseline_score.py "$d" --label "$2"
}

record() { # name sessions requests [run.sh options]
	local name=$1 s=$2 n=$3
	shift 3
	tests/e2e/run.sh --sessions "$s" --requests "$n" --seed 14 --keep "$work/$name" "$@" \
		>"$work/$name.log" 2>&1
	[ $? -le 1 ] && [ -f "$work/$name/truth.jsonl" ] || {
		echo "# $name: the run failed:"; sed 's/^/#   /' "$work/$name.log" | tail -5; return 1; }
}

echo "baseline comparison: vApp (tests/e2e/scenarios/accuracy.conf), completeness / accuracy %"
python3 tests/bench/baseline_score.py --header
if [ $quick = 1 ]; then
	runs="1:200 16:400"
else
	runs="1:300 4:600 16:1200 64:1200 128:1200"
fi
for r in $runs; do
	s=${r%%:*} n=${r#*:}
	record "s$s" "$s" "$n" && score "$work/s$s" "$s sessions"
done
if [ -d "$work/s16" ]; then
	for skew in 100 1000 10000; do
		d=$work/skew$skew
		mkdir -p "$d"
		cp "$work"/s16/*.vpr "$work"/s16/truth.jsonl "$work"/s16/topology.json "$d"/
		python3 tests/tools/vpr_skew.py "$d/t2s2.vpr" "$skew"
		score "$d" "16 sessions, skew ${skew}us"
	done
fi
if [ $quick = 0 ]; then
	for ring in 16K 4K; do
		record "loss$ring" 64 1200 --record-arg --ringbuf-size --record-arg "$ring" &&
			score "$work/loss$ring" "64 sessions, ring $ring"
	done
fi
[ -z "$keep" ] || { mkdir -p "$keep" && cp -r "$work"/. "$keep"/; }
