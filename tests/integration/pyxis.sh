#!/usr/bin/env bash
# tests/integration/pyxis.sh - a tuned step in a real pyxis + enroot
# container on a real cluster (doc/containers.md): NVIDIA's pyxis and enroot
# built here from ../shared/vendor (contrib/build-pyxis-enroot.sh; pyxis
# against this release's slurm/spank.h), a squashfs image made here from
# Debian's busybox-static and the programs the checks run, passed to
# srun --container-image as a path.
#
# With lagom's enroot hook enabled the documented way (a link in enroot's
# hooks.d, its settings beside it): every rank inside the container has the
# whole plan, the tuner loads there (oci_tuner_load), a measured step's
# records land in the user's spool, and the job comment names the plan.
# With the hook off, or --container-mounts shadowing the tuner's
# directory: no rank has a variable of the plan, each task says why in one
# line.  With lagom's plugstack.conf line before pyxis's, lagom's task_init
# runs before the task is in the container: every task withholds the plan
# whatever the hook does, each saying why in one line.  The job comment
# states only the rule node 0 knows ("pyxis, each task keeps the plan only
# if it finds its files"), never that the plan was applied.  Both orders,
# and an sbatch step.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
tuner=$top_builddir/.libs/libnccl-tuner-lagom.so
profiler=$top_builddir/.libs/libnccl-profiler-lagom.so
load=$top_builddir/tests/integration/oci_tuner_load
drive=$top_builddir/tests/profiler/test_profiler_abi
hook=$top_srcdir/contrib/enroot/50-lagom.sh
fixture=$top_srcdir/tests/profile/valid/a100-full.json
for f in "$tuner" "$profiler" "$load" "$drive" "$hook" "$fixture"; do
	[ -f "$f" ] || plan_skip_all "$f not built or missing"
done
for t in mksquashfs dpkg-deb ldd python3; do
	command -v "$t" >/dev/null 2>&1 ||
		plan_skip_all "$t not installed (contrib/install-deps.sh)"
done

tmp=$(mktemp -d /tmp/lagom-pyxis.XXXXXX) || exit 1
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# --- enroot and pyxis, built from the vendored sources (seconds) ----------
# into this test's directory: pyxis hands enroot no ENROOT_* variable of
# its own, so enroot's configuration is its built-in sysconfdir's
built=$(bash "$top_srcdir/contrib/build-pyxis-enroot.sh" "$tmp/vendor" 2>"$tmp/build.err")
case $? in
0) ;;
77) plan_skip_all "$(sed 's/^build-pyxis-enroot: //' "$tmp/build.err")" ;;
*) echo "Bail out! $(cat "$tmp/build.err")"; exit 1 ;;
esac
enroot_bin=$(echo "$built" | sed -n 1p)
pyxis=$(echo "$built" | sed -n 2p)

# --- the image: busybox, the programs, their libraries --------------------
deb=$(ls /var/cache/apt/archives/busybox-static_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	(cd "$tmp" && timeout 60 apt-get download busybox-static) >/dev/null 2>&1
	deb=$(ls "$tmp"/busybox-static_*.deb 2>/dev/null | head -n 1)
fi
root=$tmp/rootfs
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/proc" "$root/dev" \
	"$root/sys" "$root/usr/local/bin"
# the package's busybox, or the installed one (the release chroots have
# busybox-static installed and no network to download it)
if [ -n "$deb" ]; then
	dpkg-deb -x "$deb" "$tmp/deb" && cp "$tmp/deb/bin/busybox" "$root/bin/busybox"
elif dpkg -s busybox-static >/dev/null 2>&1; then
	cp /bin/busybox "$root/bin/busybox"
fi
[ -x "$root/bin/busybox" ] ||
	plan_skip_all "no busybox-static package here (apt-get download busybox-static failed, and it is not installed)"
for b in sh env ls cat sort; do ln -s busybox "$root/bin/$b"; done
cp "$load" "$root/usr/local/bin/oci_tuner_load"
cp "$drive" "$root/usr/local/bin/profiler_harness"
# the programs' and the plugins' libraries, at their host paths
for f in "$load" "$drive" "$tuner" "$profiler"; do
	for l in $(ldd "$f" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
done
printf 'PATH=/usr/local/bin:/bin\nIMAGE_VAR=kept\n' >"$root/etc/environment"
chmod -R a+rX "$root"
image=$tmp/lagom-test.sqsh
mksquashfs "$root" "$image" -noappend -all-root -quiet >/dev/null 2>&1 ||
	plan_skip_all "mksquashfs could not make the image"
chmod 0644 "$image"

# --- enroot's configuration: its own, lagom's hook enabled as documented ---
sys=$(dirname "$enroot_bin")/etc/enroot
# three slurmd share this machine, each in a UTS namespace of its own
# (n1..n3): each node's enroot its own directories (enroot.conf values are
# shell words, evaluated by enroot)
# shellcheck disable=SC2016 # evaluated by enroot
printf 'ENROOT_%s_PATH %s/enroot/$(hostname)/%s\n' RUNTIME "$tmp" run \
	DATA "$tmp" data CACHE "$tmp" cache TEMP "$tmp" temp >>"$sys/enroot.conf"
spool=$tmp/spool # the cluster's below, once CLUSTER_DIR is known
hook_on() {
	ln -sf "$hook" "$sys/hooks.d/50-lagom.sh"
	printf 'tuner=%s\nprofiler=%s\nmeasure_dir=%s\n' "$(readlink -f "$tuner")" \
		"$(readlink -f "$profiler")" "$spool" >"$sys/hooks.d/50-lagom.conf"
}
hook_off() { rm -f "$sys/hooks.d/50-lagom.sh" "$sys/hooks.d/50-lagom.conf"; }
for n in n1 n2 n3; do
	mkdir -p "$tmp/enroot/$n/run" "$tmp/enroot/$n/data" \
		"$tmp/enroot/$n/cache" "$tmp/enroot/$n/temp"
done
mkdir -p "$tmp/pyxis-run"
# slurmd, hence slurmstepd, passes its PATH to pyxis's enroot
export PATH="$enroot_bin:$PATH"

# enroot itself, without Slurm or lagom, must start the image here: where
# it cannot (a release chroot in namespaces of its own, say), the test says
# why and skips, rather than blaming lagom for the environment
h=$(hostname)
mkdir -p "$tmp/enroot/$h/run" "$tmp/enroot/$h/data" "$tmp/enroot/$h/cache" \
	"$tmp/enroot/$h/temp"
if ! timeout 120 enroot create -n lagom-preflight "$image" >"$tmp/preflight.log" 2>&1 ||
	! timeout 60 enroot start lagom-preflight sh -c : >>"$tmp/preflight.log" 2>&1; then
	why=$(grep -v '^$' "$tmp/preflight.log" | tail -n 1 | tr -cd '[:print:]' | cut -c1-200)
	plan_skip_all "enroot cannot start a container here, without Slurm or lagom: ${why:-no message}"
fi
timeout 60 enroot remove -f lagom-preflight >/dev/null 2>&1

cluster_unexport HP_
# shellcheck disable=SC2016 # the trap expands it
cluster_setup "$fixture" 'cluster_stop; rm -rf "$tmp"'
cluster_spool
tuner=$(readlink -f "$tuner")
profiler=$(readlink -f "$profiler")
lagom_line="required $LAGOM_PLUGIN profile_dir=$CLUSTER_DIR/profiles topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=$tuner measure_dir=$spool profiler=$profiler"
pyxis_line="required $pyxis runtime_path=$tmp/pyxis-run"
release=$(srun --version | awk '{print $2}')
diag "Slurm $release, pyxis 0.24.0, enroot 4.1.2 (from ../shared/vendor)"
# on a failure: the plan's variables and the lagom: lines of the last run
why_failed() {
	grep -E "$plan_vars|lagom" "$out" "$err" | sed 's/^/#   /' | head -40
}
tap_on_fail=why_failed

value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
plan_vars_names='NCCL_|LAGOM_PLAN|LAGOM_MEASURE|TORCH_NCCL|CUDA_DEVICE_MAX'
plan_vars="^[0-9: ]*($plan_vars_names)"
names() { grep -E "$plan_vars" "$1" | sed 's/^[0-9: ]*//; s/=.*//' | sort -u; }
sacct_comment() { # JOB
	local c='' _
	for _ in $(seq 1 20); do
		c=$(timeout 10 sacct -X -n -P -j "$1" -o Comment 2>/dev/null | head -1)
		case $c in *lagom*) break ;; esac
		sleep 0.5
	done
	echo "$c"
}
# shellcheck disable=SC2016 # expanded in the task
show='echo task-up SLURM_JOB_ID=$SLURM_JOB_ID; env | sort'
harness="HP_LOG=/dev/null HP_RANKS=12 HP_NODES=3 profiler_harness --scenario train 5"
inside="$show; oci_tuner_load 12 3; $harness >/dev/null 2>&1; echo harness=\$?"
srun_c() { # SRUN-ARGS...: the containerised step, its output in $out/$err
	run_timeout=180 run srun -l -N3 --gres=gpu:4 --lagom=auto \
		--lagom-workload=phi-2:fsdp --container-image="$image" "$@" \
		sh -c "$inside"
}
# each task's one line, by plugstack.conf order (spank/container.c)
withheld_line() { # ORDER
	if [ "$1" = lagom-then-pyxis ]; then
		echo "lagom: this task is not in pyxis's container yet, so its files cannot be checked (lagom's plugstack.conf line must follow pyxis's): plan withheld on this task"
	else
		echo "lagom: the container lacks the tuner $tuner: plan withheld on this task"
	fi
}
# what node 0 writes for a pyxis step: the rule, not an outcome
rule="container: pyxis, each task keeps the plan only if it finds its files"

# --- the reference: the same step without a container -----------------------
echo "$lagom_line" >"$CLUSTER_DIR/etc/plugstack.conf"
run srun -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c "$show"
ref_names=$(names "$out")
check_that "without container: the plan on every rank" \
	'[ "$rc" -eq 0 ] && [ -n "$ref_names" ] &&
	 [ "$(grep -cE "^ *[0-9]+: NCCL_TUNER_PLUGIN=$tuner\$" "$out")" -eq 3 ]'

# applied ORDER: the whole plan inside, the tuner loads, the records land
applied() {
	local order=$1 job c
	check_that "$order, hook on: the containerised step runs on 3 nodes" \
		'[ "$rc" -eq 0 ] && [ "$(grep -c "task-up SLURM_JOB_ID=" "$out")" -eq 3 ]'
	check_that "$order, hook on: the container's own variables are there" \
		'[ "$(grep -c "IMAGE_VAR=kept" "$out")" -eq 3 ]'
	check_that "$order, hook on: every rank has the whole plan (the names of a step without container)" \
		'[ "$(names "$out")" = "$ref_names" ]'
	check "$order, hook on: the tuner loads inside the container on 3 ranks" \
		[ "$(grep -c "tuner: loaded $tuner (v4)" "$out")" -eq 3 ]
	check_that "$order, hook on: the tuner applies the plan there" \
		'[ "$(grep -cE "tuner-log: lagom tuner: plan [0-9a-f]{16} applies [1-9][0-9]* entries" "$out")" -eq 3 ]'
	job=$(value SLURM_JOB_ID)
	check_that "$order, hook on: the measured step's records in the user's spool" \
		'[ "$(grep -cE "^ *[0-9]+: harness=0$" "$out")" -eq 3 ] &&
		 [ "$(ls "$spool/root/$job.0" 2>/dev/null | grep -c "^task-[0-2]\..*\.rec$")" -eq 3 ]'
	check_that "$order, hook on: no lagom: line says withheld" \
		'! grep -q "withheld" "$err"'
	c=$(sacct_comment "$job")
	# what the issue's closing note shows: rank 0's plan inside, the comment
	diag "$order: rank 0 inside the container: $(grep -E "^ *0: ($plan_vars_names)" "$out" |
		sed 's/^ *0: //' | tr '\n' ' ')"
	diag "$order: sacct comment: $c"
	check_that "$order, hook on: the comment names the plan and pyxis's rule, nothing withheld" \
		'case "$c" in *"plan="*"$rule"*) ! case "$c" in *withheld*) true ;; *) false ;; esac ;; *) false ;; esac'
}
# withheld ORDER WHAT: no rank has the plan, one line per task, the
# comment no claim beyond the rule (doc/containers.md, "plugstack.conf
# order")
withheld_all() {
	local order=$1 what=$2 job c withheld
	withheld=$(withheld_line "$order")
	check_that "$order, $what: the step runs on 3 nodes all the same" \
		'[ "$rc" -eq 0 ] && [ "$(grep -c "task-up SLURM_JOB_ID=" "$out")" -eq 3 ]'
	check_that "$order, $what: no rank has a variable of the plan" \
		'[ -z "$(names "$out")" ]'
	check_that "$order, $what: one lagom: line per task says why" \
		'[ "$(grep -cF -- "$withheld" "$err")" -eq 3 ] &&
		 [ "$(grep -c "^lagom:\|: lagom:" "$err")" -eq 3 ]'
	job=$(value SLURM_JOB_ID)
	c=$(sacct_comment "$job")
	diag "$order, $what: sacct comment: $c"
	check_that "$order, $what: the comment states pyxis's rule and claims nothing applied" \
		'case "$c" in *"$rule"*) ! case "$c" in *"files mounted"*|*applied*) true ;; *) false ;; esac ;; *) false ;; esac'
}

for order in "pyxis-then-lagom" "lagom-then-pyxis"; do
	if [ "$order" = pyxis-then-lagom ]; then
		printf '%s\n%s\n' "$pyxis_line" "$lagom_line"
	else
		printf '%s\n%s\n' "$lagom_line" "$pyxis_line"
	fi >"$CLUSTER_DIR/etc/plugstack.conf"
	hook_on
	# pyxis loaded, no container asked: a plain tuned step
	run srun -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c "$show"
	c=$(sacct_comment "$(value SLURM_JOB_ID)")
	check_that "$order, no --container-image: every rank has the plan, no line, no container in the comment" \
		'[ "$rc" -eq 0 ] && [ "$(names "$out")" = "$ref_names" ] &&
		 ! grep -q "lagom:" "$err" && case "$c" in *"plan="*) ! case "$c" in *container*) true ;; *) false ;; esac ;; *) false ;; esac'
	srun_c
	if [ "$order" = pyxis-then-lagom ]; then
		applied "$order"
	else
		withheld_all "$order" "hook on"
	fi
	# the user's --container-mounts hide the tuner's directory
	mkdir -p "$tmp/empty"
	srun_c --container-mounts="$tmp/empty:$(dirname "$tuner")"
	withheld_all "$order" "--container-mounts over the tuner"
	hook_off
	srun_c
	withheld_all "$order" "hook off"
done

# --- from an sbatch (pyxis before lagom, the hook on) ----------------------
printf '%s\n%s\n' "$pyxis_line" "$lagom_line" >"$CLUSTER_DIR/etc/plugstack.conf"
hook_on
cat >"$tmp/job.sh" <<EOF
#!/bin/sh
srun -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \\
	--container-image="$image" sh -c '$inside'
EOF
run_timeout=240 run sbatch -W -N3 --gres=gpu:4 -o "$tmp/sbatch.out" \
	-e "$tmp/sbatch.err" "$tmp/job.sh"
cp "$tmp/sbatch.out" "$out" 2>/dev/null
cp "$tmp/sbatch.err" "$err" 2>/dev/null
applied "sbatch"

plan "$tap_n"
done_testing
