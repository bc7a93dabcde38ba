#!/usr/bin/env bash
# The man pages (man/) and the programs' --help name the same long options
# (and, for vpath-analyze and vpath-clickhouse, the same commands), so that
# neither can drift from the other; `man --warnings` renders each without a
# warning.
cd "$(dirname "$0")/../.."
source tests/lib.sh

VPATH_CLICKHOUSE=tools/clickhouse/vpath-clickhouse
for bin in "$VPATH_RECORD" "$VPATH_ANALYZE" "$VPATH_CLICKHOUSE"; do
	if [ ! -x "$bin" ]; then
		not_ok "man: build $bin first (make tests-build)"
		exit 1
	fi
done
if ! command -v man >/dev/null; then
	skip "man pages" "man not installed (make deps installs man-db)"
	exit 0
fi
d=$(scratch_dir)

# The long options a help text or a page's OPTIONS section defines: a line
# that starts (after at most 7 spaces) with "-x, --name" or "--name".
# Continuation lines are indented further, so prose never counts.
defined() {
	sed -nE 's/^ {2,7}(-[^ ,], )?--([a-z][a-z0-9-]*).*/--\2/p' | sort -u
}
# The OPTIONS or COMMANDS section of a rendered page.
section() { # name
	awk -v s="$1" '/^[A-Z]/ { on = ($0 == s) } on && !/^[A-Z]/'
}
# vpath-analyze's commands: two spaces and a name in the help's Commands: list.
help_commands() {
	awk '/^Commands:/ { on = 1; next } /^[A-Z]/ { on = 0 } on' |
		sed -nE 's/^  ([a-z]+)( .*)?$/\1/p' | sort -u
}
page_commands() {
	section COMMANDS | sed -nE 's/^       ([a-z]+)( .*)?$/\1/p' | sort -u
}
# same NAME A B: ok when the two sorted lists are equal, else what differs.
same() {
	local diffs
	diffs=$(comm -3 "$2" "$3" | tr -d '\t' | tr '\n' ' ')
	if [ -z "$diffs" ]; then
		ok "$1 ($(wc -l <"$2") names)"
	else
		not_ok "$1: only in one of them: $diffs"
	fi
}

# Any program's options may be named in another's page (--ring, --pairs).
{ "$VPATH_RECORD" --help; "$VPATH_ANALYZE" --help; "$VPATH_CLICKHOUSE" --help; } |
	defined >"$d/all.opts"

for page in man/vpath-record.8 man/vpath-analyze.1 man/vpath-clickhouse.1; do
	name=$(basename "$page")
	case $name in
	vpath-record.*) prog=$VPATH_RECORD ;;
	vpath-analyze.*) prog=$VPATH_ANALYZE ;;
	*) prog=$VPATH_CLICKHOUSE ;;
	esac
	MANWIDTH=80 man --warnings -l "$page" >"$d/$name.txt" 2>"$d/$name.warn"
	if [ $? -eq 0 ] && [ -s "$d/$name.txt" ] && ! grep -q . "$d/$name.warn"; then
		ok "man: $name renders without warnings"
	else
		not_ok "man: $name: $(head -c 400 "$d/$name.warn")"
	fi
	"$prog" --help | defined >"$d/help.opts"
	section OPTIONS <"$d/$name.txt" | defined >"$d/page.opts"
	same "man: $name documents the long options of --help and no other" \
		"$d/help.opts" "$d/page.opts"
	# Options named anywhere in the page (descriptions, examples) exist;
	# quoted text is another program's command line ('clickhouse-client ...').
	sed "s/'[^']*'//g" "$d/$name.txt" | grep -oE '(^|[ (])--[a-z][a-z0-9-]*' |
		sed 's/^[ (]//' | sort -u | grep -vxF -e --now >"$d/named.opts" # systemctl enable --now
	unknown=$(comm -23 "$d/named.opts" "$d/all.opts" | tr '\n' ' ')
	check "man: $name names no option the programs lack${unknown:+: $unknown}" test -z "$unknown"
	if [ "$prog" != "$VPATH_CLICKHOUSE" ]; then
		version=$("$prog" --version)
		check "man: $name documents --version ($version)" grep -q -- '--version' "$d/page.opts"
	fi
	if grep -q '^Commands:' <("$prog" --help); then
		"$prog" --help | help_commands >"$d/help.cmds"
		page_commands <"$d/$name.txt" >"$d/page.cmds"
		same "man: $name documents the commands of --help and no other" \
			"$d/help.cmds" "$d/page.cmds"
	fi
done
