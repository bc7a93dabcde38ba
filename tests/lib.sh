# Shared helpers for the shell tests: TAP output, root checks, cleanup.
# Source it; every test file prints "ok - ..." / "not ok - ..." lines.
set -u
OUTPUT=${OUTPUT:-.output}
VPATH_RECORD=${VPATH_RECORD:-$OUTPUT/vpath-record}
VPATH_ANALYZE=${VPATH_ANALYZE:-$OUTPUT/vpath-analyze}

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { # name, reason
	echo "ok - $1 # SKIP $2"
}
# check NAME COMMAND...: ok when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# kv KEY LINE: the value of KEY=value in a line of key=value words (empty if absent).
kv() {
	local w
	for w in $2; do
		case $w in "$1="*) echo "${w#*=}"; return 0 ;; esac
	done
}

# Why BPF tests cannot run here, or nothing when they can.
bpf_unavailable() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "needs root (CAP_BPF, CAP_PERFMON): run as root, as CI does"
	elif [ ! -r /sys/kernel/btf/vmlinux ]; then
		echo "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	fi
}

# Cleanup actions run in reverse order on exit, interrupt or failure.
_cleanups=()
on_exit() { _cleanups+=("$*"); }
_run_cleanups() {
	local i
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_cleanups[$i]}" >/dev/null 2>&1 || true
	done
}
trap _run_cleanups EXIT
trap 'exit 130' INT TERM

# A private scratch directory, removed at exit.  Callers write d=$(scratch_dir),
# and an on_exit inside $(...) would be lost with the subshell: so every
# scratch directory lives under one base that this (parent) shell removes.
_scratch_base=
scratch_dir() {
	[ -n "$_scratch_base" ] || return 1
	mktemp -d "$_scratch_base/d.XXXXXX"
}
_scratch_base=$(mktemp -d /tmp/vpath-test.XXXXXX) && on_exit "rm -rf '$_scratch_base'"
