#!/usr/bin/env bash
# HTTP/2 as the recorder sees it: an h2c exchange (Node.js http2, prior
# knowledge, several concurrent streams on one connection) marks the client's
# first send and the server's first receive h2_preface, and records every
# frame header at both ends at the same stream positions; the same requests
# over HTTP/1.1 keep-alive show nothing of HTTP/2.  Hand-made bytes split
# headers across sends and iovecs, and send more headers at once than the
# recorder walks: it says it lost them, and nothing wrong follows.  A server that
# speaks first, read by its client before the client's preface (as gRPC's
# are), is followed from the client's first receive.  Both capture paths (the
# fallback walks no frames: docs/recorder.md).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record h2"
if ! command -v node >/dev/null; then
	skip "record h2" "no node to run an HTTP/2 exchange (make deps installs nodejs)"
	exit 0
fi

h2_test() { # name, mode (h2 or h1), frames or noframes, streams, recorder args...
	local name=$1 mode=$2 frames=$3 streams=$4 d port rc
	shift 4
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	if [ "$mode" = raw ]; then
		python3 tests/tools/h2_raw_exchange.py "$port" "$streams"
	elif [ "$mode" = first ]; then
		python3 tests/tools/h2_server_first.py "$port" "$streams"
	else
		node tests/tools/h2c_exchange.js "$mode" "$port" "$streams"
	fi >"$d/expect.txt" 2>"$d/exchange.err"
	rc=$?
	check "$name: exchange ran" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || cat "$d/exchange.err" >&2
	stop_recorder
	check "$name: recorder stops cleanly, nothing lost" grep -q "records, 0 lost" "$d/rec.log"
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt"
	python3 tests/tools/check_h2.py "$d/dump.txt" "$d/expect.txt" "$name" "$mode" "$frames" "$streams"
}

h2_test "record h2c" h2 frames 3
h2_test "record h2c, 40 streams" h2 frames 40
h2_test "record h2 split headers, too many" raw frames 3000
h2_test "record h2 server first, read before the preface" first frames 3
h2_test "record h1 has no h2 marks" h1 noframes 3
h2_test "record h2c fallback" h2 noframes 3 --force-fallback
h2_test "record h1 has no h2 marks fallback" h1 noframes 3 --force-fallback
