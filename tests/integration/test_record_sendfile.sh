#!/usr/bin/env bash
# A message sent with sendfile(2) is recorded like any other send, by both
# capture paths: the client's recorded sends add up to the file's size and
# cover the same stream range as the server's recorded receives.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record sendfile"
SIZE=300000

# ranges DUMP COOKIE DIR: "bytes first last" of COOKIE's operations in direction DIR.
ranges() {
	awk -v c="cookie=$2" -v dir="$3" '$1 == "sock_op" && $5 == c && $6 == dir {
		split($7, b, "="); sum += b[2]
		r = $8; sub("range=\\[", "", r); sub("\\)", "", r); split(r, x, ",")
		if (first == "" || x[1] + 0 < first + 0) first = x[1]
		if (last == "" || x[2] + 0 > last + 0) last = x[2]
	} END { print sum + 0, first, last }' "$1"
}

sendfile_test() { # name, recorder args...
	local name=$1 d port clport ccookie scookie sent rcvd
	shift
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	python3 tests/tools/edge_exchange.py sendfile "$port" "$SIZE" >"$d/client.log"
	check "$name: exchange ran ($SIZE bytes by sendfile)" test $? -eq 0
	stop_recorder
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt"
	clport=$(sed -n 's/^client port=//p' "$d/client.log")
	ccookie=$(awk -v t="127.0.0.1:$clport -> 127.0.0.1:$port" '$1 == "conn" && index($0, t) {
		sub("cookie=", "", $5); print $5; exit }' "$d/dump.txt")
	scookie=$(awk -v t="127.0.0.1:$port -> 127.0.0.1:$clport" '$1 == "conn" && index($0, t) {
		sub("cookie=", "", $5); print $5; exit }' "$d/dump.txt")
	sent=$(ranges "$d/dump.txt" "$ccookie" send)
	rcvd=$(ranges "$d/dump.txt" "$scookie" recv)
	check "$name: the client's sends add up to the file ($sent)" test "${sent%% *}" = "$SIZE"
	check "$name: the server's receives add up to the file ($rcvd)" test "${rcvd%% *}" = "$SIZE"
	check "$name: both cover the same stream range" test -n "$ccookie" -a "${sent#* }" = "${rcvd#* }"
}

sendfile_test "record sendfile"
sendfile_test "record sendfile fallback" --force-fallback
