#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every link of the Markdown files leads somewhere: relative links and their
# headings, paths of the tree named in the text, and sections named after a
# file (docs/analyzer.md, "Speed").  Text moves between README.md and docs/;
# this keeps the references moving with it.  The checker must catch a broken one.
cd "$(dirname "$0")/../.."
source tests/lib.sh
d=$(scratch_dir)
mapfile -t docs < <(find . -name '*.md' -not -path './.*' | sort)
out=$(python3 tests/tools/check_links.py "${docs[@]}" 2>&1)
check "every link of ${#docs[@]} Markdown files resolves${out:+: $out}" test -z "$out"
mkdir -p "$d/docs"
printf '%s\n' '# Top' '[a](docs/gone.md) [b](#top) [c](#bottom)' 'see tests/no/such.sh' \
	'(docs/x.md, "Speed")' >"$d/bad.md"
printf '%s\n' '# Other' >"$d/docs/x.md"
python3 tests/tools/check_links.py "$d/bad.md" >"$d/found"
check "the checker finds a missing file, heading, path and section, and passes a good anchor" \
	test "$(wc -l <"$d/found")" = 4
