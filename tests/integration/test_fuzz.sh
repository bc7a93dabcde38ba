#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz/fuzz_*.c) build, and each runs a few
# seconds from its seed corpus without a crash, leak or sanitizer report
# (`make fuzz FUZZ_SECONDS=N` is the long run).  The runner itself is checked
# first: a target that crashes must be reported, with its reproducer.
cd "$(dirname "$0")/../.."
source tests/lib.sh
SECONDS_EACH=${FUZZ_TEST_SECONDS:-4}
CLANG=${FUZZ_CC:-clang}

d=$(scratch_dir)
if ! command -v "$CLANG" >/dev/null; then
	skip "fuzz" "no $CLANG (make deps installs clang)"
	exit 0
fi
echo 'int LLVMFuzzerTestOneInput(const unsigned char *p, unsigned long n) { return 0; }' >"$d/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address "$d/probe.c" -o "$d/probe" 2>"$d/probe.log"; then
	skip "fuzz" "$CLANG has no libFuzzer runtime (Debian: libclang-rt-14-dev, make deps)"
	exit 0
fi

# A target that crashes on every input: the runner must say FAIL and name a reproducer.
cat >"$d/fuzz_selftest.c" <<'C'
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const unsigned char *p, unsigned long n) { abort(); }
C
"$CLANG" -g -fsanitize=fuzzer,address "$d/fuzz_selftest.c" -o "$d/fuzz_selftest" 2>>"$d/probe.log"
out=$(OUTPUT=$d tests/fuzz/run.sh 2 "$d/fuzz_selftest" 2>&1)
rc=$?
repro=$(sed -n 's/^  reproducer: //p' <<<"$out")
check "fuzz: the runner fails on a crashing target (exit $rc)" test "$rc" -ne 0
check "fuzz: the runner names an existing reproducer (${repro:-none})" test -n "$repro" -a -f "$repro"

if ! make -s OUTPUT="$OUTPUT" fuzz-build >"$d/build.log" 2>&1; then
	not_ok "fuzz: make fuzz-build: $(grep -m1 -E 'error' "$d/build.log")"
	exit 1
fi
ok "fuzz: make fuzz-build"
for bin in "$OUTPUT"/fuzz/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	name=$(basename "$bin")
	check "fuzz: $name has a seed corpus" test -n "$(ls "tests/fuzz/corpus/$name" 2>/dev/null)"
	line=$(tests/fuzz/run.sh "$SECONDS_EACH" "$bin" 2>&1)
	if [ $? -eq 0 ]; then
		ok "fuzz: ${line#ok }"
	else
		not_ok "fuzz: $name: $(tr '\n' ' ' <<<"$line")"
	fi
done
