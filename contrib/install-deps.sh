#!/usr/bin/env bash
# Install what lagom needs to build and test on Debian 12 (bookworm).
# Idempotent: apt-get skips what is already there. Run as root.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "lagom: install-deps.sh must run as root (it calls apt-get)" >&2
	exit 1
fi

packages=(
	# build
	build-essential autoconf automake libtool pkg-config git
	clang llvm libclang-rt-14-dev clang-format
	# libraries
	libslurm-dev libhwloc-dev hwloc libjansson-dev libcmocka-dev
	libyajl-dev zlib1g-dev
	# tools used by tests
	valgrind python3 iproute2 procps util-linux strace jq
	# the real cluster of the integration tests and the demo
	slurmctld slurmd slurmdbd slurm-client munge mariadb-server
	# packaging (doc/packaging.md) and the SVG test's renderer
	debhelper devscripts lintian fakeroot dpkg-dev rpm librsvg2-bin
	# the headless browser that opens `lagom report`'s HTML page
	# (tests/cli/report-chromium.sh)
	chromium
	# job_submit/lua (job_submit_lua.so) and the Lua that tests its module
	slurm-wlm-basic-plugins lua5.1
	# Slurm's OCI containers (tests/integration/oci.sh; its bundle's busybox
	# is fetched with apt-get download, not installed)
	runc
	# real pyxis + enroot (tests/integration/pyxis.sh): enroot's build
	# (contrib/build-pyxis-enroot.sh) and the test image
	libbsd-dev makeself squashfs-tools gawk
	# the chroots of Slurm 24.11 and 26.05 (contrib/slurm-release.sh)
	mmdebstrap debian-archive-keyring
)

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"

# Debian starts daemons on install where it can; lagom's tests run their own,
# with their own configuration, so stop the packaged ones if they came up.
for svc in slurmctld slurmd slurmdbd munge mariadb; do
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done
exit 0
