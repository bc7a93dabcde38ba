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
if systemd-analyze verify "$d/vpath-record.service" >"$d/verify.log" 2>&1 &&
	! grep -q . "$d/verify.log"; then
	ok "record systemd: systemd-analyze verify"
else
	not_ok "record systemd: systemd-analyze verify: $(head -c 400 "$d/verify.log")"
fi
check "record systemd: unit is hardened" grep -q "^ProtectSystem=strict" "$unit"
