#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The C code holds to .clang-format (the kernel's style: tabs, 100 columns;
# `make format` applies it): clang-format changes nothing (issue 24).  The
# check itself must find a file out of style.  Needs no root.
cd "$(dirname "$0")/../.."
source tests/lib.sh
d=$(scratch_dir)

if ! command -v clang-format >/dev/null; then
	skip "clang-format" "clang-format is not installed (make deps installs it)"
else
	files=$(make -s --no-print-directory format-files)
	bad=$(for f in $files; do clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
	check "clang-format changes nothing${bad:+: $(tr '\n' ' ' <<<"$bad")}" test -z "$bad"
	printf 'int  f( int x ) { return x; }\n' >"$d/bad.c"
	cp .clang-format "$d/"
	check "the check finds a file out of style" \
		bash -c "! clang-format --dry-run --Werror '$d/bad.c' 2>/dev/null"
fi
