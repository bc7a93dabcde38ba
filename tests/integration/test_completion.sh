#!/usr/bin/env bash
# completion/vpath.bash: sourced into bash, it completes commands, options
# and recordings (*.vpr, ring segments *.NNN, local files *.vpl), and its
# option lists are those of --help.
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
expect "--output --verbose" vpath-analyze local --
expect "--threads --to" vpath-analyze paths --t
expect "notes.txt rec.000 sub web.vpl web.vpr" vpath-analyze sqlite -o ""
expect "" vpath-analyze paths -n ""
expect "--ring --ringbuf-size" vpath-record --ri
expect "notes.txt rec.000 sub web.vpl web.vpr" vpath-record -o ""
expect "web.vpl web.vpr" vpath-record --output = web
expect "root" vpath-record --group roo

# The option lists are --help's (as test_man.sh reads them).
if [ ! -x "$VPATH_RECORD" ] || [ ! -x "$VPATH_ANALYZE" ]; then
	not_ok "completion: build the programs first (make tests-build)"
	exit 1
fi
defined() {
	sed -nE 's/^ {2,7}(-[^ ,], )?--([a-z][a-z0-9-]*).*/--\2/p' | sort | tr '\n' ' '
}
for prog in vpath-record vpath-analyze; do
	bin=$VPATH_RECORD
	[ $prog = vpath-analyze ] && bin=$VPATH_ANALYZE
	want=$("$bin" --help | defined | sed 's/ $//')
	if [ $prog = vpath-record ]; then
		got=$(complete_words $prog --)
	else
		got=$(complete_words $prog paths --)
	fi
	check "completion: $prog's options are those of --help" test "$got" = "$want"
done
