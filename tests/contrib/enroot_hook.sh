#!/bin/bash
# tests/contrib/enroot_hook.sh - contract tests of contrib/enroot/50-lagom.sh,
# lagom's enroot pre-start hook (doc/containers.md).
#
# enroot itself is not run: start_container below is a stand-in of enroot's
# hook contract, written from enroot's documentation (doc/configuration.md
# "Pre-start hook scripts", doc/image-format.md for the fstab and
# environment formats) and from reading how enroot start and pyxis use it:
#   - the container's environment file (ENROOT_ENVIRON) holds KEY=VALUE
#     lines (the image's /etc/environment, environ.d, --env); the mount file
#     the hooks get (ENROOT_MOUNTS) starts empty;
#   - every executable *.sh of hooks.d runs in name order, with the host
#     environment (under pyxis: the job's, lagom's plan included, which
#     lagom sets in task_init_privileged, before any plugin's task_init) plus ENROOT_PID, ENROOT_ROOTFS,
#     ENROOT_MOUNTS and ENROOT_ENVIRON; its stdout is discarded; a non-zero
#     exit stops the container;
#   - afterwards enroot drops ill-formed lines of ENROOT_ENVIRON, mounts the
#     lines of ENROOT_MOUNTS (targets relative to the rootfs, x-create), and
#     the container's environment is exactly ENROOT_ENVIRON's valid lines,
#     the last of a name winning;
#   - hooks run in the container's mount namespace and may call
#     enroot-mount --root ROOTFS - (fstab lines on stdin; the source goes to
#     mount(2) as written, the target is resolved inside ROOTFS): here a
#     stand-in that logs each line with what its source names, and mounts
#     it where mounts can be made;
#   - under pyxis the hooks' parents include the step's slurmstepd (root,
#     titled "slurmstepd: [JOB.STEP]"): here a copy of bash named
#     slurmstepd, started with that title.
# Where root may unshare a mount namespace, the hooks run in one and the
# mounts are really made (bind, read-only where the line says ro) and
# checked from the rootfs.
. "$top_srcdir/tests/lib/tap.sh"

HOOK=${LAGOM_ENROOT_HOOK:-$top_srcdir/contrib/enroot/50-lagom.sh}
[ -f "$HOOK" ] || plan_skip_all "no hook at $HOOK"
for t in stat mktemp grep sed; do
	command -v "$t" >/dev/null 2>&1 || plan_skip_all "$t not installed"
done
[ "$(id -u)" -eq 0 ] ||
	plan_skip_all "needs root: the hook trusts only a root slurmstepd" \
		"among its parents, which the test stands in"
can_mount=no
mount_why="needs root and unshare -m"
if ! command -v mount >/dev/null 2>&1; then
	mount_why="mount(8) not installed (Debian sid: apt-get install mount)"
elif [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	can_mount=yes
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-enroot.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
LIB=$TMP/host/lib
SPOOLROOT=$TMP/host/spool
ME=$(id -un 2>/dev/null || echo user)
STEPDIR=$SPOOLROOT/$ME/42.0
# the same user's other step, another user: never in this step's container
mkdir -p "$LIB" "$STEPDIR" "$SPOOLROOT/$ME/41.0" "$SPOOLROOT/someone/42.0" \
	"$TMP/hooks.d"
printf 'tuner elf\n' >"$LIB/libnccl-tuner-lagom.so"
printf 'profiler elf\n' >"$LIB/libnccl-profiler-lagom.so"
install -m 0755 "$HOOK" "$TMP/hooks.d/50-lagom.sh"
write_conf() {
	printf '%s\n' '# test settings' "tuner=$LIB/libnccl-tuner-lagom.so" \
		"profiler=$LIB/libnccl-profiler-lagom.so" \
		"measure_dir=$SPOOLROOT" >"$TMP/hooks.d/50-lagom.conf"
}
write_conf

PLAN_VARS='LAGOM_PLAN_ID LAGOM_PLAN LAGOM_PREDICTED_SPEEDUP NCCL_TUNER_PLUGIN
NCCL_PROFILER_PLUGIN LAGOM_MEASURE_DIR NCCL_MIN_CTAS NCCL_MAX_CTAS
NCCL_BUFFSIZE NCCL_NTHREADS NCCL_CTA_POLICY NCCL_ALGO NCCL_PROTO
TORCH_NCCL_HIGH_PRIORITY CUDA_DEVICE_MAX_CONNECTIONS'

PLAN_TEXT='lagom-plan 1 0.1.0 0350460e27b8928e job=42 ranks=8 nodes=1;'
PLAN_TEXT=$PLAN_TEXT'env tuner=1 ctas=0-0 buffsize=0 nthreads=0 algo=any '
PLAN_TEXT=$PLAN_TEXT'proto=any;coll allreduce 0 1048575 ranks=8 nodes=1 '
PLAN_TEXT=$PLAN_TEXT'algo=ring proto=ll128 nc=8 chunk=0;end'

# The plan as lagom's task_init leaves it in a tuned, measured step, one
# NUL-terminated NAME=VALUE each (a value may hold a newline).
plan_env() {
	printf '%s\0' \
		"LAGOM_PLAN_ID=0350460e27b8928e" \
		"LAGOM_PLAN=$PLAN_TEXT" \
		"LAGOM_PREDICTED_SPEEDUP=1.12" \
		"NCCL_TUNER_PLUGIN=$LIB/libnccl-tuner-lagom.so" \
		"NCCL_PROFILER_PLUGIN=$LIB/libnccl-profiler-lagom.so" \
		"LAGOM_MEASURE_DIR=$STEPDIR" \
		"NCCL_MIN_CTAS=16" "NCCL_BUFFSIZE=8388608" \
		"TORCH_NCCL_HIGH_PRIORITY=1" "CUDA_DEVICE_MAX_CONNECTIONS=1"
}

# The stand-ins: slurmstepd (bash under that name), enroot-mount.
mkdir -p "$TMP/bin"
cp "$(command -v bash)" "$TMP/slurmstepd"
cat >"$TMP/bin/enroot-mount" <<'EOF'
#!/bin/bash
# enroot-mount --root ROOT -: each line logged to $STANDIN_LOG as
# "SRC DST FS OPTS WHAT-SRC-NAMES", mounted under ROOT when STANDIN_MOUNT
# is yes; $STANDIN_SWAP (shell code) runs first (a race, played).
[ "$1" = --root ] && [ "$3" = - ] || exit 2
root=$2
while read -r src dst fs opts rest; do
	[ -n "$src" ] || continue
	[ -z "${STANDIN_SWAP-}" ] || eval "$STANDIN_SWAP"
	printf '%s %s %s %s %s\n' "$src" "$dst" "$fs" "$opts" \
		"$(readlink -f "$src")" >>"$STANDIN_LOG"
	[ "$STANDIN_MOUNT" = yes ] || continue
	mkdir -p "$root$dst" &&
		mount --no-canonicalize --bind "$src" "$root$dst" || exit 1
done
EOF
chmod 0755 "$TMP/bin/enroot-mount"

# The hooks of one container start, then (STANDIN_MOUNT=yes, in the
# container's mount namespace) ENROOT_MOUNTS mounted and what the rootfs
# shows written to $C/seen.  Run as "slurmstepd: [42.0]".
cat >"$TMP/run-hooks.sh" <<'EOF'
jobenv=()
while IFS= read -r -d '' line; do jobenv+=("$line"); done <"$1"
rc=0
for h in "$TMP"/hooks.d/*.sh; do
	[ -x "$h" ] || continue
	(
		[ -z "${HOOK_ULIMIT_F-}" ] || ulimit -f "$HOOK_ULIMIT_F"
		exec env -i PATH="$TMP/bin:/usr/bin:/bin" \
			SLURM_JOB_ID="${FORGE_JOB:-42}" SLURM_STEP_ID=0 \
			"${jobenv[@]}" ENROOT_PID=$$ ENROOT_ROOTFS="$C/rootfs" \
			ENROOT_MOUNTS="${HOOK_MOUNTS:-$C/mounts}" \
			ENROOT_ENVIRON="$C/environ" STANDIN_LOG="$C/hookmounts" \
			STANDIN_MOUNT="$STANDIN_MOUNT" \
			STANDIN_SWAP="${STANDIN_SWAP-}" "$h"
	) >/dev/null 2>>"$C/err" || rc=$?
done
echo "$rc" >"$C/rc"
[ "$STANDIN_MOUNT" = yes ] || exit 0
r=$C/rootfs
set -e
while read -r src dst fs opts rest; do
	case $src in '' | '#'*) continue ;; esac
	case $opts in
	*x-create=dir*) mkdir -p "$r$dst" ;;
	*x-create=file*) mkdir -p "$r${dst%/*}"; : >"$r$dst" ;;
	esac
	mount --bind "$src" "$r$dst"
	case ,$opts, in
	*,ro,*) mount -o remount,bind,ro "$r$dst" ;;
	esac
done <"$C/mounts"
t=$r$LIB/libnccl-tuner-lagom.so
p=$r$LIB/libnccl-profiler-lagom.so
s=$r$STEPDIR
{ [ -f "$t" ] && cat "$t" && echo tuner-there
  [ -f "$p" ] && cat "$p" && echo profiler-there
  ( : >>"$t" ) 2>/dev/null || echo tuner-ro
  [ -d "$s" ] && : >"$s/rec" && echo spool-rw
  [ -f "$s/mine" ] && echo spool-mine
  for o in "$ME/41.0" someone 41.0; do
	[ ! -e "$r$SPOOLROOT/$o" ] || echo "leaks $o"
	[ ! -e "$s/$o" ] || echo "leaks $o"
  done
} >"$C/seen" 2>/dev/null || :
EOF

# start_container JOBENV_FILE [IMAGE_ENV_FILE] (both NUL-separated): one
# container start, as enroot does it (see the header).  Leaves $C/environ,
# $C/mounts, $C/hookmounts (what the hooks had enroot-mount mount), $C/err,
# $C/rc (the hooks' status), $C/env (the container's environment) and,
# where mounts can be made, $C/seen (what the rootfs shows).  The
# environment may set HOOK_ULIMIT_F (ulimit -f for the hooks), HOOK_MOUNTS
# (another ENROOT_MOUNTS), FORGE_JOB (the SLURM_JOB_ID the user sets),
# STANDIN_SWAP, ENVIRON_EXTRA (printf %b text added to ENROOT_ENVIRON),
# MOUNTS_BEFORE (ENROOT_MOUNTS's lines from earlier hooks) and NO_STEPD=1
# (no slurmstepd among the hooks' parents).
C=$TMP/c
export C TMP LIB STEPDIR SPOOLROOT ME
start_container() {
	rm -rf "$C"
	mkdir -p "$C/rootfs/etc" "$C/rootfs/tmp"
	printf '%s' "${MOUNTS_BEFORE-}" >"$C/mounts"
	: >"$C/hookmounts"
	printf 'PATH=/usr/bin:/bin\nIMAGE_VAR=kept\n' >"$C/environ"
	[ -z "${2-}" ] || tr '\0' '\n' <"$2" >>"$C/environ"
	[ -z "${ENVIRON_EXTRA-}" ] ||
		printf '%b' "$ENVIRON_EXTRA" >>"$C/environ"
	local stepd=("$TMP/slurmstepd")
	[ -z "${NO_STEPD-}" ] || stepd=(bash)
	if [ "$can_mount" = yes ]; then
		# shellcheck disable=SC2016 # the inner shell expands them
		STANDIN_MOUNT=yes unshare -m bash -c \
			'exec -a "slurmstepd: [42.0]" "$@"' sh "${stepd[@]}" \
			"$TMP/run-hooks.sh" "$1" || echo mount-failed >"$C/seen"
	else
		# shellcheck disable=SC2016
		STANDIN_MOUNT=no bash -c 'exec -a "slurmstepd: [42.0]" "$@"' \
			sh "${stepd[@]}" "$TMP/run-hooks.sh" "$1"
	fi
	# the container's environment: the valid lines, the last one wins
	grep -a -E '^[A-Za-z_][A-Za-z0-9_]*=' "$C/environ" |
		awk '{ k = substr($0, 1, index($0, "=") - 1); v[k] = $0 }
		     END { for (k in v) print v[k] }' | sort >"$C/env"
}

env_has() { grep -q "^$1=" "$C/env"; }
plan_vars_in_env() {
	local n=0 v
	for v in $PLAN_VARS; do env_has "$v" && n=$((n + 1)); done
	echo "$n"
}
plan_lines_in_env() {
	local v
	for v in $PLAN_VARS; do grep "^$v=" "$C/env"; done | sort
}
lagom_lines() { grep -c '^lagom: ' "$C/err"; }
err_lines() { wc -l <"$C/err"; }
show() { sed 's/^/#   /' "$C/err" "$C/mounts" "$C/hookmounts"; }
tap_on_fail=show

# withheld "what": the whole plan gone, nothing mounted, one lagom: line.
withheld() {
	check_that "$1: the hook exits 0 (the container starts)" \
		'[ "$(cat "$C/rc")" = 0 ]'
	check_that "$1: no variable of the plan in the container" \
		'[ "$(plan_vars_in_env)" = 0 ]'
	check_that "$1: the image's own variables kept" \
		'grep -qx IMAGE_VAR=kept "$C/env" && env_has PATH'
	check_that "$1: nothing in ENROOT_MOUNTS, nothing mounted" \
		'[ ! -s "$C/mounts" ] && [ ! -s "$C/hookmounts" ]'
	check_that "$1: one line, a lagom: line, with the reason" \
		'[ "$(err_lines)" = 1 ] && [ "$(lagom_lines)" = 1 ] &&
		 grep -q "plan withheld in this container: ." "$C/err"'
}

NCASES=26 # withheld cases, 5 checks each
plan $((4 + 7 + 4 + 1 + 5 * NCASES + 2 + 2 + 4 + 4))

# 1. No plan: the hook is a no-op.
printf 'SOMETHING=else\0' >"$TMP/job.none"
start_container "$TMP/job.none"
printf 'PATH=/usr/bin:/bin\nIMAGE_VAR=kept\n' >"$TMP/environ.orig"
check_that "no plan: exit 0" '[ "$(cat "$C/rc")" = 0 ]'
check_that "no plan: ENROOT_ENVIRON untouched" \
	'cmp -s "$C/environ" "$TMP/environ.orig"'
check_that "no plan: ENROOT_MOUNTS empty" '[ ! -s "$C/mounts" ]'
check_that "no plan: says nothing" '[ ! -s "$C/err" ]'

# 2. Applied, the plan in the hook's environment (pyxis: the job's environment).
plan_env >"$TMP/job.plan"
start_container "$TMP/job.plan"
check_that "applied: exit 0, says nothing" \
	'[ "$(cat "$C/rc")" = 0 ] && [ ! -s "$C/err" ]'
check_that "applied: every variable of the plan in the container, values kept" \
	'[ "$(plan_env | tr "\0" "\n" | sort)" = "$(plan_lines_in_env)" ]'
check_that "applied: the image's own variables kept" \
	'grep -qx IMAGE_VAR=kept "$C/env"'
T=$LIB/libnccl-tuner-lagom.so
P=$LIB/libnccl-profiler-lagom.so
LIB_OPTS=x-create=file,bind,ro,nosuid,nodev,private
SPOOL_OPTS=x-create=dir,bind,rw,nosuid,nodev,noexec,private
check_that "applied: exactly two mount lines (the libraries)" \
	'[ "$(wc -l <"$C/mounts")" = 2 ]'
check_that "applied: the tuner, read-only, at the same path" \
	'grep -qx "$T $T none $LIB_OPTS" "$C/mounts"'
check_that "applied: the profiler, read-only, at the same path" \
	'grep -qx "$P $P none $LIB_OPTS" "$C/mounts"'
check_that "applied: the step's own spool, read-write, from the opened directory" \
	'[ "$(cat "$C/hookmounts")" = \
	   "/proc/self/fd/3 $STEPDIR none $SPOOL_OPTS $STEPDIR" ] &&
	 ! grep -q "^$SPOOLROOT" "$C/mounts"'
if [ "$can_mount" = yes ]; then
	check_that "mounted: tuner and profiler readable in the rootfs" \
		'grep -qx tuner-there "$C/seen" &&
		 grep -qx profiler-there "$C/seen"'
	check_that "mounted: the tuner is read-only there" \
		'grep -qx tuner-ro "$C/seen"'
	check_that "mounted: the spool directory is writable there" \
		'grep -qx spool-rw "$C/seen" && [ -f "$STEPDIR/rec" ]'
	check_that "mounted: no other user's or step's directory there" \
		'! grep -q "^leaks" "$C/seen"'
else
	for i in 1 2 3 4; do
		skip "mounts not made: $mount_why"
	done
fi
rm -f "$STEPDIR/rec"

# 3. Applied, the plan in ENROOT_ENVIRON only (enroot start --env ...).
start_container "$TMP/job.none" "$TMP/job.plan"
check_that "plan in ENROOT_ENVIRON: applied, three mounts, plan kept" \
	'[ "$(wc -l <"$C/mounts")" = 2 ] && [ -s "$C/hookmounts" ] &&
	 [ "$(plan_vars_in_env)" = 10 ] &&
	 [ ! -s "$C/err" ]'

# 4..: every case below withholds the whole plan.  The plan is both in the
# hook's environment and in ENROOT_ENVIRON (pyxis with --container-env), so
# the hook must take it out of the file, not only leave it out.
case_job() { # NAME=VALUE replaces that variable of the plan
	plan_env | grep -z -v "^${1%%=*}=" >"$TMP/job.case"
	printf '%s\0' "$1" >>"$TMP/job.case"
}

mv "$LIB/libnccl-tuner-lagom.so" "$LIB/gone"
start_container "$TMP/job.plan" "$TMP/job.plan"
withheld "tuner missing on the node"
mv "$LIB/gone" "$LIB/libnccl-tuner-lagom.so"

mv "$LIB/libnccl-profiler-lagom.so" "$LIB/gone"
start_container "$TMP/job.plan" "$TMP/job.plan"
withheld "profiler missing on the node"
mv "$LIB/gone" "$LIB/libnccl-profiler-lagom.so"

mv "$TMP/hooks.d/50-lagom.conf" "$TMP/conf.saved"
start_container "$TMP/job.plan" "$TMP/job.plan"
withheld "no settings file beside the hook"
mv "$TMP/conf.saved" "$TMP/hooks.d/50-lagom.conf"

printf 'tuner=%s\nLD_PRELOAD=/x\n' "$LIB/libnccl-tuner-lagom.so" \
	>"$TMP/hooks.d/50-lagom.conf"
start_container "$TMP/job.plan" "$TMP/job.plan"
withheld "a settings line the hook does not know"
write_conf

# Hostile values: the newline cases carry a whole mount line and a whole
# environment line; neither may appear anywhere.
NL='
'
mkdir -p "$TMP/elsewhere/$ME/42.0" "$SPOOLROOT/other"
hostile() {
	case_job "$1"
	case $1 in
	*"$NL"*) start_container "$TMP/job.case" ;; # one line each in a file
	*) start_container "$TMP/job.case" "$TMP/job.case" ;;
	esac
	withheld "$2"
	cat "$C/env" >>"$TMP/all.env"
	cat "$C/mounts" "$C/hookmounts" >>"$TMP/all.mounts"
}
: >"$TMP/all.env"
: >"$TMP/all.mounts"
hostile "LAGOM_MEASURE_DIR=$STEPDIR$NL/ /mnt none x-create=dir,bind,rw" \
	"spool path with a newline and a mount line"
hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/$ME/42.0 x" "spool path with a space"
hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/$ME/../$ME/42.0" "spool path with .."
hostile "LAGOM_MEASURE_DIR=${STEPDIR#/}" "relative spool path"
hostile "LAGOM_MEASURE_DIR=$TMP/elsewhere/$ME/42.0" \
	"spool path outside measure_dir"
hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/$ME/42.1" "another step's spool directory"
hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/$ME" "the user's whole spool"
ln -s "$STEPDIR" "$SPOOLROOT/other/42.0"
hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/other/42.0" "spool directory is a link"
rm "$SPOOLROOT/other/42.0"
mv "$SPOOLROOT/$ME" "$TMP/real"
ln -s "$TMP/real" "$SPOOLROOT/$ME"
hostile "LAGOM_MEASURE_DIR=$STEPDIR" "a link on the way to the spool"
rm "$SPOOLROOT/$ME"
mv "$TMP/real" "$SPOOLROOT/$ME"
mkdir "$SPOOLROOT/$ME/42.0.x"
hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/$ME/42.0.x" "spool name not JOB.STEP"
if [ "$(id -u)" -eq 0 ]; then
	chown 12345 "$STEPDIR"
	hostile "LAGOM_MEASURE_DIR=$STEPDIR" "spool directory of another user"
	chown 0 "$STEPDIR"
else
	for i in 1 2 3 4 5; do
		skip "not root: cannot give a directory away"
	done
fi
hostile "LAGOM_PLAN=$(head -c 70000 /dev/zero | tr '\0' x)" \
	"LAGOM_PLAN over 64 KiB"
hostile "NCCL_ALGO=Ring${NL}LD_PRELOAD=/tmp/evil.so" \
	"NCCL_ALGO with a newline and an environment line"
hostile "NCCL_PROTO=\"Simple\"" "a value with quotes"
printf 'evil\n' >"$TMP/evil.so"
hostile "NCCL_TUNER_PLUGIN=$TMP/evil.so" "a tuner that is not the admin's"
hostile "NCCL_PROFILER_PLUGIN=$TMP/evil.so" \
	"a profiler that is not the admin's"
mv "$LIB/libnccl-tuner-lagom.so" "$LIB/real.so"
ln -s "$LIB/real.so" "$LIB/libnccl-tuner-lagom.so"
start_container "$TMP/job.plan" "$TMP/job.plan"
withheld "the tuner is a link"
rm "$LIB/libnccl-tuner-lagom.so"
mv "$LIB/real.so" "$LIB/libnccl-tuner-lagom.so"

# 5. The step directory is the node's, opened once.
# SLURM_JOB_ID/SLURM_STEP_ID the user sets do not choose it:
mkdir -p "$SPOOLROOT/$ME/41.0"
FORGE_JOB=41 hostile "LAGOM_MEASURE_DIR=$SPOOLROOT/$ME/41.0" \
	"forged SLURM_JOB_ID naming the user's other step"
# without a slurmstepd among the hook's parents, no spool at all
case_job "LAGOM_MEASURE_DIR=$STEPDIR"
NO_STEPD=1 start_container "$TMP/job.case" "$TMP/job.case"
withheld "no slurmstepd among the hook's parents"
# the directory swapped for a link to the user's whole spool after the
# checks, before the mount: the mount is still the directory checked
: >"$STEPDIR/mine"
STANDIN_SWAP="mv '$STEPDIR' '$TMP/moved' && ln -s '$SPOOLROOT/$ME' '$STEPDIR'" \
	start_container "$TMP/job.plan"
check_that "swapped for a link after the checks: the checked directory is mounted" \
	'[ "$(plan_vars_in_env)" = 10 ] &&
	 grep -qx "/proc/self/fd/3 $STEPDIR none $SPOOL_OPTS $TMP/moved" \
		"$C/hookmounts"'
if [ "$can_mount" = yes ]; then
	check_that "swapped: the container sees the step's files, not the spool" \
		'grep -qx spool-mine "$C/seen" && ! grep -q "^leaks" "$C/seen"'
else
	skip "mounts not made: $mount_why"
fi
rm -f "$STEPDIR"
mv "$TMP/moved" "$STEPDIR"
rm -f "$STEPDIR/mine" "$STEPDIR/rec"

# 6. ENROOT_ENVIRON with a NUL or a byte that is not text: refused per
# line, the file never emptied.
ENVIRON_EXTRA='NCCL_ALGO=Ri\0ng\n' start_container "$TMP/job.plan"
withheld "a NUL in a plan line of ENROOT_ENVIRON"
check_that "NUL in a plan line: the line gone, the image's lines kept" \
	'! grep -a -q "^NCCL_ALGO=" "$C/environ" &&
	 grep -a -qx IMAGE_VAR=kept "$C/environ" &&
	 grep -a -qx PATH=/usr/bin:/bin "$C/environ"'
ENVIRON_EXTRA='NCCL_PROTO=Simple\x80\n' start_container "$TMP/job.plan"
withheld "a byte over 0x7e in a plan line of ENROOT_ENVIRON"
mv "$LIB/libnccl-tuner-lagom.so" "$LIB/gone"
ENVIRON_EXTRA='OTHER=a\0b\x01\n' start_container "$TMP/job.plan" "$TMP/job.plan"
withheld "withheld with a NUL in another line of ENROOT_ENVIRON"
check_that "NUL in another line: that line and the image's kept as they were" \
	'[ "$(grep -a -c "^OTHER=a" "$C/environ")" = 1 ] &&
	 grep -a -qx IMAGE_VAR=kept "$C/environ"'
mv "$LIB/gone" "$LIB/libnccl-tuner-lagom.so"

# 7. Exactly one line per refusal, whatever fails.
HOOK_MOUNTS=$TMP/no/such/dir/mounts start_container "$TMP/job.plan" \
	"$TMP/job.plan"
check_that "ENROOT_MOUNTS unwritable: exit 0, exactly one lagom: line" \
	'[ "$(cat "$C/rc")" = 0 ] && [ "$(err_lines)" = 1 ] &&
	 grep -q "plan withheld in this container: cannot write" "$C/err"'
check_that "ENROOT_MOUNTS unwritable: no variable of the plan left" \
	'[ "$(plan_vars_in_env)" = 0 ]'
# under a file size limit the mount lines cross: no partial line, one line
before=$(printf '# an earlier hook\n%.0s' $(seq 1 54))
MOUNTS_BEFORE=$before HOOK_ULIMIT_F=1 start_container "$TMP/job.plan"
check_that "ulimit -f 1: the hook lives (exit 0), exactly one lagom: line" \
	'[ "$(cat "$C/rc")" = 0 ] && [ "$(err_lines)" = 1 ] &&
	 [ "$(lagom_lines)" = 1 ]'
check_that "ulimit -f 1: ENROOT_MOUNTS as the earlier hooks left it" \
	'[ "$(cat "$C/mounts")" = "$before" ] && [ ! -s "$C/hookmounts" ]'

check_that "no injected line reached the container's environment" \
	'! grep -q "LD_PRELOAD" "$TMP/all.env"'
check_that "no hostile path reached any mount file" \
	'[ ! -s "$TMP/all.mounts" ]'

# Last: the applied case once more after all that (the fixture is intact).
start_container "$TMP/job.plan"
check_that "applied again after the hostile cases" \
	'[ "$(wc -l <"$C/mounts")" = 2 ] && [ -s "$C/hookmounts" ] &&
	 [ "$(plan_vars_in_env)" = 10 ]'

# The settings file the packages install (built from 50-lagom.conf.in) is
# one the hook reads: it names the installed libraries, which are not on
# this machine, so the plan is withheld for that reason and no other.
PKGCONF=${top_builddir:-.}/contrib/enroot/50-lagom.conf
if [ -f "$PKGCONF" ]; then
	cp "$PKGCONF" "$TMP/hooks.d/50-lagom.conf"
	start_container "$TMP/job.plan"
	check_that "packaged settings: read, the tuner= it names looked for" \
		'grep -q "NCCL_TUNER_PLUGIN is not the admin.s tuner= (/.*/$(
		 )libnccl-tuner-lagom.so)" "$C/err"'
	write_conf
else
	skip "no built $PKGCONF (make builds it)"
fi

done_testing
