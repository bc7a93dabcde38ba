#!/usr/bin/env bash
# The help texts of both tools name no web address, mail address or
# repository: there is none to send people to, and an invented one would
# send bug reports nowhere (argp prints argp_program_bug_address).  Examples
# on the user's own machine (http://localhost:4318) are addresses that exist.
cd "$(dirname "$0")/../.."
source tests/lib.sh

for bin in "$VPATH_RECORD" "$VPATH_ANALYZE"; do
	if [ ! -x "$bin" ]; then
		not_ok "help addresses: build $bin first (make tests-build)"
		exit 1
	fi
done
address='https?://|ftp://|www\.|[[:alnum:]._%+-]+@[[:alnum:].-]+\.[[:alpha:]]{2,}|github|gitlab|bitbucket|[Rr]eport bugs'
for cmd in "$VPATH_RECORD --help" "$VPATH_RECORD --usage" "$VPATH_RECORD --version" \
	"$VPATH_ANALYZE --help" "$VPATH_ANALYZE"; do
	text=$($cmd 2>&1 | sed -E 's#(https?)://(localhost|127\.[0-9.]+|\[::1\])([:/][^ ]*)?#LOCAL-EXAMPLE#g')
	name="help addresses: ${cmd#"$OUTPUT"/}"
	if [ -z "$text" ]; then
		not_ok "$name printed nothing"
	elif found=$(grep -oE "$address" <<<"$text" | head -3 | tr '\n' ' ') && [ -n "$found" ]; then
		not_ok "$name names an address: $found"
	else
		ok "$name names no address"
	fi
done
