#!/usr/bin/env bash
# completion/vpath.bash: sourced into bash, it completes commands, options
# and recordings (*.vpr, ring segments *.NNN, local files *.vpl) of the three
# programs, and its option lists are those of --help.
cd "$(dirname "$0")/../.."
source tests/lib.sh

comp=$PWD/completion/vpath.bash
d=$(scratch_dir)
mkdir "$d/files" "$d/files/sub"
touch "$d/files/"{web.vpr,web.vpl,rec.000,notes.txt}

# complete WORD...: what bash offers for the last word (empty: the cursor after
# a space), one line, sorted.
complete_words() {
	(cd "$d/files" && bash --norc --noprofile -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		fn=$(complete -p "$1" | sed -E "s/.*-F ([^ ]+) .*/\1/")
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"
	' complete_words "$comp" "$@")
}
# expect "WANTED" WORD...: the completion of WORD... is exactly WANTED.
expect() {
	local want=$1 got
	shift
	got=$(complete_words "$@")
	if [ "$got" = "$want" ]; then
		ok "completion: '$*' -> $want"
	else
		not_ok "completion: '$*': wanted '$want', got '$got'"
	fi
}

check "completion: bash -n" bash -n "$comp"
expect "paths patterns" vpath-analyze pa
expect "--help --version" vpath-analyze --
expect "rec.000 sub web.vpl web.vpr" vpath-analyze paths ""
expect "web.vpl" vpath-analyze paths web.vpl
expect "sub web.vpl" vpath-analyze calls ""
expect "rec.000 sub web.vpr" vpath-analyze local ""
expect "--help --output --verbose --version" vpath-analyze local --
expect "--help --version" vpath-analyze dump --
expect "--threads --to" vpath-analyze paths --t
expect "notes.txt rec.000 sub web.vpl web.vpr" vpath-analyze sqlite -o ""
expect "" vpath-analyze paths -n ""
expect "--ring --ringbuf-size" vpath-record --ri
expect "notes.txt rec.000 sub web.vpl web.vpr" vpath-record -o ""
expect "web.vpl web.vpr" vpath-record --output = web
expect "root" vpath-record --group roo
expect "drop" vpath-clickhouse --client "clickhouse-client --host ch1" d
expect "sub web.vpl" vpath-clickhouse --cluster c1 load ""
expect "-o" vpath-clickhouse pair ""
expect "--client --cluster" vpath-clickhouse --cl

# The option lists are --help's (as test_man.sh reads them); vpath-analyze's
# are each command's (`vpath-analyze COMMAND --help`).
if [ ! -x "$VPATH_RECORD" ] || [ ! -x "$VPATH_ANALYZE" ]; then
	not_ok "completion: build the programs first (make tests-build)"
	exit 1
fi
defined() {
	sed -nE 's/^ {2,7}(-[^ ,], )?--([a-z][a-z0-9-]*).*/--\2/p' | sort | tr '\n' ' '
}
for prog in vpath-record vpath-clickhouse; do
	case $prog in
	vpath-record) bin=$VPATH_RECORD ;;
	*) bin=tools/clickhouse/vpath-clickhouse ;;
	esac
	want=$("$bin" --help | defined | sed 's/ $//')
	got=$(complete_words $prog --)
	check "completion: $prog's options are those of --help" test "$got" = "$want"
done
cmds=$(complete_words vpath-analyze "" | tr ' ' '\n' | grep -v '^-')
for cmd in $cmds; do
	want=$("$VPATH_ANALYZE" "$cmd" --help | defined | sed 's/ $//')
	got=$(complete_words vpath-analyze "$cmd" --)
	check "completion: vpath-analyze $cmd's options are those of its --help" \
		test -n "$want" -a "$got" = "$want"
done
check "completion: vpath-analyze has its 12 commands" test "$(wc -w <<<"$cmds")" -eq 12
