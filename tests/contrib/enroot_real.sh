#!/bin/bash
# tests/contrib/enroot_real.sh - contrib/enroot/50-lagom.sh under a real
# `enroot start` (NVIDIA/enroot), where enroot is installed: the hook in a
# hooks.d of its own (ENROOT_SYSCONF_PATH), a tiny rootfs made from this
# machine's dash, env and touch, and what the container's program sees.
# enroot starts under a stand-in of the step's slurmstepd (a root process
# titled "slurmstepd: [42.0]"), from which the hook learns its step.
# tests/contrib/enroot_hook.sh checks the same contract without enroot.
. "$top_srcdir/tests/lib/tap.sh"

ENROOT=${LAGOM_ENROOT:-$(command -v enroot)}
[ -n "$ENROOT" ] && [ -x "$ENROOT" ] ||
	plan_skip_all "enroot not installed (enroot_hook.sh checks" \
		"the contract without it)"
[ "$(id -u)" -eq 0 ] ||
	plan_skip_all "needs root: the hook trusts only a root slurmstepd" \
		"among its parents, which the test stands in"
for t in ldd readlink; do
	command -v "$t" >/dev/null 2>&1 || plan_skip_all "$t not installed"
done
plan 11

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-enroot-real.XXXXXX") || exit 1
chmod 0755 "$TMP"
trap '[ -n "${KEEP-}" ] || rm -rf "$TMP"' EXIT
ME=$(id -un)
LIB=$TMP/host/lib
SPOOL=$TMP/host/spool
STEP=$SPOOL/$ME/42.0
mkdir -p "$LIB" "$STEP" "$SPOOL/$ME/41.0" "$TMP/sys/hooks.d" \
	"$TMP/sys/mounts.d" "$TMP/data" "$TMP/run" "$TMP/cfg" "$TMP/cache"
# the container's /dev (its program writes to /dev/null)
printf '/dev /dev none x-create=dir,rbind,rw,nosuid,noexec,rslave 0 -1\n' \
	>"$TMP/sys/mounts.d/10-dev.fstab"
printf 'tuner\n' >"$LIB/libnccl-tuner-lagom.so"
printf 'profiler\n' >"$LIB/libnccl-profiler-lagom.so"
install -m 0755 "${LAGOM_ENROOT_HOOK:-$top_srcdir/contrib/enroot/50-lagom.sh}" \
	"$TMP/sys/hooks.d/50-lagom.sh"
printf 'tuner=%s\nprofiler=%s\nmeasure_dir=%s\n' \
	"$LIB/libnccl-tuner-lagom.so" "$LIB/libnccl-profiler-lagom.so" \
	"$SPOOL" >"$TMP/sys/hooks.d/50-lagom.conf"

cp "$(command -v bash)" "$TMP/slurmstepd"

# The image: dash as /bin/sh, env and touch, their libraries.
R=$TMP/data/lagomtest
mkdir -p "$R/bin" "$R/etc" "$R/tmp"
for b in sh env touch; do
	f=$(readlink -f "$(command -v "$b")")
	mkdir -p "$R${f%/*}"
	cp "$f" "$R$f"
	[ "$f" = "/bin/$b" ] || ln -sf "$f" "$R/bin/$b"
	for l in $(ldd "$f" | grep -o '/[^ ]*'); do
		mkdir -p "$R${l%/*}"
		cp -L "$l" "$R$l"
	done
done
printf 'IMAGE_VAR=kept\nPATH=/bin\n' >"$R/etc/environment"
: >"$R/etc/fstab"

plan_vars() {
	printf '%s\n' LAGOM_PLAN_ID=0350460e27b8928e \
		"LAGOM_PLAN=lagom-plan 1 0.1.0 0350460e27b8928e job=42;end" \
		"NCCL_TUNER_PLUGIN=$LIB/libnccl-tuner-lagom.so" \
		"NCCL_PROFILER_PLUGIN=$LIB/libnccl-profiler-lagom.so" \
		"LAGOM_MEASURE_DIR=$STEP" NCCL_MIN_CTAS=16
}
# run OUT [NAME=VALUE...]: enroot start with the plan (the arguments
# replace variables of it; "none" alone: no plan), the program prints its
# environment and tries the files.  The rootfs is a directory kept between
# starts (as a named container is): enroot's x-create leaves empty mount
# points in it, hence "there" means "with the host file's content".
run() {
	local out=$1
	shift
	local -a plan=()
	local line
	[ "${1-}" = none ] || while IFS= read -r line; do
		plan+=("$line")
	done < <(plan_vars)
	[ "${1-}" != none ] || shift
	# shellcheck disable=SC2016 # the stand-in expands them
	bash -c 'exec -a "slurmstepd: [42.0]" "$0" -c "\"\$@\"; exit \$?" sh "$@"' \
		"$TMP/slurmstepd" env PATH="${ENROOT%/*}:$PATH" \
		ENROOT_SYSCONF_PATH="$TMP/sys" ENROOT_DATA_PATH="$TMP/data" \
		ENROOT_RUNTIME_PATH="$TMP/run" ENROOT_CONFIG_PATH="$TMP/cfg" \
		ENROOT_CACHE_PATH="$TMP/cache" HOME="$TMP" \
		SLURM_JOB_ID=42 SLURM_STEP_ID=0 "${plan[@]}" "$@" \
		"$ENROOT" start lagomtest sh -c '
		env
		t=$1/libnccl-tuner-lagom.so
		[ -s "$t" ] && echo tuner-there
		( : >>"$t" ) 2>/dev/null || echo tuner-ro
		touch "$2/rec" 2>/dev/null && echo spool-rw
		[ -e "$3" ] && echo other-step-there
		:' sh "$LIB" "$STEP" "$SPOOL/$ME/41.0" >"$out" 2>"$out.err"
	echo "$?" >"$out.rc"
}
has() { grep -qx "$2" "$1"; }
none_of_plan() { ! grep -qE '^(LAGOM_|NCCL_)' "$1"; }
show() { sed 's/^/#   /' "$TMP"/*.err; }
tap_on_fail=show

run "$TMP/applied"
check_that "applied: enroot start succeeds, the hook says nothing" \
	'[ "$(cat "$TMP/applied.rc")" = 0 ] &&
	 ! grep -q "^lagom:" "$TMP/applied.err"'
check_that "applied: every variable of the plan in the container" \
	'[ "$(grep -cE "^(LAGOM_|NCCL_)" "$TMP/applied")" = 6 ] &&
	 has "$TMP/applied" "LAGOM_MEASURE_DIR=$STEP"'
check_that "applied: the image's own variable kept" \
	'has "$TMP/applied" IMAGE_VAR=kept'
check_that "applied: the tuner is there, read-only" \
	'has "$TMP/applied" tuner-there && has "$TMP/applied" tuner-ro'
check_that "applied: the step's spool is writable, the record on the host" \
	'has "$TMP/applied" spool-rw && [ -f "$STEP/rec" ]'
check_that "applied: the user's other step is not there" \
	'! has "$TMP/applied" other-step-there'

mv "$LIB/libnccl-tuner-lagom.so" "$LIB/gone"
run "$TMP/missing"
mv "$LIB/gone" "$LIB/libnccl-tuner-lagom.so"
check_that "tuner missing: the container starts" \
	'[ "$(cat "$TMP/missing.rc")" = 0 ] &&
	 has "$TMP/missing" IMAGE_VAR=kept'
check_that "tuner missing: no variable of the plan, nothing mounted" \
	'none_of_plan "$TMP/missing" && ! has "$TMP/missing" tuner-there &&
	 ! has "$TMP/missing" spool-rw'
check_that "tuner missing: one lagom: line says why" \
	'[ "$(grep -c "^lagom: .*withheld.*not a readable regular file" \
	 "$TMP/missing.err")" = 1 ]'

run "$TMP/hostile" "LAGOM_MEASURE_DIR=$STEP
/ /mnt none x-create=dir,bind,rw"
check_that "a spool path with a newline and a mount line: plan withheld" \
	'[ "$(cat "$TMP/hostile.rc")" = 0 ] && none_of_plan "$TMP/hostile" &&
	 [ "$(grep -c "^lagom: " "$TMP/hostile.err")" = 1 ]'

run "$TMP/noplan" none
check_that "no plan: the hook does nothing" \
	'[ "$(cat "$TMP/noplan.rc")" = 0 ] && none_of_plan "$TMP/noplan" &&
	 ! grep -q "^lagom:" "$TMP/noplan.err" &&
	 ! has "$TMP/noplan" tuner-there'
done_testing
