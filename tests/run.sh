#!/usr/bin/env bash
# Runs every test and prints, last, "N passed, N failed, N skipped".
# Each test program speaks TAP: "ok - name", "not ok - name", "ok - name # SKIP why".
# Unit tests are cmocka binaries built with sanitizers (OUTPUT/asan); integration
# tests are tests/integration/*.sh.  A program that dies without reporting a
# failure counts as one failure.  Exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-.output}
export OUTPUT
ONLY=${1:-}
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() { # name, command...
	local name=$1 rc start=$SECONDS
	shift
	echo "# $name"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	# CI has 90 minutes: each test's share shows where they go.
	echo "# $name took $((SECONDS - start)) s"
	local p f s
	p=$(grep -cE '^ok ' "$log" | tr -d ' ')
	s=$(grep -cE '^ok .*# (SKIP|skip)' "$log" | tr -d ' ')
	f=$(grep -cE '^not ok ' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc without reporting a failure"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name reported no test"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

for t in "$OUTPUT"/asan/tests/test_*; do
	[ -x "$t" ] || continue
	case "$(basename "$t")" in *"$ONLY"*) ;; *) continue ;; esac
	CMOCKA_MESSAGE_OUTPUT=TAP ASAN_OPTIONS=detect_leaks=1 run_one "$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	case "$(basename "$t")" in *"$ONLY"*) ;; *) continue ;; esac
	run_one "$(basename "$t")" bash "$t"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
