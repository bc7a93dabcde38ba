#!/usr/bin/env bash
# Flight-recorder ring under sustained traffic: at most N segment files, each
# bounded in size, the newest kept, and every segment readable alone (its own
# header, addresses, the release that wrote it, thread names and the connection
# open at its start).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record ring"

d=$(scratch_dir)
port=$(free_port)
seg=65536
touch "$d/rec.999" # a stale segment of an earlier ring must not survive
must_start_recorder "record ring" "$d/rec" "$d/rec.log" --port "$port" --ring 3 --segment-size 64K
start_traffic "$d" "$port" 100
# Until the ring has wrapped a few times (or 15 s).
for _ in $(seq 150); do
	[ -e "$d/rec.008" ] && break
	sleep 0.1
done
sleep 0.3
stop_recorder
check "record ring: recorder stops cleanly" test $? -eq 0
files=$(cd "$d" && ls rec.[0-9]* 2>/dev/null | sort)
n=$(echo "$files" | grep -c .)
check "record ring: at most 3 segment files ($n)" test "$n" -ge 1 -a "$n" -le 3
newest=$(echo "$files" | tail -1)
check "record ring: the ring wrapped (newest $newest)" test "${newest#rec.}" -ge 8 2>/dev/null
check "record ring: stale segment removed" test ! -e "$d/rec.999"
total=$(cat "$d"/rec.[0-9]* | wc -c)
check "record ring: disk use bounded ($total bytes)" test "$total" -le $((3 * (seg + 4096)))
read -r cpid ctid clport crport < <(sed -n 's/^client pid=\([0-9]*\) tid=\([0-9]*\) lport=\([0-9]*\) rport=\([0-9]*\)/\1 \2 \3 \4/p' "$d/client.log")
expect=$((10#${newest#rec.} - n + 1))
version=$(cat VERSION)
for f in $files; do
	num=$((10#${f#rec.}))
	"$VPATH_ANALYZE" dump "$d/$f" >"$d/$f.txt" 2>/dev/null
	check "record ring: $f is the expected consecutive segment" test "$num" -eq "$expect"
	expect=$((expect + 1))
	check "record ring: $f readable alone" grep -q "^status  ok" "$d/$f.txt"
	check "record ring: $f header says segment $num" \
		grep -qE "^header .*flags=segment, segment=$num\$" "$d/$f.txt"
	check "record ring: $f starts with addresses and a clock" \
		awk 'NR == 2 && $1 == "addr" { a = 1 } $1 == "clock" && a { exit 0 } END { exit !a }' "$d/$f.txt"
	check "record ring: $f names vpath-record $version once, beside its first clock" \
		awk -v v="version=$version" '
			$1 == "writer" { n++; ok = $4 == v && $5 == "program=vpath-record" }
			$1 == "clock" && !c { c = 1; beside = prev == "writer" } { prev = $1 }
			END { exit !(n == 1 && ok && beside) }' "$d/$f.txt"
	check "record ring: $f names the client thread" \
		grep -q "^task .* tid=$ctid pid=$cpid snapshot comm=\"tcpmsg-cli\"" "$d/$f.txt"
	cookie=$(awk -v p=":$clport -> " -v q=":$crport " '$1 == "conn" && /origin=preexisting/ &&
		index($0, p) && index($0, q) { sub("cookie=", "", $5); print $5; exit }' "$d/$f.txt")
	check "record ring: $f knows the open connection ($cookie)" test -n "$cookie"
	check "record ring: $f has the connection's operations" \
		grep -q "^sock_op .* tid=$ctid pid=$cpid cookie=$cookie " "$d/$f.txt"
done
# The newest segment ends close to the stop.
ops=$(grep -c "^sock_op" "$d/$newest.txt")
check "record ring: newest segment has recent operations ($ops)" test "$ops" -gt 0
