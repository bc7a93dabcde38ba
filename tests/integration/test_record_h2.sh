#!/usr/bin/env bash
# HTTP/2 as the recorder sees it: an h2c exchange (Node.js http2, prior
# knowledge, several concurrent streams on one connection) marks the client's
# first send and the server's first receive h2_preface; the same requests
# over HTTP/1.1 keep-alive mark nothing.  Both capture paths.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record h2"
if ! command -v node >/dev/null; then
	skip "record h2" "no node to run an HTTP/2 exchange (make deps installs nodejs)"
	exit 0
fi

h2_test() { # name, mode (h2 or h1), recorder args...
	local name=$1 mode=$2 d port rc
	shift 2
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	node tests/tools/h2c_exchange.js "$mode" "$port" 3 >"$d/expect.txt" 2>"$d/exchange.err"
	rc=$?
	check "$name: exchange ran" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || cat "$d/exchange.err" >&2
	stop_recorder
	check "$name: recorder stops cleanly, nothing lost" grep -q "records, 0 lost" "$d/rec.log"
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt"
	python3 tests/tools/check_h2.py "$d/dump.txt" "$d/expect.txt" "$name" "$mode"
}

h2_test "record h2c" h2
h2_test "record h1 has no h2 marks" h1
h2_test "record h2c fallback" h2 --force-fallback
h2_test "record h1 has no h2 marks fallback" h1 --force-fallback
