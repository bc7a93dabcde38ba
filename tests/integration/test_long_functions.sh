#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# No function of the programs (bpf/ user/ common/ analyzer/ include/) is
# longer than 100 lines (issue 24); tests/tools/long_functions.py names
# them.  The checker itself must find a 101-line function and pass a
# 100-line one.  Needs no root.
cd "$(dirname "$0")/../.."
source tests/lib.sh
d=$(scratch_dir)

# body N: a function of N lines, signature to closing brace, in the tree's style.
body() {
	echo "static int f$1(int x)"
	echo "{"
	for ((i = 0; i < $1 - 3; i++)); do echo "	x++;"; done
	echo "}"
}
{ body 100; echo; body 101; } >"$d/long.c"
out=$(python3 tests/tools/long_functions.py "$d/long.c")
check "the checker names the 101-line function and not the 100-line one" \
	test "$out" = "101 $d/long.c:102 f101"

out=$(python3 tests/tools/long_functions.py 2>&1)
check "no function over 100 lines${out:+: $(tr '\n' ';' <<<"$out")}" test -z "$out"
