#!/usr/bin/env bash
# HTTP/2 inside TLS as the recorder sees it (docs/recorder.md, "TLS"): a
# Node.js http2 exchange over TLS with ALPN h2 (several concurrent streams on
# one connection, a throw-away certificate) is read in its plaintext through
# libssl's uprobes: the ciphertext carries no HTTP/2 mark, the plaintext
# operations (tls_op) begin where each direction's handshake does, and every
# frame header is recorded at both ends at the same plaintext positions,
# tiling each direction.  The fallback path ties no connection, so it
# records none of it.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record tls h2"
if ! command -v node >/dev/null || ! command -v openssl >/dev/null; then
	skip "record tls h2" "no node or openssl for a TLS HTTP/2 exchange (make deps installs them)"
	exit 0
fi

certs=$(scratch_dir)
if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=vpath-tls-h2 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$certs/key.pem" -out "$certs/cert.pem" >"$certs/openssl.log" 2>&1; then
	not_ok "record tls h2: make a certificate" "$(cat "$certs/openssl.log")"
	exit 0
fi

tls_h2_test() { # name, streams, none or frames, recorder args...
	local name=$1 streams=$2 want=$3 d port rc
	shift 3
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	node tests/tools/h2c_exchange.js h2tls "$port" "$streams" "$certs/key.pem" "$certs/cert.pem" \
		>"$d/expect.txt" 2>"$d/exchange.err"
	rc=$?
	check "$name: exchange ran" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || cat "$d/exchange.err" >&2
	stop_recorder
	check "$name: recorder stops cleanly, nothing lost" grep -q "records, 0 lost" "$d/rec.log"
	check "$name: libssl was probed (node's own or the system's)" grep -q "TLS: libssl probed" "$d/rec.log"
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt"
	python3 tests/tools/check_h2_tls.py "$d/dump.txt" "$d/expect.txt" "$name" "$streams" \
		$([ "$want" = none ] && echo none)
}

tls_h2_test "record tls h2" 3 frames -v
tls_h2_test "record tls h2, 40 streams" 40 frames -v
tls_h2_test "record tls h2 fallback" 3 none -v --force-fallback
