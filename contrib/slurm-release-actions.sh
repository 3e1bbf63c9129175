# shellcheck shell=bash
# contrib/slurm-release-actions.sh - the actions of contrib/slurm-release.sh,
# sourced by bash INSIDE a release chroot: /build/lagom is the copy of the
# source tree, /out the host's output folder, LAGOM_RELEASE_SERIES (24.11)
# and LAGOM_RELEASE_SUITE (trixie) say where.  Each a_NAME is one action;
# "timed NAME a_NAME" prints how long it took.  Actions that test print TAP
# lines and automake's summary lines ("# PASS: N"), which .ci/run adds up.
# Not meant to run on a host.

jobs=$(nproc)

timed() { # NAME CMD...
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "=== release $LAGOM_RELEASE_SERIES ($LAGOM_RELEASE_SUITE): $name"
	"$@" || rc=$?
	echo "=== release $LAGOM_RELEASE_SERIES: $name took $((SECONDS - t0)) s (exit $rc)"
	return "$rc"
}

# tap_counts FILE: the TAP lines of FILE as automake's summary lines.
tap_counts() {
	awk '/^1\.\.0 # SKIP/{s++} /^ok .*# [Ss][Kk][Ii][Pp]/{s++; next}
	     /^ok /{p++} /^not ok /{f++}
	     END{printf "# PASS: %d\n# SKIP: %d\n# FAIL: %d\n", p, s, f}' "$1"
}

# t DESCRIPTION CONDITION: one TAP line into $tap.
t() {
	if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi | tee -a "$tap"
}

a_autogen() {
	[ ! -x /build/lagom/configure ] || return 0
	(cd /build/lagom && ./autogen.sh) >/out/autogen.log 2>&1 && return 0
	cat /out/autogen.log
	return 1
}

# ./configure --enable-werror && make, out of tree in /build/b.
a_build() {
	local rc=0
	a_autogen || return 1
	mkdir -p /build/b
	if [ ! -f /build/b/Makefile ] &&
		! (cd /build/b && /build/lagom/configure --enable-werror) >/out/configure.log 2>&1; then
		tail -40 /out/configure.log
		return 1
	fi
	make -C /build/b -j"$jobs" >/out/build.log 2>&1 || rc=$?
	# --enable-werror: any warning stops the build; show them all
	grep -E "(warning|error):" /out/build.log | head -40
	[ "$rc" -eq 0 ] || tail -5 /out/build.log
	return "$rc"
}

# make check, integration tests included (root, a real cluster of this
# release inside the namespaces).
a_check() {
	local rc=0 l
	[ -f /build/b/lagom ] || a_build || return 1
	make -C /build/b -j"$jobs" check >/out/check.log 2>&1 || rc=$?
	grep -E "^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):" /out/check.log
	grep -E "^(FAIL|ERROR|XPASS|SKIP):" /out/check.log
	find /build/b -name '*.log' ! -name config.log -exec cp --parents {} /out/ \; 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		find /build/b -name '*.log' ! -name test-suite.log ! -name config.log \
			-exec grep -l '^not ok' {} + 2>/dev/null | while read -r l; do
			echo "--- $l"
			grep -v '^ok ' "$l" | head -60
		done
		grep -A30 '^FAIL:' /build/b/test-suite.log 2>/dev/null | head -80
	fi
	return "$rc"
}

# contrib/demo-cluster.sh demo, and what the README promises of it: one
# LAGOM_PLAN_ID on every node, lagom's comment in sacct.
a_demo() {
	local b=/build/b rc=0 nodes ids comment tap=/out/demo.tap
	[ -f $b/spank/.libs/lagom.so ] || b=/build/demo
	bash /build/lagom/contrib/demo-cluster.sh demo "$b" >/out/demo.log 2>&1 || rc=$?
	cat /out/demo.log
	nodes=$(grep -cE '^n[0-9]+: LAGOM_PLAN_ID=' /out/demo.log)
	ids=$(sed -n 's/^n[0-9]*: LAGOM_PLAN_ID=//p' /out/demo.log | sort -u | wc -l)
	comment=$(sed -n '/sacct -X/,$p' /out/demo.log | grep -c 'lagom [0-9][^ ]* plan=')
	: >"$tap"
	t "demo: exit 0 ($rc), one LAGOM_PLAN_ID ($ids) on every node ($nodes), the comment in sacct ($comment)" \
		'[ "$rc" -eq 0 ] && [ "$nodes" -eq 3 ] && [ "$ids" -eq 1 ] && [ "$comment" -ge 1 ]'
	tap_counts "$tap"
	! grep -q '^not ok' "$tap"
}

# The packages as an admin builds them: dpkg-buildpackage -us -uc -b as root
# in a copy of the tree under a 0700 folder (mktemp -d); the plugin pinned to
# this release; tests/cli/plan-svg.sh (it runs lagom as nobody) in that tree;
# installed; tests/packaging/installed.sh against the installed files on a
# real cluster of this release; purged.
a_deb() {
	local d st dep next tap=/out/deb.tap
	a_autogen || return 1
	: >"$tap"
	d=$(mktemp -d /build/deb.XXXXXX)
	cp -a /build/lagom "$d/lagom"
	(cd "$d/lagom" && DEB_BUILD_OPTIONS="nocheck parallel=$jobs" \
		dpkg-buildpackage -us -uc -b) >/out/deb-build.log 2>&1
	st=$?
	t "dpkg-buildpackage -us -uc -b as root under a 0700 folder" '[ "$st" -eq 0 ]'
	if [ "$st" -ne 0 ]; then
		tail -40 /out/deb-build.log
		tap_counts "$tap"
		return 1
	fi
	cp "$d"/*.deb /out/
	dep=$(dpkg-deb -f "$d"/lagom-slurm-plugin_*.deb Depends)
	echo "# lagom-slurm-plugin Depends: $dep"
	next=$(printf '%s.%02d' "${LAGOM_RELEASE_SERIES%.*}" $((10#${LAGOM_RELEASE_SERIES#*.} + 1)))
	t "lagom-slurm-plugin pins Slurm $LAGOM_RELEASE_SERIES (>= $LAGOM_RELEASE_SERIES~, << $next~)" \
		'grep -qF "(>= $LAGOM_RELEASE_SERIES~)" <<<"$dep" && grep -qF "(<< $next~)" <<<"$dep"'
	# the test alone, as make check runs it (make check would first build
	# every unit test the nocheck build left out)
	top_srcdir=$d/lagom top_builddir=$d/lagom sh "$d/lagom/tests/cli/plan-svg.sh" \
		>/out/deb-plan-svg.log 2>&1
	st=$?
	sed -n '/^not ok\|^ok 16 \|^# nobody/p' /out/deb-plan-svg.log
	t "tests/cli/plan-svg.sh in that tree: its check as nobody ran and passed" \
		'[ "$st" -eq 0 ] && grep -q "^ok 16 " /out/deb-plan-svg.log'
	# dpkg -i: the chroot has no network and the release's own Slurm and
	# libraries are what the packages depend on (apt-get install of local
	# files fails inside the chroot: "Pathname to install is not absolute")
	DEBIAN_FRONTEND=noninteractive dpkg -i "$d"/lagom_*.deb "$d"/lagom-slurm-plugin_*.deb \
		"$d"/lagom-nccl-plugins_*.deb "$d"/lagom-prolog_*.deb >/out/deb-install.log 2>&1
	st=$?
	t "the four packages install (dpkg -i), their dependencies met by this release" '[ "$st" -eq 0 ]'
	[ "$st" -eq 0 ] || tail -20 /out/deb-install.log
	top_srcdir=/build/lagom bash /build/lagom/tests/packaging/installed.sh \
		>/out/deb-installed.tap 2>&1
	cat /out/deb-installed.tap
	cat /out/deb-installed.tap >>"$tap"
	t "the installed plugin's real-cluster test ran" 'grep -q "^ok" /out/deb-installed.tap'
	dpkg --purge lagom lagom-slurm-plugin lagom-nccl-plugins lagom-prolog \
		>/out/deb-purge.log 2>&1
	st=$?
	t "the packages purge" '[ "$st" -eq 0 ]'
	tap_counts "$tap"
	! grep -q '^not ok' "$tap"
}

# A lagom.so built for another Slurm release (LAGOM_FOREIGN_PLUGIN on the
# host, copied to /build/foreign/lagom.so) loaded "optional" here.
a_foreign() {
	local st=0
	LAGOM_FOREIGN_PLUGIN=/build/foreign/lagom.so top_srcdir=/build/lagom \
		bash /build/lagom/tests/packaging/foreign-plugin.sh >/out/foreign.tap 2>&1 || st=$?
	cat /out/foreign.tap
	tap_counts /out/foreign.tap
	[ "$st" -eq 0 ] && ! grep -q '^not ok' /out/foreign.tap
}

# make bench-launch (bench/bench_launch.sh) on this release's cluster: what
# lagom costs a launch, LAGOM_BENCH_RUNS (default 40) interleaved runs of
# each configuration; the table goes to the output and /out/bench.log.  It
# fails when the table is missing (the bench skipped or its cluster did not
# start); it asserts nothing about speed.
a_bench() {
	local rc=0
	[ -f /build/b/spank/.libs/lagom.so ] || a_build || return 1
	echo "# LAGOM_BENCH_RUNS=${LAGOM_BENCH_RUNS:-40}${LAGOM_BENCH_ARGS:+ LAGOM_BENCH_ARGS=$LAGOM_BENCH_ARGS}"
	make -s -C /build/b bench-launch 2>&1 | tee /out/bench.log || rc=$?
	grep -q '50 ms step: auto - without:' /out/bench.log || {
		echo "bench: no paired differences printed (see above)"
		return 1
	}
	return "$rc"
}

# make bench-soak (bench/bench_soak.sh): LAGOM_SOAK_STEPS (default 1000)
# steps with and as many without --lagom=auto on this release's cluster,
# every failed step with srun's message; output also in /out/soak.log.  It
# fails when a step failed or the table is missing.
a_soak() {
	local rc=0
	[ -f /build/b/spank/.libs/lagom.so ] || a_build || return 1
	echo "# LAGOM_SOAK_STEPS=${LAGOM_SOAK_STEPS:-1000}${LAGOM_BENCH_ARGS:+ LAGOM_BENCH_ARGS=$LAGOM_BENCH_ARGS}"
	make -s -C /build/b bench-soak 2>&1 | tee /out/soak.log || rc=$?
	grep -q 'with --lagom=auto: ' /out/soak.log || {
		echo "soak: no table printed (see above)"
		return 1
	}
	return "$rc"
}

# make bench-nodes (bench/bench_nodes.sh): a 50 ms step at 4, 16, 64 and
# 128 nodes with and without --lagom=auto; output also in /out/nodes.log.
a_nodes() {
	local rc=0
	[ -f /build/b/spank/.libs/lagom.so ] || a_build || return 1
	make -s -C /build/b bench-nodes 2>&1 | tee /out/nodes.log || rc=$?
	grep -q '^ *[0-9][0-9]* .* ms (95 % CI' /out/nodes.log || {
		echo "nodes: no table printed (see above)"
		return 1
	}
	return "$rc"
}

echo "=== release $LAGOM_RELEASE_SERIES: Slurm $(dpkg-query -W -f '${Version}' slurmctld), gcc $(gcc -dumpfullversion), kernel $(uname -r)"
