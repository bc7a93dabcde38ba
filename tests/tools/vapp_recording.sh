# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Source after tests/lib.sh.  vapp_recording DIR makes the recordings the
# output tests read: a short vApp run of the demo scenario (nine network
# namespace hosts, the three threading models, now and then a slow back end)
# recorded by vpath-record, when this machine can record (root, BTF); else
# the four-host synthetic recording of tests/tools/gen-synth.c.  Sets
# REC_FILES (the .vpr files) and REC_KIND (vapp or synthetic).
REC_FILES=()
REC_KIND=
vapp_recording() { # DIR
	local dir=$1
	mkdir -p "$dir"
	if [ -z "$(bpf_unavailable)" ] && [ -x "$VPATH_RECORD" ] && [ -x "$OUTPUT/vapp" ]; then
		tests/e2e/run.sh --config tests/e2e/scenarios/demo.conf --sessions 6 --requests 300 \
			--seed 7 --keep "$dir/vapp" >"$dir/vapp.log" 2>&1
		if compgen -G "$dir/vapp/*.vpr" >/dev/null; then
			REC_FILES=("$dir"/vapp/*.vpr)
			REC_KIND=vapp
			return 0
		fi
		sed 's/^/# vapp run: /' "$dir/vapp.log" | tail -5
	fi
	"$OUTPUT/tests/gen-synth" --out "$dir" --events 20000 --concurrency 8 >/dev/null || return 1
	REC_FILES=("$dir"/lg.vpr "$dir"/web.vpr "$dir"/app.vpr "$dir"/db.vpr)
	REC_KIND=synthetic
}

# The OTLP schema: opentelemetry-proto's .proto files as an npm package ships
# them, and protobufjs to load them, installed once per output directory.
# Prints the directory (protos/ and node_modules/ inside) or returns 1.
otlp_schema_dir() {
	local s=$OUTPUT/otlp-schema pkg=@opentelemetry/otlp-grpc-exporter-base@0.38.0
	if [ -d "$s/protos/opentelemetry/proto/collector/trace/v1" ] && [ -d "$s/node_modules/protobufjs" ]; then
		echo "$s"
		return 0
	fi
	command -v npm >/dev/null && command -v node >/dev/null || return 1
	rm -rf "$s.tmp" && mkdir -p "$s.tmp" || return 1
	(cd "$s.tmp" && npm pack --silent "$pkg" >/dev/null 2>&1 && tar xzf ./*.tgz &&
		mv package/build/protos protos && rm -rf package ./*.tgz &&
		npm install --silent --no-audit --no-fund --prefix . protobufjs@7 >/dev/null 2>&1) || {
		rm -rf "$s.tmp"
		return 1
	}
	rm -rf "$s" && mv "$s.tmp" "$s" && echo "$s"
}

# The start of every output test: vpath-analyze is built, the recording is
# made and paths --json of it is in DIR/paths.json.  NAME names the test in
# the failure line.
output_test_begin() { # NAME DIR
	if [ ! -x "$VPATH_ANALYZE" ]; then
		not_ok "$1: build $VPATH_ANALYZE first (make)"
		return 1
	fi
	vapp_recording "$2/rec" || { not_ok "$1: a recording to read"; return 1; }
	echo "# $REC_KIND recording: ${#REC_FILES[@]} hosts"
	"$VPATH_ANALYZE" paths --json "${REC_FILES[@]}" >"$2/paths.json" 2>/dev/null
}
