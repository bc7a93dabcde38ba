#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The tests' own habit: `check NAME A && B` checks only A (B runs after the
# check and a false B prints nothing), so no test line may join conditions
# after a check; the checker itself must catch one.
cd "$(dirname "$0")/../.."
source tests/lib.sh
d=$(scratch_dir)
out=$(find tests -name "*.sh" -print0 | xargs -0 python3 tests/tools/check_lint.py 2>&1)
check "no test line joins conditions after a check${out:+: $out}" test -z "$out"
printf '%s\n' 'check "x" [ 1 -eq 1 ] && [ -s file ]' 'check "y" test -s "a && b"' >"$d/bad.sh"
python3 tests/tools/check_lint.py "$d/bad.sh" >"$d/found"
check "the lint finds a check joined with && and passes one with && inside quotes" \
	test "$(wc -l <"$d/found")" = 1
