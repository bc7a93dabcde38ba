#!/usr/bin/env bash
# The syscall tracepoints (the fallback's, --logs') are found through
# tracefs, which a freshly booted machine may not have mounted: the recorder
# mounts it on /sys/kernel/tracing itself, for either.  The test unmounts
# tracefs when nothing holds it (else it is skipped, saying so) and always
# leaves it mounted, as it found it.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record tracefs"
T=/sys/kernel/tracing
d=$(scratch_dir)
on_exit "mountpoint -q $T || mount -t tracefs tracefs $T"

# unmounted: tracefs is gone from both places the recorder looks; else the
# reason it could not be made so.
unmounted() {
	if [ -e /sys/kernel/debug/tracing/events ]; then
		echo "tracefs is reachable under debugfs"
		return 1
	fi
	mountpoint -q "$T" && ! umount "$T" 2>/dev/null && { echo "tracefs is in use"; return 1; }
	[ -e "$T/events" ] && { echo "tracefs stays mounted"; return 1; }
	return 0
}

for opts in "--logs 64" "--force-fallback"; do
	name="record tracefs: $opts without tracefs mounted"
	why=$(unmounted)
	if [ -n "$why" ]; then
		skip "$name" "$why"
		continue
	fi
	# shellcheck disable=SC2086 # the options are words
	"$VPATH_RECORD" -o "$d/rec.vpr" $opts -d 1 >"$d/rec.log" 2>&1
	rc=$?
	check "$name: the recorder records (status $rc: $(head -c 300 "$d/rec.log" | tr '\n' ' '))" \
		test "$rc" -eq 0
	check "$name: tracefs is mounted again" test -e "$T/events"
	rm -f "$d/rec.vpr"
done
