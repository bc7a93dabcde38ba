#!/usr/bin/env bash
# `make deb` builds a package that holds both programs, their man pages, the
# completion, the unit (not enabled) and its conffile; unpacked alone into a
# scratch root (dpkg -x), both programs run from there; lintian finds no error.
# About 1 minute the first time (the programs are built with dpkg-buildflags
# in OUTPUT/deb-build), 20 s more for lintian.
cd "$(dirname "$0")/../.."
source tests/lib.sh

for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol; do
	if ! command -v $tool >/dev/null; then
		skip "deb: make deb" "$tool not installed (make deps installs dpkg-dev)"
		exit 0
	fi
done
d=$(scratch_dir)
version=$(cat VERSION)
arch=$(dpkg --print-architecture)
deb=$d/vpath_${version}_${arch}.deb
if DEB_DIR=$d DEB_WORK=$d/work make -s deb OUTPUT="$OUTPUT" >"$d/make.log" 2>&1 && [ -f "$deb" ]; then
	ok "deb: make deb built $(basename "$deb")"
else
	not_ok "deb: make deb: $(tail -c 600 "$d/make.log")"
	exit 1
fi
field() { dpkg-deb -f "$deb" "$1"; }
check "deb: Version is VERSION ($version)" test "$(field Version)" = "$version"
depends=$(field Depends)
for lib in libbpf libelf libcjson libsqlite3 libnghttp2 zlib1g libc6; do
	check "deb: Depends names $lib (dpkg-shlibdeps)" grep -q "\b$lib" <<<"$depends"
done
# Opened when otlp --endpoint posts (analyzer/out/otlp_post.c), not linked: named in debian/control.
check "deb: Depends names libcurl4 (debian/control)" grep -q "\blibcurl4\b" <<<"$depends"

check "deb: the description states the kernel needs" grep -q 'BTF' <<<"$(field Description)"

mkdir "$d/ctrl" "$d/root"
dpkg-deb -e "$deb" "$d/ctrl"
check "deb: /etc/default/vpath-record is a conffile" grep -qx /etc/default/vpath-record "$d/ctrl/conffiles"
# Installing neither starts the unit nor enables it (an upgrade keeps it
# enabled if it was: deb-systemd-helper enable only after was-enabled).
starts=$(grep -hE 'systemctl .*(enable|start)|deb-systemd-invoke (start|restart)' "$d/ctrl"/p* || true)
check "deb: no maintainer script starts the unit${starts:+: $starts}" test -z "$starts"
check "deb: postinst enables the unit only if it was enabled" \
	test "$(grep -c 'deb-systemd-helper enable' "$d/ctrl/postinst")" -eq 1 -a \
	"$(grep -B1 'deb-systemd-helper enable' "$d/ctrl/postinst" | grep -c was-enabled)" -eq 1
check "deb: every file owned by root" test -z "$(dpkg-deb -c "$deb" | awk '$2 != "root/root"')"

# Unpacked alone into a scratch root.
dpkg -x "$deb" "$d/root"
r=$d/root
for f in usr/sbin/vpath-record usr/bin/vpath-analyze usr/bin/vpath-clickhouse \
	usr/share/man/man8/vpath-record.8.gz usr/share/man/man1/vpath-analyze.1.gz \
	usr/share/man/man1/vpath-clickhouse.1.gz usr/share/doc/vpath/copyright \
	usr/share/doc/vpath/changelog.gz usr/share/bash-completion/completions/vpath-analyze \
	usr/share/bash-completion/completions/vpath-record \
	usr/share/bash-completion/completions/vpath-clickhouse etc/default/vpath-record; do
	check "deb: holds /$f" test -e "$r/$f"
done
unit=$(find "$r" -name vpath-record.service -path '*/systemd/system/*' | head -1)
check "deb: holds the unit (${unit#"$r"})" test -n "$unit"
check "deb: unit runs /usr/sbin/vpath-record" grep -q '^ExecStart=/usr/sbin/vpath-record ' "${unit:-/dev/null}"
check "deb: unit is hardened" grep -q '^ProtectSystem=strict' "${unit:-/dev/null}"

# The programs run from the root, and name the package and format versions.
vpr=$(sed -nE 's/^#define VPR_VERSION ([0-9]+).*/\1/p' include/vpath/record.h)
for prog in usr/sbin/vpath-record usr/bin/vpath-analyze; do
	name=$(basename $prog)
	check "deb: $name --help runs from the root" \
		bash -c '"$1" --help | grep -q "$2"' _ "$r/$prog" "$name"
	out=$("$r/$prog" --version 2>&1)
	check "deb: $name --version: $out" grep -qx "$name $version (recording format $vpr.*)" <<<"$out"
done
check "deb: vpath-clickhouse --help runs from the root" \
	bash -c '"$1" --help | grep -q "^Usage: vpath-clickhouse"' _ "$r/usr/bin/vpath-clickhouse"
if command -v man >/dev/null; then
	for page in "$r"/usr/share/man/man*/*.gz; do
		MANWIDTH=80 man --warnings -l "$page" >"$d/page.txt" 2>"$d/page.warn"
		check "deb: man -l renders ${page#"$r"} without warnings" \
			test -s "$d/page.txt" -a ! -s "$d/page.warn"
	done
else
	skip "deb: man -l renders the pages" "man not installed"
fi
# bash-completion's loader finds the completion of each command by its name.
if [ -f /usr/share/bash-completion/bash_completion ]; then
	loaded=$(XDG_DATA_DIRS=$r/usr/share bash --norc --noprofile -c '
		source /usr/share/bash-completion/bash_completion
		for c in vpath-record vpath-analyze vpath-clickhouse; do
			__load_completion $c && complete -p $c
		done' 2>&1)
	check "deb: bash-completion loads the three completions" \
		test "$(grep -c '^complete -F _vpath_' <<<"$loaded")" -eq 3
else
	skip "deb: bash-completion loads the three completions" "bash-completion not installed"
fi

if command -v lintian >/dev/null; then
	# As root lintian says so on standard error; that line is no finding.
	# TMPDIR: lintian leaves a file of its ELF cache (mldbm-elf-*) behind in it.
	TMPDIR=$d lintian -E --pedantic "$deb" >"$d/lintian.log" 2>&1
	grep -v 'root privileges is not recommended' "$d/lintian.log" | sed 's/^/# lintian: /'
	errors=$(grep -c '^E: ' "$d/lintian.log")
	check "deb: lintian reports no error ($errors)" test "$errors" -eq 0
else
	skip "deb: lintian" "lintian not installed (make deps)"
fi
