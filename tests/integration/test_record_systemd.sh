#!/usr/bin/env bash
# `make install` into a scratch DESTDIR installs the unit and its options
# file, and systemd accepts the unit (systemd-analyze verify).
cd "$(dirname "$0")/../.."
source tests/lib.sh
if ! command -v systemd-analyze >/dev/null; then
	skip "record systemd unit verifies" "systemd-analyze not installed"
	exit 0
fi
d=$(scratch_dir)
make -s install DESTDIR="$d" PREFIX=/usr OUTPUT="$OUTPUT" >"$d/make.log" 2>&1
check "record systemd: make install DESTDIR" test $? -eq 0
unit=$d/usr/lib/systemd/system/vpath-record.service
check "record systemd: unit installed" test -f "$unit"
check "record systemd: options file installed" test -f "$d/etc/default/vpath-record"
check "record systemd: @SBINDIR@ substituted" grep -q "^ExecStart=/usr/sbin/vpath-record " "$unit"
# verify wants the ExecStart binary to exist: point it at the DESTDIR copy.
sed "s|=/usr/sbin/vpath-record|=$d/usr/sbin/vpath-record|" "$unit" >"$d/vpath-record.service"
# It exits 0 on unknown or unparsable settings, so any message is a failure too.
# Documentation=man:vpath-record(8): verify runs man, which finds the installed page.
if MANPATH=$d/usr/share/man systemd-analyze verify "$d/vpath-record.service" >"$d/verify.log" 2>&1 &&
	! grep -q . "$d/verify.log"; then
	ok "record systemd: systemd-analyze verify"
else
	not_ok "record systemd: systemd-analyze verify: $(head -c 400 "$d/verify.log")"
fi
check "record systemd: unit is hardened" grep -q "^ProtectSystem=strict" "$unit"
check "record systemd: recordings private (UMask=0077)" grep -q "^UMask=0077" "$unit"
check "record systemd: no IP traffic (IPAddressDeny=any)" grep -q "^IPAddressDeny=any" "$unit"

# The exposure systemd gives the unit as installed (issue 16: at most 2.5).
max_exposure=2.5
systemd-analyze security --offline=yes "$d/vpath-record.service" >"$d/security.log" 2>&1
score=$(sed -n 's/.*Overall exposure level for vpath-record.service: \([0-9.]*\).*/\1/p' "$d/security.log")
check "record systemd: exposure ${score:-?} <= $max_exposure (systemd-analyze security --offline)" \
	awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s != "" && s + 0 <= m + 0) }'

# The recorder still records under the unit's sandbox.  No systemd manager
# runs here (containers, CI), so tests/tools/unit_sandbox.py applies the
# unit's settings that could stop it: capability bounding set, system-call
# filter, address families, read-only file system, umask, no_new_privs.
source tests/tools/record_helpers.sh
why=$(bpf_unavailable)
if [ -z "$why" ] && ! /usr/bin/python3 -c 'import seccomp' 2>/dev/null; then
	why="python3-seccomp not installed (make deps)"
fi
if [ -n "$why" ]; then
	skip "record systemd: recorder under the unit's sandbox" "$why"
	exit 0
fi
sandbox() { /usr/bin/python3 tests/tools/unit_sandbox.py "$d/vpath-record.service" --rw "$d/out" -- "$@"; }
mkdir -p "$d/out"
# The sandbox is real: what the unit forbids fails in it.
# CAP_BPF CAP_PERFMON, and for the probe helper CAP_SYS_ADMIN CAP_SYS_PTRACE CAP_DAC_READ_SEARCH
check "record systemd: sandbox has only the unit's five capabilities" \
	test "$(sandbox grep CapBnd /proc/self/status 2>/dev/null | awk '{ print $2 }')" = 000000c000280004
check "record systemd: sandbox refuses IP sockets" \
	test "$(sandbox /usr/bin/python3 -c 'import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
except OSError as e:
    print("refused")' 2>/dev/null)" = refused
check "record systemd: sandbox file system is read-only outside the state directory" \
	sandbox bash -c '! touch /var/vpath-sandbox-probe 2>/dev/null && touch "$0/probe"' "$d/out"

cat >"$d/sandboxed-record" <<SH
#!/bin/sh
cd "$PWD" && exec /usr/bin/python3 tests/tools/unit_sandbox.py "$d/vpath-record.service" --rw "$d/out" -- "$PWD/$VPATH_RECORD" "\$@"
SH
chmod +x "$d/sandboxed-record"
VPATH_RECORD=$d/sandboxed-record
port=$(free_port)
rounds=20
check "record systemd: a connection is up before recording" connect_and_wait "$d" "$port" "$rounds"
spid=$SERVER_PID cpid=$CLIENT_PID
must_start_recorder "record systemd sandbox" "$d/out/rec" "$d/rec.log" --ring 3 --segment-size 64K \
	-p "$spid" -p "$cpid"
touch "$d/go"
wait "$cpid"
wait "$spid"
stop_recorder
check "record systemd: sandboxed recorder stops cleanly ($(tail -1 "$d/rec.log"))" test $? -eq 0
check "record systemd: sandboxed recording is 0600" test "$(stat -c %a "$d/out/rec.000")" = 600
"$VPATH_ANALYZE" dump "$d/out/rec.000" >"$d/dump.txt" 2>/dev/null
check "record systemd: sandboxed recording has the host's addresses" grep -q "^addr " "$d/dump.txt"
$CHECK_TCPMSG "$d/dump.txt" "$d/client.log" "$d/server.log" "$rounds" --preexisting \
	--name "record systemd sandbox"

# Ring segments after the first are made and removed after the recorder
# dropped its privileges, and the unit no longer grants CAP_DAC_OVERRIDE.
port=$(free_port)
must_start_recorder "record systemd sandbox ring" "$d/out/ring" "$d/ring.log" --ring 3 \
	--segment-size 64K --port "$port"
start_traffic "$d" "$port" 100
for _ in $(seq 150); do
	[ -e "$d/out/ring.004" ] && break
	sleep 0.1
done
stop_recorder
check "record systemd: sandboxed ring stops cleanly ($(tail -1 "$d/ring.log"))" test $? -eq 0
segments=$(ls "$d/out" | grep -c '^ring\.[0-9]*$')
check "record systemd: sandboxed ring rotated and removed old segments (ring.004 exists, $segments kept)" \
	test -e "$d/out/ring.004" -a "$segments" -le 3

# A Go service (re)started while the unit records: found at its exec, its
# goroutines followed, under the unit's capabilities (issue 27).
if ! command -v go >/dev/null; then
	skip "record systemd: a Go program started later is followed" "no Go compiler (golang-go)"
	exit 0
fi
if ! build_gorecord "$d/go-build"; then
	not_ok "record systemd: gorecord builds ($(head -c 300 "$d/go-build/build.log"))"
	exit 0
fi
port=$(free_port)
rm -f "$d/go"
must_start_recorder "record systemd sandbox go" "$d/out/go.vpr" "$d/go.log" -v
"$d/go-build/gorecord" "127.0.0.1:$port" "$rounds" "$d/go" >"$d/go-truth.txt" 2>"$d/go-prog.err" &
gpid=$!
on_exit "kill -KILL $gpid"
wait_for "$d/go-truth.txt" listening && wait_for "$d/go.log" "(PID $gpid, started after the recorder)"
touch "$d/go"
wait_for "$d/go-truth.txt" '^done'
wait "$gpid"
stop_recorder
check "record systemd: sandboxed recorder follows a Go program started later" \
	grep -q "(PID $gpid, started after the recorder).*goroutines followed" "$d/go.log"
"$VPATH_ANALYZE" dump "$d/out/go.vpr" >"$d/go-dump.txt" 2>/dev/null
python3 tests/golang/check_gorecord.py "$d/go-dump.txt" "$d/go-truth.txt" "$gpid" "$rounds" |
	sed 's/^\(not \)\?ok - /&record systemd, a Go program started later: /'
