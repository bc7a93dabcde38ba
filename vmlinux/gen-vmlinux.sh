#!/usr/bin/env bash
# Regenerates vmlinux/<arch>/vmlinux.h from a kernel's BTF, so that builds need
# no BTF on the build machine.  CO-RE relocations adapt the programs to the
# running kernel at load time, so one header serves every kernel of an arch.
# Usage: vmlinux/gen-vmlinux.sh [BTF_FILE]   (default /sys/kernel/btf/vmlinux)
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
out="$(dirname "$0")/$arch/vmlinux.h"
[ -r "$btf" ] || { echo "gen-vmlinux: cannot read $btf: kernel without BTF?" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
