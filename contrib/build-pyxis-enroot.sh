#!/usr/bin/env bash
# contrib/build-pyxis-enroot.sh - build NVIDIA's enroot and pyxis from the
# vendored upstream tarballs for lagom's container tests
# (tests/integration/pyxis.sh; doc/containers.md).  Neither is a Debian
# package; the tests build them on the machine they run on.
#
#   contrib/build-pyxis-enroot.sh CACHE_DIR
#
# LAGOM_VENDOR_DIR (default: ../shared/vendor beside the source tree; the
# release chroots bind it at /vendor: contrib/slurm-release.sh) holds
# enroot-4.1.2.tar.gz and pyxis-0.24.0.tar.gz.  Builds, once per cache:
#   CACHE_DIR/enroot-4.1.2/bin/enroot (and enroot-mount, ...), sysconfdir
#     CACHE_DIR/enroot-4.1.2/etc/enroot: the helpers with the system
#     compiler (FORCE_GLIBC=1), Debian's libbsd-dev and makeself standing
#     in for enroot's git submodules;
#   CACHE_DIR/pyxis-0.24.0-slurm-RELEASE/spank_pyxis.so, against this
#     machine's slurm/spank.h (RELEASE from slurm/slurm_version.h: a
#     release chroot builds its own).
# Prints the two paths (enroot's bin directory, then pyxis's plugin).
# Exit 77 with the reason on stderr when something it needs is missing.
set -euo pipefail

die_skip() {
	echo "build-pyxis-enroot: $*" >&2
	exit 77
}

[ $# -eq 1 ] || {
	echo "usage: $0 CACHE_DIR" >&2
	exit 2
}
cache=$1
here=$(cd "$(dirname "$0")/.." && pwd)
vendor=${LAGOM_VENDOR_DIR:-$here/../shared/vendor}
enroot_tgz=$vendor/enroot-4.1.2.tar.gz
pyxis_tgz=$vendor/pyxis-0.24.0.tar.gz
for f in "$enroot_tgz" "$pyxis_tgz"; do
	[ -f "$f" ] || die_skip "no vendored source $f (a clone without ../shared/vendor)"
done
for t in make gcc tar sed; do
	command -v "$t" >/dev/null 2>&1 || die_skip "$t not installed"
done
# bookworm has libbsd's headers in /usr/include/bsd, trixie and sid in the
# multiarch include directory
ma=$(gcc -print-multiarch 2>/dev/null)
[ -f /usr/include/bsd/string.h ] || [ -f "/usr/include/$ma/bsd/string.h" ] ||
	die_skip "libbsd-dev not installed (contrib/install-deps.sh)"
makeself=$(command -v makeself || true)
[ -n "$makeself" ] || die_skip "makeself not installed (contrib/install-deps.sh)"
[ -f /usr/include/slurm/spank.h ] || die_skip "no slurm/spank.h (libslurm-dev)"
num=$(sed -n 's/^#define SLURM_VERSION_NUMBER 0x\([0-9a-fA-F]*\)$/\1/p' \
	/usr/include/slurm/slurm_version.h 2>/dev/null)
[ -n "$num" ] || die_skip "no slurm/slurm_version.h: no release to build pyxis for"
release=$(printf '%d.%02d.%d' $((16#$num >> 16)) $(((16#$num >> 8) & 255)) \
	$((16#$num & 255)))

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
log=$cache/build.log
: >>"$log"

# --- enroot ---------------------------------------------------------------
eprefix=$cache/enroot-4.1.2
if [ ! -x "$eprefix/bin/enroot-mount" ]; then
	work=$(mktemp -d "$cache/enroot-build.XXXXXX")
	tar xzf "$enroot_tgz" -C "$work"
	src=$work/enroot-4.1.2
	install -m 0755 -D "$makeself" "$src/deps/dist/makeself/bin/enroot-makeself"
	# -o deps: the submodules' build is skipped (not in the tarball);
	# CPPFLAGS/LDLIBS: the system's libbsd instead of the submodule's
	if ! make -C "$src" -o deps FORCE_GLIBC=1 \
		CPPFLAGS=-D_FORTIFY_SOURCE=2 LDLIBS=-lbsd \
		prefix="$eprefix" sysconfdir="$eprefix/etc" install >>"$log" 2>&1; then
		rm -rf "$work" "$eprefix"
		echo "build-pyxis-enroot: enroot did not build (see $log)" >&2
		exit 1
	fi
	rm -rf "$work"
fi

# --- pyxis, against this release's spank.h --------------------------------
pdir=$cache/pyxis-0.24.0-slurm-$release
if [ ! -f "$pdir/spank_pyxis.so" ]; then
	work=$(mktemp -d "$cache/pyxis-build.XXXXXX")
	tar xzf "$pyxis_tgz" -C "$work"
	if ! make -C "$work/pyxis-0.24.0" >>"$log" 2>&1; then
		rm -rf "$work"
		echo "build-pyxis-enroot: pyxis did not build against Slurm $release (see $log)" >&2
		exit 1
	fi
	mkdir -p "$pdir"
	install -m 0644 "$work/pyxis-0.24.0/spank_pyxis.so" "$pdir/"
	rm -rf "$work"
fi
echo "$eprefix/bin"
echo "$pdir/spank_pyxis.so"
