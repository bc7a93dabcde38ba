#!/usr/bin/env bash
# Recordings are private: every file vpath-record writes (ring segments too)
# is 0600 whatever the umask or an older file at that path says; --group
# widens them to 0640 for that group on purpose; an unknown group is refused
# with one line before anything is written.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record perms"

d=$(scratch_dir)
mode_of() { stat -c %a "$1" 2>/dev/null; }
group_of() { stat -c %G "$1" 2>/dev/null; }
# Any group but root's, so that group ownership is visibly changed.
grp=$(getent group | awk -F: '$3 != 0 { print $1; exit }')

umask 022
"$VPATH_RECORD" -d 2 -o "$d/x.vpr" 2>"$d/x.log"
check "record perms: plain recording succeeds" test $? -eq 0
check "record perms: x.vpr is 600 under umask 022 ($(mode_of "$d/x.vpr"))" \
	test "$(mode_of "$d/x.vpr")" = 600

# O_TRUNC keeps an older file's mode: the recorder must set it itself.
: >"$d/old.vpr"
chmod 0644 "$d/old.vpr"
"$VPATH_RECORD" -d 1 -o "$d/old.vpr" 2>"$d/old.log"
check "record perms: an older 644 file at the path becomes 600 ($(mode_of "$d/old.vpr"))" \
	test "$(mode_of "$d/old.vpr")" = 600

if [ -z "$grp" ]; then
	skip "record perms: --group" "no group other than root on this machine"
else
	umask 077
	"$VPATH_RECORD" -d 1 --group "$grp" -o "$d/g.vpr" 2>"$d/g.log"
	check "record perms: --group $grp recording succeeds" test $? -eq 0
	check "record perms: --group makes it 640 even under umask 077 ($(mode_of "$d/g.vpr"))" \
		test "$(mode_of "$d/g.vpr")" = 640
	check "record perms: --group makes it owned by $grp ($(group_of "$d/g.vpr"))" \
		test "$(group_of "$d/g.vpr")" = "$grp"
	umask 022

	# Segments after the first are created after privileges were dropped.
	port=$(free_port)
	must_start_recorder "record perms ring" "$d/rec" "$d/rec.log" --port "$port" --ring 3 \
		--segment-size 64K --group "$grp"
	start_traffic "$d" "$port" 100
	for _ in $(seq 150); do
		[ -e "$d/rec.003" ] && break
		sleep 0.1
	done
	stop_recorder
	check "record perms: ring with --group stops cleanly" test $? -eq 0
	check "record perms: the ring went past its first segment" test -e "$d/rec.003"
	bad=$(find "$d" -name 'rec.[0-9]*' \( ! -perm 0640 -o ! -group "$grp" \) | wc -l)
	total=$(find "$d" -name 'rec.[0-9]*' | wc -l)
	check "record perms: every ring segment is 640 and $grp's ($bad of $total are not)" \
		test "$bad" -eq 0 -a "$total" -gt 0
fi

missing=vpath-no-such-group-$$
"$VPATH_RECORD" -d 1 --group "$missing" -o "$d/m.vpr" 2>"$d/m.log"
rc=$?
check "record perms: unknown group exits non-zero ($rc)" test "$rc" -ne 0
check "record perms: unknown group is one line naming it" \
	test "$(wc -l <"$d/m.log")" -eq 1 -a "$(grep -c "$missing" "$d/m.log")" -eq 1
check "record perms: unknown group writes nothing" test ! -e "$d/m.vpr"
