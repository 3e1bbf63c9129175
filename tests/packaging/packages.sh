#!/usr/bin/env bash
# tests/packaging/packages.sh TARBALL WORKDIR - lagom's packages as a site
# gets them, for .ci/run (root, Debian 12, contrib/install-deps.sh done):
#   1. the RPM spec in the tarball parses (rpmspec -P) and rpmbuild -ta
#      --nodeps builds the four RPMs (Debian has no RPM BuildRequires;
#      LAGOM_PACKAGES_RPM=source builds the source RPM only);
#   2. the tarball's debian/ builds the .deb packages (dpkg-buildpackage
#      -us -uc -b; the unit tests ran in the CI build already: nocheck);
#   3. lintian: no error;
#   4. the plugin depends on exactly the Slurm release it was built for;
#   5. the packages install; tests/packaging/installed.sh runs a real
#      cluster against the INSTALLED files; the packages are purged again.
# Prints TAP; exit status 0 when every check passed.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"

tarball=$(realpath "${1:?usage: packages.sh TARBALL WORKDIR}")
work=$(realpath -m "${2:?usage: packages.sh TARBALL WORKDIR}")
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || plan_skip_all "not root: installs packages"
for t in dpkg-buildpackage lintian rpmspec rpmbuild apt-get; do
	command -v "$t" >/dev/null 2>&1 || plan_skip_all "$t not installed (run contrib/install-deps.sh)"
done
plan 13
rm -rf "$work" && mkdir -p "$work" || exit 1
name=$(basename "$tarball" .tar.gz)
version=${name#lagom-}

# --- RPM -----------------------------------------------------------------
tar -C "$work" -xzf "$tarball" "$name/lagom.spec" 2>/dev/null
check "the tarball holds lagom.spec" [ -f "$work/$name/lagom.spec" ]
rpmspec -P "$work/$name/lagom.spec" >"$work/spec.parsed" 2>"$work/spec.err"
check "rpmspec -P parses it" [ -s "$work/spec.parsed" ]
check_parsed() { grep -qE "$1" "$work/spec.parsed"; }
majmin=$(printf '%d.%02d' $(($(sed -n 's/^#define SLURM_VERSION_NUMBER[ \t]*\(0x[0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h) >> 16)) \
	$((($(sed -n 's/^#define SLURM_VERSION_NUMBER[ \t]*\(0x[0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h) >> 8) & 255)))
check "spec: Version $version; lagom-slurm-plugin requires slurm >= $majmin and < the next release" \
	sh -c "grep -qx 'Version: *$version' '$work/spec.parsed' && grep -qE '^Requires: +slurm(%\{\?_isa\}|\(x86-64\))? >= $majmin\$' '$work/spec.parsed' && grep -qE '^Requires: +slurm.* < ' '$work/spec.parsed'"
# rpmbuild -ta: on Debian the BuildRequires name no installed RPM; with
# --nodeps the whole build runs (%check skipped: the CI build ran it).
mkdir -p "$work/rpm"
t0=$SECONDS
if [ "${LAGOM_PACKAGES_RPM:-full}" = full ]; then
	timeout 900 rpmbuild -ta --nodeps --without check --define "_topdir $work/rpm" \
		"$tarball" >"$work/rpmbuild.log" 2>&1
	rpm_rc=$?
	t_rpm=$((SECONDS - t0)) t0=$SECONDS
	diag "rpmbuild -ta --nodeps: exit $rpm_rc after ${t_rpm}s; last lines:"
	tail -3 "$work/rpmbuild.log" | sed 's/^/#   /'
	check "rpmbuild -ta --nodeps builds lagom, -slurm-plugin, -nccl-plugins, -prolog" \
		sh -c "[ $rpm_rc -eq 0 ] && ls '$work'/rpm/RPMS/*/ | grep -c -E '^lagom-(slurm-plugin-|nccl-plugins-|prolog-)?$version-' | grep -qx 4"
else
	# LAGOM_PACKAGES_RPM=source: the source RPM only (seconds, no compile)
	rpmbuild -ts --nodeps --define "_topdir $work/rpm" "$tarball" >"$work/rpmbuild.log" 2>&1
	rpm_rc=$?
	t_rpm=$((SECONDS - t0)) t0=$SECONDS
	check "rpmbuild -ts builds the source RPM (LAGOM_PACKAGES_RPM=source: no binary RPMs)" \
		sh -c "[ $rpm_rc -eq 0 ] && ls '$work'/rpm/SRPMS/ | grep -q '^lagom-$version-1.*\.src\.rpm\$'"
fi

# --- Debian --------------------------------------------------------------
tar -C "$work" -xzf "$tarball" || exit 1
(cd "$work/$name" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b) >"$work/dpkg-buildpackage.log" 2>&1
st=$?
t_deb=$((SECONDS - t0)) t0=$SECONDS
check "dpkg-buildpackage -us -uc -b builds from the tarball" [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || tail -30 "$work/dpkg-buildpackage.log" | sed 's/^/#   /'
mapfile -t debs < <(ls "$work"/*_"$version"-*.deb 2>/dev/null | grep -v -- '-dbgsym_')
four_debs() { [ "${#debs[@]}" -eq 4 ] && [ -f "${debs[0]}" ]; }
check "four packages: lagom, lagom-slurm-plugin, lagom-nccl-plugins, lagom-prolog" four_debs
changes=$(ls "$work"/lagom_*.changes 2>/dev/null | head -1)
lintian --fail-on error --tag-display-limit 0 ${changes:-"${debs[@]}"} >"$work/lintian.log" 2>&1
st=$?
sed 's/^/# lintian: /' "$work/lintian.log"
check "lintian: no error" [ "$st" -eq 0 ]
plugin_deb=$(ls "$work"/lagom-slurm-plugin_*.deb 2>/dev/null | head -1)
dep=$(dpkg-deb -f "$plugin_deb" Depends 2>/dev/null)
diag "lagom-slurm-plugin Depends: $dep"
next=$(printf '%s.%02d' "${majmin%.*}" $((10#${majmin#*.} + 1)))
check "lagom-slurm-plugin depends on Slurm $majmin exactly (>= $majmin~, << $next~)" \
	sh -c "echo '$dep' | grep -qF 'slurm-wlm-basic-plugins (>= $majmin~)' && echo '$dep' | grep -qF 'slurm-wlm-basic-plugins (<< $next~)'"
check "the plugstack.conf.d snippet ships disabled" \
	sh -c "dpkg-deb --fsys-tarfile '$plugin_deb' | tar -xOf - ./etc/slurm/plugstack.conf.d/lagom.conf | grep -v '^#' | grep -q . && exit 1 || exit 0"

# --- install, run against the installed files, purge -----------------------
pkgs=(lagom lagom-slurm-plugin lagom-nccl-plugins lagom-prolog)
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${debs[@]}" >"$work/install.log" 2>&1
st=$?
check "the packages install (apt-get install ./*.deb)" [ "$st" -eq 0 ]
[ "$st" -eq 0 ] || tail -20 "$work/install.log" | sed 's/^/#   /'
if [ "$st" -eq 0 ]; then
	top_srcdir=$src LAGOM_EXPECT_VERSION=$version \
		bash "$src/tests/packaging/installed.sh" >"$work/installed.tap" 2>&1
	st=$?
	sed 's/^/#   /' "$work/installed.tap"
	check "tests/packaging/installed.sh passes against the installed packages" \
		sh -c "[ $st -eq 0 ] && ! grep -q '^not ok' '$work/installed.tap' && grep -q '^ok' '$work/installed.tap'"
else
	not_ok "tests/packaging/installed.sh: not run, the packages did not install"
fi
DEBIAN_FRONTEND=noninteractive dpkg --purge "${pkgs[@]}" >"$work/purge.log" 2>&1
st=$?
check_gone() { [ "$st" -eq 0 ] && ! dpkg-query -W -f '${Status}\n' "${pkgs[@]}" 2>/dev/null | grep -q ' installed$'; }
check "the packages purge cleanly (see $work/purge.log)" check_gone
diag "times: rpm ${t_rpm}s, deb ${t_deb}s, install+cluster+purge $((SECONDS - t0))s"
done_testing
