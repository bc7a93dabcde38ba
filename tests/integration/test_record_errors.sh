#!/usr/bin/env bash
# What a user does wrong, and a full disk: a one-line error and a non-zero
# exit, never a crash; on a full disk the recording stays valid.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh

d=$(scratch_dir)
chmod 755 "$d"

# expect_error NAME PATTERN COMMAND...: fails with one error line on stderr
# (besides "recording to"), matching PATTERN.
expect_error() {
	local name=$1 pattern=$2 rc
	shift 2
	timeout 20 "$@" >"$d/out" 2>"$d/err"
	rc=$?
	grep -v "recording to" "$d/err" >"$d/err1"
	if [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && [ "$(grep -c . "$d/err1")" -eq 1 ] &&
		grep -q "$pattern" "$d/err1"; then
		ok "record errors: $name"
	else
		not_ok "record errors: $name (exit $rc: $(head -c 300 "$d/err"))"
	fi
}

# Usage errors need no privileges (argp adds a "Try --help" line).
for args in "" "-o" "-o $d/x.vpr -d 5x" "-o $d/x.vpr --port 70000" "-o $d/x.vpr --segment-size 1M" \
	"-o $d/x.vpr --ring 1" "-o $d/x.vpr --ringbuf-size 3M" "-o $d/x.vpr extra"; do
	# shellcheck disable=SC2086
	timeout 10 "$VPATH_RECORD" $args >/dev/null 2>"$d/err"
	rc=$?
	check "record errors: usage '$args' exits 64 with a reason" \
		test "$rc" -eq 64 -a "$(head -1 "$d/err" | grep -c 'vpath-record: ')" -eq 1
done
check "record errors: --help has EXAMPLES" sh -c "'$VPATH_RECORD' --help | grep -q EXAMPLES"

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "record errors: as root" "$why"
	exit 0
fi
if command -v setpriv >/dev/null; then
	expect_error "non-root is refused" "run as root" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$VPATH_RECORD" -d 1 -o "$d/nobody.vpr"
else
	skip "record errors: non-root is refused" "setpriv not installed"
fi
expect_error "unwritable output path" "cannot write $d/no/such/dir.vpr" \
	"$VPATH_RECORD" -d 5 -o "$d/no/such/dir.vpr"
expect_error "unknown netns" "netns" "$VPATH_RECORD" -d 5 --netns vpr-none-$$ -o "$d/x.vpr"
expect_error "bad cgroup" "cgroup" "$VPATH_RECORD" -d 5 --cgroup "$d/nocg" -o "$d/x.vpr"

# A 1 MiB tmpfs filled by sustained traffic: clean stop, valid file.
mkdir "$d/small"
if mount -t tmpfs -o size=1m vpath-test "$d/small"; then
	on_exit "umount '$d/small'"
	port=$(free_port)
	start_traffic "$d" "$port" 0
	expect_error "full disk stops cleanly" "disk full" \
		"$VPATH_RECORD" -d 30 --port "$port" -o "$d/small/full.vpr"
	"$VPATH_ANALYZE" dump "$d/small/full.vpr" >"$d/full.txt" 2>/dev/null
	check "record errors: full-disk recording is intact" grep -q "^status  ok" "$d/full.txt"
	check "record errors: full-disk recording has the traffic" grep -q "^sock_op" "$d/full.txt"
else
	skip "record errors: full disk" "cannot mount a tmpfs here"
fi
