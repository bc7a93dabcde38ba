#!/usr/bin/env bash
# --cgroup keeps the operations and threads of the tasks in that cgroup v2
# directory and nothing else: the client of an exchange is moved into a
# fresh cgroup, the server stays outside.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record cgroup"

mnt=$(awk '$(NF - 2) == "cgroup2" || ($0 ~ / - cgroup2 /) { print $5; exit }' /proc/self/mountinfo)
cg=$mnt/vpath-test-$$
if [ -z "$mnt" ] || ! mkdir "$cg" 2>/dev/null; then
	skip "record cgroup" "no writable cgroup v2 hierarchy"
	exit 0
fi
on_exit "rmdir '$cg'"
d=$(scratch_dir)
port=$(free_port)
rounds=8
connect_and_wait "$d" "$port" "$rounds"
spid=$SERVER_PID cpid=$CLIENT_PID
if ! echo "$cpid" >"$cg/cgroup.procs"; then
	skip "record cgroup" "cannot move a process into $cg"
	exit 0
fi
must_start_recorder "record cgroup" "$d/rec.vpr" "$d/rec.log" --cgroup "$cg" --port "$port"
touch "$d/go"
wait "$cpid"
wait "$spid"
stop_recorder
check "record cgroup: recorder stops cleanly" test $? -eq 0
"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt" 2>/dev/null
$CHECK_TCPMSG "$d/dump.txt" "$d/client.log" "$d/server.log" "$rounds" --only client \
	--preexisting --name "record cgroup"
stid=$(sed -n 's/^server pid=[0-9]* tid=\([0-9]*\) .*/\1/p' "$d/server.log")
check "record cgroup: no operation from outside the cgroup" \
	test "$(grep '^sock_op' "$d/dump.txt" | grep -vc " pid=$cpid ")" -eq 0
check "record cgroup: threads outside the cgroup are not listed" \
	test "$(grep -c "^task .* tid=$stid " "$d/dump.txt")" -eq 0
