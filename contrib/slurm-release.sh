#!/usr/bin/env bash
# contrib/slurm-release.sh - build, test and run lagom on another Slurm
# release, in a Debian chroot with that release's own packages.
#
#   slurm-release.sh RELEASE ACTION...       run the actions in order
#   slurm-release.sh RELEASE run CMD...      run CMD (bash -c) in the chroot
#   slurm-release.sh RELEASE tarball         only make (or refresh) the cache
#   slurm-release.sh list                    releases, suites, cache state
#
# RELEASE: 22.05 or bookworm, 24.11 or trixie, 26.05 or sid.
# ACTION:  build    ./configure --enable-werror && make (in /build/lagom)
#          check    make check, integration tests included (a real
#                   slurmctld, slurmd, slurmdbd and MariaDB of that release)
#          demo     contrib/demo-cluster.sh demo
#          deb      dpkg-buildpackage -us -uc -b; the .debs installed and
#                   the installed plugin run through one real-cluster step
#                   (tests/packaging/installed.sh); the .debs land in OUT
#          foreign  tests/packaging/foreign-plugin.sh: LAGOM_FOREIGN_PLUGIN, a
#                   lagom.so built for another release, loaded "optional"
#          bench    make bench-launch (bench/bench_launch.sh): lagom's launch
#                   overhead on that release's cluster; the LAGOM_BENCH_*
#                   knobs of the host's environment pass through
#          soak     make bench-soak (bench/bench_soak.sh): 1000 steps with
#                   and 1000 without --lagom=auto, every failure with srun's
#                   message; LAGOM_SOAK_* and LAGOM_BENCH_* pass through
#          nodes    make bench-nodes (bench/bench_nodes.sh): a 50 ms step at
#                   4, 16, 64 and 128 nodes (128 slurmd in the chroot)
#          shell    an interactive shell (not without a terminal)
#
# The chroot is made with mmdebstrap from Debian's archive, with lagom's
# build and test dependencies and Slurm, munge and MariaDB inside; it is kept
# as a tarball (LAGOM_CHROOT_CACHE, default /var/cache/lagom:
# chroot-SUITE-KEY.tar, KEY a hash of the package list and set-up, so a
# change makes a new one).  Every run unpacks it afresh, so
# no run sees what another left.  The run is entered in its own network,
# PID, mount, UTS and IPC namespaces, the unpacked tree made the root of its
# mount namespace with pivot_root and the host's root detached (so, unlike
# under chroot, a process in it may make a user namespace: enroot's, under
# pyxis); its daemons listen on a loopback of
# their own and cannot meet a cluster on the host's; when the command ends,
# or LAGOM_CHROOT_TIMEOUT (default 3600 s) passes, the kernel ends every
# process in it, its mounts go with its mount namespace, and the unpacked
# tree is removed.  The source tree is bind-mounted read-only at /src and its
# files (tracked and untracked, not ignored) copied to /build/lagom, so the
# chroot's own autotools make its configure and nothing is written into the
# host's tree; OUT (LAGOM_CHROOT_OUT, default ./_release/SUITE) is
# bind-mounted at /out and receives the logs and the packages.
#
# Runs as root on Debian (it calls mmdebstrap, unshare and pivot_root);
# installs mmdebstrap with apt-get when it is missing.  doc/slurm-releases.md says
# what each release needs and why.
#
# Knobs (environment):
#   LAGOM_CHROOT_CACHE=DIR      where the tarballs live (/var/cache/lagom)
#   LAGOM_CHROOT_MIRROR=URL     Debian mirror (http://deb.debian.org/debian)
#   LAGOM_CHROOT_TIMEOUT=S      bound on one run (3600)
#   LAGOM_CHROOT_OUT=DIR        logs and packages (SRC/_release/SUITE)
#   LAGOM_CHROOT_REFRESH=1      make the tarball again even if it is current
#   LAGOM_CHROOT_TMP=DIR        where runs are unpacked (/var/tmp)
#   LAGOM_FOREIGN_PLUGIN=PATH   the lagom.so of the foreign action
set -euo pipefail

die() {
	echo "slurm-release: $*" >&2
	exit 1
}
say() { echo "slurm-release: $*" >&2; }

src=$(cd "$(dirname "$0")/.." && pwd)
cache=${LAGOM_CHROOT_CACHE:-/var/cache/lagom}
mirror=${LAGOM_CHROOT_MIRROR:-http://deb.debian.org/debian}
run_timeout=${LAGOM_CHROOT_TIMEOUT:-3600}
tmpbase=${LAGOM_CHROOT_TMP:-/var/tmp}

# RELEASE -> suite and Slurm series
suite_of() {
	case "$1" in
	22.05 | bookworm) echo bookworm ;;
	24.11 | trixie) echo trixie ;;
	26.05 | sid | unstable) echo sid ;;
	*) return 1 ;;
	esac
}
series_of() {
	case "$1" in
	bookworm) echo 22.05 ;;
	trixie) echo 24.11 ;;
	sid) echo 26.05 ;;
	esac
}

# What the chroot holds: lagom's build and test dependencies (those of
# contrib/install-deps.sh that the release's tests use; the clang builds,
# clang-format and lintian run on the host only), Slurm, munge, MariaDB.
packages=(
	build-essential autoconf automake libtool pkg-config git ca-certificates
	libslurm-dev libhwloc-dev hwloc libjansson-dev libcmocka-dev
	libyajl-dev zlib1g-dev
	valgrind python3 iproute2 procps util-linux strace jq gawk binutils file
	slurmctld slurmd slurmdbd slurm-client munge mariadb-server mariadb-client
	slurm-wlm-basic-plugins lua5.1
	debhelper fakeroot dpkg-dev librsvg2-bin
	# the fuzz smoke tests (libFuzzer)
	clang libclang-rt-dev
	# Slurm's OCI containers (tests/integration/oci.sh); busybox-static's
	# umount also detaches the host's root after pivot_root (inner)
	runc crun busybox-static
	# the real pyxis + enroot (tests/integration/pyxis.sh builds them from
	# the vendored sources, bound at /vendor, and makes a squashfs image)
	libbsd-dev makeself squashfs-tools
)

# The set-up done inside the new chroot (mmdebstrap --customize-hook); part
# of the cache key, so a change here makes the tarball again.
# shellcheck disable=SC2016 # expanded by mmdebstrap's shell, $1 = the root
customize='
set -e
root=$1
printf "127.0.0.1\tlocalhost\n127.0.1.1\tlagom-release\n::1\tlocalhost ip6-localhost ip6-loopback\n" >"$root/etc/hosts"
echo lagom-release >"$root/etc/hostname"
rm -f "$root/etc/munge/munge.key" "$root/etc/slurm/slurm.conf"
rm -rf "$root/var/lib/mysql"/* "$root/var/cache/apt/archives"/*.deb
chroot "$root" dpkg-query -W -f "\${Package} \${Version}\n" >"$root/etc/lagom-release-packages"
'

keyring_for() {
	local k
	for k in /usr/share/keyrings/debian-archive-keyring.gpg \
		/usr/share/keyrings/debian-archive-keyring.pgp; do
		[ -f "$k" ] && { echo "$k"; return; }
	done
}

# apt options per suite.  sid's Release file carries a Valid-Until a few
# days ahead and the archive re-signs it daily; a machine whose clock runs
# ahead of the archive it reaches (a mirror snapshot) sees it expired.  The
# signature is still checked.
suite_aptopts() { # SUITE
	case "$1" in
	sid) echo 'Acquire::Check-Valid-Until "false"' ;;
	esac
}

cache_key() { # SUITE
	{
		printf '%s\n' "$1" "$mirror" "${packages[@]}" "$customize"
		[ -z "$(suite_aptopts "$1")" ] || suite_aptopts "$1"
	} | sha256sum | cut -c1-16
}

ensure_mmdebstrap() {
	command -v mmdebstrap >/dev/null 2>&1 && return
	say "installing mmdebstrap (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		mmdebstrap >&2 || die "apt-get install mmdebstrap failed"
}

# The cached tarball of SUITE with the current package list and set-up:
# CACHE/chroot-SUITE-KEY.tar.  The key is in the name, so trees whose lists
# differ (two branches on one machine) each keep their own tarball instead
# of making each other's again; the two newest per suite are kept.
tarball_of() { # SUITE
	echo "$cache/chroot-$1-$(cache_key "$1").tar"
}

# Make it if it is missing (or LAGOM_CHROOT_REFRESH is set).  One maker at a
# time per suite (flock); a half-written tarball is never left in place.
ensure_tarball() { # SUITE
	local suite=$1 tar t0 include keyring old
	tar=$(tarball_of "$suite")
	mkdir -p "$cache"
	exec 7>"$cache/chroot-$suite.lock"
	flock -w 3600 7 || die "another maker held $cache/chroot-$suite.lock for an hour"
	# a tarball of the earlier naming (chroot-SUITE.tar and .tar.key)
	if [ ! -f "$tar" ] && [ -f "$cache/chroot-$suite.tar" ] &&
		[ "$(cat "$cache/chroot-$suite.tar.key" 2>/dev/null)" = "$(cache_key "$suite")" ]; then
		mv -f "$cache/chroot-$suite.tar" "$tar"
		rm -f "$cache/chroot-$suite.tar.key"
	fi
	if [ -f "$tar" ] && [ -z "${LAGOM_CHROOT_REFRESH:-}" ]; then
		flock -u 7
		return 0
	fi
	ensure_mmdebstrap
	keyring=$(keyring_for) || true
	[ -n "$keyring" ] || die "no Debian archive keyring in /usr/share/keyrings (apt-get install debian-archive-keyring)"
	include=$(
		IFS=,
		echo "${packages[*]}"
	)
	say "making the $suite chroot ($tar); this downloads about 600 MB"
	t0=$SECONDS
	rm -f "$tar.new"
	local opts=(--aptopt='Acquire::Retries "3"')
	[ -z "$(suite_aptopts "$suite")" ] || opts+=(--aptopt="$(suite_aptopts "$suite")")
	if ! timeout 3600 mmdebstrap --mode=root --variant=apt --format=tar \
		--keyring="$keyring" --include="$include" "${opts[@]}" \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--customize-hook="$customize" \
		"$suite" "$tar.new" "deb $mirror $suite main" >"$tar.log" 2>&1; then
		tail -30 "$tar.log" >&2
		rm -f "$tar.new"
		die "mmdebstrap $suite failed; log in $tar.log"
	fi
	mv -f "$tar.new" "$tar"
	say "made the $suite chroot in $((SECONDS - t0)) s ($(du -h "$tar" | cut -f1))"
	# the two newest of this suite stay
	for old in $(ls -t "$cache/chroot-$suite"-*.tar 2>/dev/null | tail -n +3); do
		rm -f "$old" "$old.log"
	done
	flock -u 7
}

# --- inside the namespaces ---------------------------------------------------

# Runs as PID 1 of the new PID namespace, in the new mount, network, UTS and
# IPC namespaces (unshare ... --mount-proc), as root of the host.
inner() {
	local root=$1 out=$2
	shift 2
	mount --make-rprivate /
	# the tree a mount point: pivot_root needs one (below), as do runc and
	# crun for their own
	mount --bind "$root" "$root"
	hostname lagom-release
	# loopback up, and one more address: with only 127.0.0.1, getaddrinfo
	# (AI_ADDRCONFIG) finds no IPv4 address, and slurmctld 24.11+ none to
	# bind (doc/slurm-releases.md).  192.0.2.1 is TEST-NET-1, on lo only.
	ip link set lo up
	ip addr add 192.0.2.1/32 dev lo
	mount -t proc proc "$root/proc"
	mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
	# the host's cgroups: runc and crun need them (tests/integration/oci.sh)
	[ ! -d /sys/fs/cgroup ] || mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
	mount -t tmpfs -o mode=0755,nosuid dev "$root/dev"
	local d
	for d in null zero full random urandom tty; do
		touch "$root/dev/$d"
		mount --bind "/dev/$d" "$root/dev/$d"
	done
	mkdir -p "$root/dev/pts" "$root/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
	ln -s pts/ptmx "$root/dev/ptmx"
	ln -s /proc/self/fd "$root/dev/fd"
	ln -s /proc/self/fd/0 "$root/dev/stdin"
	ln -s /proc/self/fd/1 "$root/dev/stdout"
	ln -s /proc/self/fd/2 "$root/dev/stderr"
	mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
	mount -t tmpfs -o mode=0755,nosuid,nodev run "$root/run"
	mkdir -p "$root/run/lock" "$root/run/munge" "$root/run/mysqld"
	chmod 1777 "$root/run/lock"
	mount -t tmpfs -o mode=1777,nosuid tmp "$root/tmp"
	mkdir -p "$root/src" "$root/out" "$root/vendor"
	mount --bind -o ro "$src" "$root/src"
	mount -o remount,bind,ro "$root/src"
	mount --bind "$out" "$root/out"
	# pyxis and enroot sources (../shared/vendor): where absent, the pyxis
	# test skips, saying so
	if [ -d "$src/../shared/vendor" ]; then
		mount --bind -o ro "$src/../shared/vendor" "$root/vendor"
		mount -o remount,bind,ro "$root/vendor"
	fi
	# Into the tree with pivot_root, not chroot: the tree becomes the root
	# of this mount namespace and the host's root is detached from it, so
	# nothing of the host is reachable, and the kernel lets a process in
	# it make a user namespace (it refuses CLONE_NEWUSER to a chrooted
	# process, whose root is not its mount namespace's: enroot-nsenter
	# under pyxis, tests/integration/pyxis.sh).  The tree has no mount(8)
	# on sid; its busybox-static's umount detaches the old root.
	mkdir -p "$root/.old-root"
	cd "$root"
	pivot_root . .old-root
	cd /
	/bin/busybox umount -l /.old-root
	rmdir /.old-root
	exec /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
		LAGOM_RELEASE_SUITE="$suite" LAGOM_RELEASE_SERIES="$(series_of "$suite")" \
		LAGOM_VENDOR_DIR=/vendor bash -c "$*"
}

# --- actions (run inside the chroot: contrib/slurm-release-actions.sh) ------

prelude='set -uo pipefail
cd /build/lagom || exit 1
. /build/lagom/contrib/slurm-release-actions.sh'

# The source tree's files into DEST: with git, the tracked and the untracked
# files git does not ignore (what a commit of the working tree would hold);
# without, everything.  Top-level _* folders (build and CI folders) never.
copy_tree() { # DEST
	mkdir -p "$1"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$src" ls-files -z -co --exclude-standard -- . ':!:_*' |
			tar -C "$src" --null --no-recursion --ignore-failed-read -T - -cf - |
			tar -C "$1" -xf -
	else
		tar -C "$src" --exclude='./_*' -cf - . | tar -C "$1" -xf -
	fi
}

# Unpacked trees of runs that were killed before their EXIT trap (SIGKILL):
# their PID (TREE.pid) is gone.  Their mounts went with their namespace.
remove_stale() {
	local p pid
	for p in "$tmpbase"/lagom-*.*.pid; do
		[ -f "$p" ] || continue
		pid=$(cat "$p" 2>/dev/null)
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			continue
		fi
		say "removing ${p%.pid} (its run, pid ${pid:-?}, is gone)"
		rm -rf --one-file-system "${p%.pid}" "$p"
	done
}

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" >&2
	exit 2
}

cmd_list() {
	local s f
	for s in bookworm trixie sid; do
		f=$(tarball_of $s)
		if [ -f "$f" ]; then
			printf '%-6s %-9s %s %s\n' "$(series_of $s)" "$s" "$(du -h "$f" | cut -f1)" "$f"
		else
			printf '%-6s %-9s not made (%s)\n' "$(series_of $s)" "$s" "$f"
		fi
	done
}

main() {
	[ $# -ge 1 ] || usage
	[ "$1" != list ] || {
		cmd_list
		return
	}
	[ $# -ge 2 ] || usage
	suite=$(suite_of "$1") || die "unknown release '$1' (22.05 bookworm, 24.11 trixie, 26.05 sid)"
	shift
	[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, unshare, pivot_root)"
	local script=$prelude a rc
	case "$1" in
	tarball)
		ensure_tarball "$suite"
		return
		;;
	run)
		shift
		[ $# -ge 1 ] || usage
		script="$script
$*"
		;;
	shell)
		[ -t 0 ] || die "shell needs a terminal"
		script="$script
exec bash -i"
		;;
	*)
		script="$script
rc=0"
		for a in "$@"; do
			case "$a" in
			build | check | demo | deb | foreign) ;;
			bench | soak | nodes) # env -i in the chroot: the knobs pass here
				for v in ${!LAGOM_BENCH_@} ${!LAGOM_SOAK_@}; do
					script="$script
export $v=$(printf %q "${!v}")"
				done
				;;
			*) die "unknown action '$a'" ;;
			esac
			script="$script
timed $a a_$a || rc=1"
		done
		script="$script
exit \$rc"
		;;
	esac
	ensure_tarball "$suite"
	out=${LAGOM_CHROOT_OUT:-$src/_release/$suite}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	mkdir -p "$tmpbase"
	remove_stale
	root=$(mktemp -d "$tmpbase/lagom-$suite.XXXXXX")
	echo $$ >"$root.pid"
	# shellcheck disable=SC2064 # the path, known now
	trap "rm -rf --one-file-system '$root' '$root.pid'" EXIT
	local t0=$SECONDS
	tar -C "$root" -xf "$(tarball_of "$suite")"
	copy_tree "$root/build/lagom"
	if [ -n "${LAGOM_FOREIGN_PLUGIN:-}" ]; then
		install -D -m 0755 "$LAGOM_FOREIGN_PLUGIN" "$root/build/foreign/lagom.so"
	fi
	say "$suite chroot unpacked and the tree copied in $((SECONDS - t0)) s into $root"
	# --kill-child: when unshare goes (the timeout, a signal), the kernel
	# kills the namespace's init and with it every process in the namespace.
	# unshare --fork ignores SIGTERM, so the timeout sends SIGKILL, and a
	# signal to this script kills unshare (the child of timeout, which runs
	# in its own process group and would not get it).
	rc=0
	exec 3<&0
	timeout -s KILL "$run_timeout" unshare --net --pid --fork --kill-child \
		--mount --uts --ipc --mount-proc \
		bash "$0" --inner "$suite" "$root" "$out" "$script" <&3 &
	tpid=$!
	trap 'pkill -KILL -P $tpid; kill $tpid 2>/dev/null' TERM INT HUP
	wait "$tpid" || rc=$?
	while kill -0 "$tpid" 2>/dev/null; do
		wait "$tpid" || rc=$?
	done
	trap - TERM INT HUP
	[ "$rc" -ne 137 ] || say "killed after LAGOM_CHROOT_TIMEOUT=$run_timeout s, or by a signal"
	return "$rc"
}

if [ "${1:-}" = --inner ]; then
	suite=$2
	shift 2
	inner "$@"
fi
main "$@"; exit $?
