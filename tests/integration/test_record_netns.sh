#!/usr/bin/env bash
# Two network-namespace hosts joined by a veth pair, one recorder for each
# (--netns, --host): each recording holds its own end only, labelled with its
# namespace; together they show the exchange exactly, the client's send
# ranges equal to the server's receive ranges across the two files.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record netns"

d=$(scratch_dir)
cns=vpr-c-$$ sns=vpr-s-$$
net=10.$((200 + RANDOM % 50)).$((RANDOM % 250))
ip netns add "$cns" && on_exit "ip netns del $cns"
ip netns add "$sns" && on_exit "ip netns del $sns"
ip link add "vpc$$" netns "$cns" type veth peer name "vps$$" netns "$sns"
ip -n "$cns" addr add "$net.1/24" dev "vpc$$"
ip -n "$sns" addr add "$net.2/24" dev "vps$$"
for ns in "$cns" "$sns"; do
	ip -n "$ns" link set lo up
	ip -n "$ns" link set "vp${ns:4:1}$$" up
done
port=$((20000 + RANDOM % 40000))
rounds=12

must_start_recorder "record netns client" "$d/c.vpr" "$d/c.log" --netns "$cns" --host client
c_pid=$RECORDER_PID
must_start_recorder "record netns server" "$d/s.vpr" "$d/s.log" --netns "/run/netns/$sns" \
	--host server
s_pid=$RECORDER_PID
check "record netns: tcpmsg exchange across namespaces" \
	tcpmsg_exchange "$d" "$net.2" "$port" "$rounds" "ip netns exec $sns" "ip netns exec $cns"
kill -INT "$c_pid" "$s_pid"
wait "$c_pid"
check "record netns: client recorder stops cleanly" test $? -eq 0
wait "$s_pid"
check "record netns: server recorder stops cleanly" test $? -eq 0

for side in c s; do
	"$VPATH_ANALYZE" dump "$d/$side.vpr" >"$d/$side.txt" 2>/dev/null
done
c_ino=$(stat -L -c %i "/run/netns/$cns")
s_ino=$(stat -L -c %i "/run/netns/$sns")
check "record netns: header carries host label and netns (client)" \
	grep -q "^header .*host=\"client\".* netns=$c_ino " "$d/c.txt"
check "record netns: header carries host label and netns (server)" \
	grep -q "^header .*host=\"server\".* netns=$s_ino " "$d/s.txt"
check "record netns: own addresses are the namespace's" \
	grep -q "^addr .*netns=$c_ino .* $net.1/24" "$d/c.txt"
only_own() { # dump inode: every conn record is in that namespace
	awk -v ns="netns=$2" '$1 == "conn" { n++; if (index($0, ns " ") == 0) bad++ }
		END { exit !(n > 0 && bad == 0) }' "$1"
}
check "record netns: client recording holds only its namespace" only_own "$d/c.txt" "$c_ino"
check "record netns: server recording holds only its namespace" only_own "$d/s.txt" "$s_ino"
$CHECK_TCPMSG "$d/c.txt" "$d/client.log" "$d/server.log" "$rounds" --only client \
	--name "record netns client file"
$CHECK_TCPMSG "$d/s.txt" "$d/client.log" "$d/server.log" "$rounds" --only server \
	--name "record netns server file"
cat "$d/c.txt" "$d/s.txt" >"$d/both.txt"
$CHECK_TCPMSG "$d/both.txt" "$d/client.log" "$d/server.log" "$rounds" --name "record netns both"
timeout 20 "$VPATH_RECORD" -d 1 --netns "$s_ino" -o "$d/ino.vpr" 2>"$d/ino.log"
check "record netns: --netns INODE finds the namespace" \
	sh -c "'$VPATH_ANALYZE' dump '$d/ino.vpr' 2>/dev/null | grep -q '^header .* netns=$s_ino '"
