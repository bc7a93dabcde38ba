#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of an HTTP/2 workload (README.md here, issue 23): client.py
# (SESSIONS keep-alive HTTP/1.1 connections) -> a front end whose back-end
# calls are streams of ONE HTTP/2 connection -> an HTTP/2 back end, each on
# its own network-namespace host with its own vpath-record; then
# vpath-analyze on all recordings and tests/evloop/score.py against the
# truth of the client and the back end (calls named by HTTP/2 stream id).
# Prints TAP lines and the figures.  Exit status: 0 when the gates pass, 1
# when not, 2 when the run itself failed.  Needs root.
#
#   tests/h2/run.sh --variant node-h2|node-h2-noprop|node-h2-tls|go-h2|go-h2-tls|go-grpc|go-grpc-tls|python-grpc|
#                             preexisting|nginx-grpc|nginx-grpc-close
#                   [--requests N] [--sessions S] [--seed X] [--keep DIR]
# node-h2:     gateway_h2.js (one event loop, one shared http2.connect()
#              session, h2c with prior knowledge) -> backend_h2.js; the
#              client's traceparent forwarded on each call (HPACK-coded)
# node-h2-noprop: the same gateway not forwarding it
# node-h2-tls: the same over TLS with ALPN h2, a self-signed certificate
#              made with openssl in the scratch dir
# go-h2:       goapp front-h2 (net/http, x/net/http2 Transport, h2c) ->
#              goapp back-h2 (h2c.NewHandler), compiled offline
# go-h2-tls:   the same over TLS with ALPN h2 (Go's crypto/tls, compiled in:
#              read through the uprobes of bpf/go_tls.h)
# go-grpc:     goapp front-grpc (net/http, one grpc.ClientConn, unary
#              calls, h2c) -> goapp back-grpc (grpc.Server), compiled offline
# go-grpc-tls: the same over TLS (credentials.NewTLS: Go's crypto/tls)
# python-grpc: goapp front-grpc -> grpc_backend.py (grpcio, handlers on a
#              thread pool)
# preexisting: node-h2 with the gateway's session to the back end opened
#              before the recorders start (its preface is not recorded)
# nginx-grpc:  goapp front-grpc -> nginx (its own host; listen http2, h2c)
#              -> grpc_pass grpcs:// (TLS, upstream keepalive) ->
#              grpc_backend.py over TLS: both TLS ends in the system's libssl
# nginx-grpc-close: the same without upstream keepalive (a connection per call)
# --keep DIR: the recordings, truth.jsonl, found.json, failures.jsonl,
# analyze.cmd (the vpath-analyze command line) and every log go to DIR.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
# The client imports tests/evloop/client.py: no __pycache__ written into the tree.
export PYTHONDONTWRITEBYTECODE=1

H2_SRC=tests/h2
H2_NET=10.204.0
H2_CLIENT_IP=$H2_NET.10
H2_FRONT=$H2_NET.1:7000
H2_BACKEND=$H2_NET.2:7100
# the gRPC server behind nginx (the nginx variants; nginx is at H2_BACKEND)
H2_ORIGIN=$H2_NET.3:7200
# The Go build cache is build output: kept in $OUTPUT (as test_record_go.sh
# keeps it), so that only the first run compiles x/net and gRPC.
H2_GOCACHE=$(realpath -m "$OUTPUT/go-cache")

source tests/evloop/workload.sh
wl_options variant 3,33 "$@"
variant=$wl_kind wl_front_host=front
# A back-end call found as a root marked exact fails the run too.
wl_score_opts=(--gate-roots)
# Inside TLS the recorder reads the frames through libssl (docs/recorder.md):
# every stream must be found as a call of its own.
case $variant in node-h2-tls | go-h2-tls | go-grpc-tls) wl_score_opts+=(--gate-calls) ;; esac
# The ids on the front end's port (HTTP/1.1 traceparent from the client)
# and the back end's (HTTP/2: each HEADERS frame's block, HPACK-coded), as
# tests/evloop's HTTP variants record them.
wl_record_opts=(--capture 256 --capture-port "${H2_FRONT##*:}" --capture-port "${H2_BACKEND##*:}")
case $variant in
node-h2 | node-h2-noprop | node-h2-tls | go-h2 | go-h2-tls | go-grpc | go-grpc-tls | python-grpc | \
	preexisting) ;;
nginx-grpc | nginx-grpc-close)
	# nginx on a host of its own at H2_BACKEND, the gRPC server behind it
	wl_back_host=nginx wl_hop_host=backend wl_hop_addr=$H2_ORIGIN
	wl_record_opts+=(--capture-port "${H2_ORIGIN##*:}")
	# both TLS ends read in libssl: each stream its own call, on both hops
	wl_score_opts+=(--gate-calls)
	;;
*) echo "run.sh: --variant node-h2|node-h2-noprop|node-h2-tls|go-h2|go-h2-tls|go-grpc|go-grpc-tls|python-grpc|preexisting|nginx-grpc|nginx-grpc-close" >&2; exit 2 ;;
esac

# A Python that imports grpcio: Debian's (python3-grpcio), whatever python3
# is first in PATH.
h2_python=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import grpc' 2>/dev/null; then
		h2_python=$(command -v "$p")
		break
	fi
done

# What this run needs that is not installed: the Debian package's name.
h2_missing() {
	case $variant in
	node-* | preexisting) command -v node >/dev/null || echo nodejs ;;
	go-h2 | go-h2-tls)
		command -v go >/dev/null || echo golang-go
		[ -d /usr/share/gocode/src/golang.org/x/net/http2/h2c ] || echo golang-golang-x-net-dev
		;;
	*-grpc | *-grpc-*)
		command -v go >/dev/null || echo golang-go
		[ -d /usr/share/gocode/src/google.golang.org/grpc ] || echo golang-google-grpc-dev
		;;
	esac
	case $variant in
	python-grpc | nginx-*) [ -n "$h2_python" ] || echo python3-grpcio ;;
	esac
	case $variant in
	*-tls | nginx-*) command -v openssl >/dev/null || echo openssl ;;
	esac
	case $variant in
	nginx-*) [ -x /usr/sbin/nginx ] || echo nginx ;;
	esac
}

# goapp from tests/handoff/goapp.go and tests/h2/$1, offline, into DIR;
# recorded with --go-binary (started after the recorders: the front's
# goroutines are followed from exec, as tests/handoff's go front's are).
h2_goapp() { # modes.go dir
	# go build wants the files it is named in one directory.
	cp tests/handoff/goapp.go "$H2_SRC/$1" "$2/" &&
		(cd "$2" && GOCACHE=$H2_GOCACHE GOPATH=/usr/share/gocode GOPROXY=off \
			GOFLAGS= GO111MODULE=off go build -o goapp goapp.go "$1") \
		>"$E2E_DIR/build.log" 2>&1 || return 1
	wl_record_opts+=(--go-binary "$2/goapp")
}

# Makes what the variant needs in $E2E_DIR/build (certificate, Go
# binary), offline; sets front_cmd and back_cmd.
h2_build() {
	local build=$E2E_DIR/build
	mkdir -p "$build" "$H2_GOCACHE" || return 1
	case $variant in
	node-h2 | node-h2-noprop | preexisting)
		front_cmd=(node "$H2_SRC/gateway_h2.js" "$H2_FRONT" "$H2_BACKEND")
		[ "$variant" != node-h2-noprop ] || front_cmd+=(--no-forward)
		back_cmd=(node "$H2_SRC/backend_h2.js" --listen "$H2_BACKEND")
		# the recorders start once the gateway's session has exchanged
		# its SETTINGS: they find the connection open, its preface gone
		[ "$variant" != preexisting ] || wl_servers_first='back-end session ready'
		;;
	node-h2-tls)
		h2_cert "$build" "${H2_BACKEND%:*}" || return 1
		front_cmd=(node "$H2_SRC/gateway_h2.js" "$H2_FRONT" "$H2_BACKEND" --tls "$build/cert.pem")
		back_cmd=(node "$H2_SRC/backend_h2.js" --listen "$H2_BACKEND"
			--tls "$build/key.pem" "$build/cert.pem")
		;;
	go-h2)
		h2_goapp goh2.go "$build" || return 1
		front_cmd=("$build/goapp" front-h2 "$H2_FRONT" "$H2_BACKEND")
		back_cmd=("$build/goapp" back-h2 "$H2_BACKEND")
		;;
	go-h2-tls)
		h2_goapp goh2.go "$build" && h2_cert "$build" "${H2_BACKEND%:*}" || return 1
		front_cmd=("$build/goapp" front-h2 "$H2_FRONT" "$H2_BACKEND" --tls "$build/cert.pem")
		back_cmd=("$build/goapp" back-h2 "$H2_BACKEND" --tls "$build/key.pem" "$build/cert.pem")
		;;
	go-grpc)
		h2_goapp gogrpc.go "$build" || return 1
		front_cmd=("$build/goapp" front-grpc "$H2_FRONT" "$H2_BACKEND")
		back_cmd=("$build/goapp" back-grpc "$H2_BACKEND")
		;;
	go-grpc-tls)
		h2_goapp gogrpc.go "$build" && h2_cert "$build" "${H2_BACKEND%:*}" || return 1
		front_cmd=("$build/goapp" front-grpc "$H2_FRONT" "$H2_BACKEND" --tls "$build/cert.pem")
		back_cmd=("$build/goapp" back-grpc "$H2_BACKEND" --tls "$build/key.pem" "$build/cert.pem")
		;;
	python-grpc)
		h2_goapp gogrpc.go "$build" || return 1
		front_cmd=("$build/goapp" front-grpc "$H2_FRONT" "$H2_BACKEND")
		back_cmd=("$h2_python" "$H2_SRC/grpc_backend.py" --listen "$H2_BACKEND")
		;;
	nginx-grpc | nginx-grpc-close)
		h2_goapp gogrpc.go "$build" && h2_cert "$build" "${H2_ORIGIN%:*}" || return 1
		front_cmd=("$build/goapp" front-grpc "$H2_FRONT" "$H2_BACKEND" --proxied)
		back_cmd=("$H2_SRC/nginx_run.sh" "$E2E_DIR/nginx" "$H2_BACKEND" "$H2_ORIGIN")
		[ "$variant" = nginx-grpc ] && back_cmd+=(keepalive) || back_cmd+=(close)
		wl_hop_cmd=("$h2_python" "$H2_SRC/grpc_backend.py" --listen "$H2_ORIGIN" --seq
			--tls "$build/key.pem" "$build/cert.pem")
		;;
	esac
}

# A self-signed certificate for IP (its address in subjectAltName: Node
# checks it) in DIR/key.pem and DIR/cert.pem.
h2_cert() { # dir ip
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
		-subj /CN=vpath-h2-backend -addext "subjectAltName=IP:$2" \
		-keyout "$1/key.pem" -out "$1/cert.pem" >>"$E2E_DIR/build.log" 2>&1
}

h2_meta='"calls_by": "stream"'
# the calls nginx makes for the front's: each call's hop in the truth
[ -z "$wl_hop_host" ] || h2_meta+=", \"hop_addr\": \"$H2_ORIGIN\""
wl_prepare h2_missing h2_build h2.json h2 $H2_CLIENT_IP $H2_FRONT $H2_BACKEND "$h2_meta"
# What e2e_analyze runs, for whoever analyzes a kept run again.
printf '# vpath-analyze built from commit %s\n%s paths --json DIR/*.vpr >DIR/found.json\n' \
	"$(git rev-parse --short HEAD 2>/dev/null)" "$(realpath "$VPATH_ANALYZE")" >"$E2E_DIR/analyze.cmd"
e2e_log "h2 $variant: seed $seed, $requests requests on $sessions sessions"
wl_run h2.json tests/handoff/client.py --http --traceparent --target "$H2_FRONT" \
	-- "${back_cmd[@]}" -- "${front_cmd[@]}"
