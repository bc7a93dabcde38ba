#!/usr/bin/env bash
# The first operation of each end and direction of a connection is marked as
# the start of its stream, and as a TLS handshake when its first bytes are a
# TLS handshake record header (no payload is recorded, only the bit): a real
# TLS exchange (Python's ssl, a throw-away self-signed certificate), and plain
# connections using every sampled socket call, with a TLS-like header both at
# a stream's start (counts) and later (does not).  Both capture paths.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record tls"
if ! command -v openssl >/dev/null; then
	skip "record tls" "no openssl to make a certificate (make deps installs it)"
	exit 0
fi

certs=$(scratch_dir)
if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-subj /CN=localhost -days 1 -keyout "$certs/key.pem" -out "$certs/cert.pem" \
	>"$certs/openssl.log" 2>&1; then
	not_ok "record tls: self-signed certificate made ($(head -c 300 "$certs/openssl.log"))"
	exit 1
fi

first_bytes_test() { # name, exchange args (mode and what follows the port), recorder args...
	local name=$1 mode=$2 d port rc
	shift 2
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	if [ "$mode" = tls ]; then
		python3 tests/tools/first_bytes_exchange.py tls "$port" "$certs/cert.pem" "$certs/key.pem"
	else
		python3 tests/tools/first_bytes_exchange.py "$mode" "$port"
	fi >"$d/expect.txt" 2>"$d/exchange.err"
	rc=$?
	check "$name: exchange ran" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || cat "$d/exchange.err" >&2
	stop_recorder
	check "$name: recorder stops cleanly, nothing lost" grep -q "records, 0 lost" "$d/rec.log"
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt"
	python3 tests/tools/check_first_bytes.py "$d/dump.txt" "$d/expect.txt" "$name"
}

first_bytes_test "record tls" tls
first_bytes_test "record plain stream starts" plain
first_bytes_test "record tls fallback" tls --force-fallback
first_bytes_test "record plain stream starts fallback" plain --force-fallback
