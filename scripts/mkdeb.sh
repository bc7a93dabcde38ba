#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `make deb`: vpath_VERSION_ARCH.deb from a staged `make install DESTDIR=`,
# with dpkg's own tools (what debhelper would do, without a debian/rules):
# dpkg-shlibdeps computes Depends from the libraries the programs link,
# dpkg-gencontrol writes the control file from debian/control and
# debian/changelog, dpkg-deb builds the archive.  Everything is staged under
# DEB_WORK ($OUTPUT/deb); the programs are built in $OUTPUT/deb-build with the flags
# dpkg-buildflags gives (hardening=+all: stack protector, fortify, relro,
# bind now); the package is written to the top of the tree (DEB_DIR).
#
# Debian's layout rules followed here (Debian Policy, lintian): binaries
# stripped, man pages, the changelog and larger docs compressed with
# gzip -9n, the copyright file in machine-readable format, /etc/default as a
# conffile, every file owned by root, the unit where the distribution's
# systemd looks (pkg-config systemdsystemunitdir: /lib/systemd/system on
# Debian 12).  The unit is not enabled: the maintainer scripts
# (debian/postinst, prerm, postrm) are those dh_installsystemd --no-enable
# --no-start writes; `systemctl enable --now vpath-record` starts it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-.output}
VERSION=${VERSION:-$(cat VERSION)}
DEB_DIR=${DEB_DIR:-.}
work=${DEB_WORK:-$OUTPUT/deb}

die() { echo "mkdeb: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol dpkg-parsechangelog; do
	command -v "$tool" >/dev/null || die "$tool not found: apt install dpkg-dev (make deps)"
done
# One version: VERSION defines it, the changelog's latest entry must agree.
changelog_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "$changelog_version" = "$VERSION" ] ||
	die "VERSION says $VERSION but debian/changelog's latest entry is $changelog_version: add an entry (dch -v $VERSION)"
arch=$(dpkg --print-architecture)
stage=$work/root
rm -rf "$work"
mkdir -p "$stage/DEBIAN"

# The tree as `make install` lays it out, then Debian's adjustments.
export DEB_BUILD_MAINT_OPTIONS=${DEB_BUILD_MAINT_OPTIONS:-hardening=+all}
# In the environment, not on make's command line, so that the Makefile's own
# CFLAGS += (warnings, include paths) still apply.
CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
	LDFLAGS=$(dpkg-buildflags --get LDFLAGS) \
	make -s --no-print-directory OUTPUT="$OUTPUT/deb-build" all >/dev/null
make -s --no-print-directory install DESTDIR="$(realpath "$stage")" PREFIX=/usr \
	OUTPUT="$OUTPUT/deb-build" >/dev/null
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || true)
unitdir=${unitdir:-/lib/systemd/system}
if [ "$unitdir" != /usr/lib/systemd/system ]; then
	mkdir -p "$stage$unitdir"
	mv "$stage/usr/lib/systemd/system/vpath-record.service" "$stage$unitdir/"
	rmdir -p --ignore-fail-on-non-empty "$stage/usr/lib/systemd/system"
fi
for bin in "$stage/usr/sbin/vpath-record" "$stage/usr/bin/vpath-analyze"; do
	strip --remove-section=.comment --remove-section=.note "$bin"
done
doc=$stage/usr/share/doc/vpath
install -m 0644 debian/copyright "$doc/copyright"
install -m 0644 debian/changelog "$doc/changelog" # a native package's changelog
# gzip -9n: no name or time stamp in the archive, so two builds are the same.
find "$stage/usr/share/man" -type f -exec gzip -9n {} +
find "$doc" -type f ! -name copyright \( -name changelog -o -size +4k \) -exec gzip -9n {} +
chmod -R u=rwX,go=rX "$stage"

# Control files: Depends from the linked libraries, then the control file.
(cd "$stage" && find etc -type f -printf '/%p\n' | sort) >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' |
	sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"
install -m 0755 debian/postinst debian/prerm debian/postrm "$stage/DEBIAN/"
dpkg-shlibdeps -T"$work/substvars" -e"$stage/usr/sbin/vpath-record" \
	-e"$stage/usr/bin/vpath-analyze" 2>"$work/shlibdeps.log" ||
	die "dpkg-shlibdeps failed: $(cat "$work/shlibdeps.log")"
dpkg-gencontrol -pvpath -cdebian/control -ldebian/changelog -T"$work/substvars" \
	-f"$work/files" -P"$stage" -DArchitecture="$arch"

deb=$DEB_DIR/vpath_${VERSION}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "  DEB      $deb"
