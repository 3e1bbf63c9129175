#!/usr/bin/env bash
# tests/integration/oci.sh - a tuned step in Slurm's own OCI container
# (srun --container=BUNDLE, oci.conf driving runc, and crun where it runs)
# on a real cluster gets the whole plan or none, on every rank, and srun -v
# and the job comment say which (doc/containers.md).
#
# The bundle is built here from Debian's busybox-static (the container's
# /bin) with the host's /usr bind-mounted read-only (the C library the
# drivers need).  "with": the bundle also bind-mounts lagom's files (the
# build tree: tuner, profiler) and the measurement spool at their own
# paths; inside, oci_tuner_load loads NCCL_TUNER_PLUGIN as NCCL does and
# the profiler ABI harness writes its records into the user's spool.
# "without": only /usr.  On Slurm 22.05 no plugin can reach the container's
# environment (slurmstepd writes it before spank_init): every case is
# withheld there, and the test says so.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
tuner=$top_builddir/.libs/libnccl-tuner-lagom.so
profiler=$top_builddir/.libs/libnccl-profiler-lagom.so
load=$top_builddir/tests/integration/oci_tuner_load
drive=$top_builddir/tests/profiler/test_profiler_abi
fixture=$top_srcdir/tests/profile/valid/a100-full.json
for f in "$tuner" "$profiler" "$load" "$drive" "$fixture"; do
	[ -f "$f" ] || plan_skip_all "$f not built or missing"
done
command -v runc >/dev/null 2>&1 ||
	plan_skip_all "runc not installed (apt-get install runc)"

# --- the bundle's rootfs from Debian's busybox-static ----------------------
tmp=$(mktemp -d /tmp/lagom-oci.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
busybox_from_debian() { # DEST
	local deb
	first() { [ -f "$1" ] && echo "$1"; }
	deb=$(first /var/cache/apt/archives/busybox-static_*.deb)
	if [ -z "$deb" ]; then
		(cd "$tmp" && timeout 60 apt-get download busybox-static) \
			>/dev/null 2>&1 && deb=$(first "$tmp"/busybox-static_*.deb)
	fi
	if [ -n "$deb" ]; then
		dpkg-deb -x "$deb" "$tmp/deb" && cp "$tmp/deb/bin/busybox" "$1"
		return
	fi
	# installed (the release chroots have it: contrib/slurm-release.sh)
	dpkg -s busybox-static >/dev/null 2>&1 && cp /bin/busybox "$1"
}
rootfs=$tmp/rootfs
mkdir -p "$rootfs/bin" "$rootfs/usr" "$rootfs/proc" "$rootfs/dev" \
	"$rootfs/sys" "$rootfs/tmp" "$rootfs/etc"
busybox_from_debian "$rootfs/bin/busybox" ||
	plan_skip_all "no busybox-static package here (apt-get download busybox-static failed)"
ln -s busybox "$rootfs/bin/sh"
ln -s busybox "$rootfs/bin/env"
# merged /usr, as Debian's: the host's /usr brings the loader and libc
ln -s usr/lib "$rootfs/lib"
ln -s usr/lib64 "$rootfs/lib64"
chmod -R a+rX "$tmp"

# bundle DIR MOUNT...: an OCI bundle (runc spec) whose root is a copy of the
# rootfs above (22.05 runs BUNDLE/rootfs, whatever root.path says), with
# identity bind mounts of the host paths given (ro, but the spool: rw),
# terminal off.
bundle() {
	local dir=$1
	shift
	mkdir -p "$dir"
	cp -a "$rootfs" "$dir/rootfs" && (cd "$dir" && runc spec) || return 1
	python3 - "$dir/config.json" "$spool" "$@" <<'EOF'
import json, sys
path, spool, mounts = sys.argv[1], sys.argv[2], sys.argv[3:]
c = json.load(open(path))
c["root"] = {"path": "rootfs", "readonly": True}
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh"]
for m in mounts:
    opts = ["rbind", "rw" if m == spool else "ro"]
    c["mounts"].append({"destination": m, "type": "bind", "source": m,
                        "options": opts})
json.dump(c, open(path, "w"), indent=1)
EOF
	chmod -R a+rX "$dir"
}

# Does RUNTIME run the bundle here, outside Slurm?  Its error otherwise.
probe() { # RUNTIME
	local b=$tmp/probe-$1
	bundle "$b" /usr >/dev/null 2>&1 || return 1
	python3 - "$b/config.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["/bin/sh", "-c", "echo probe-ok"]
json.dump(c, open(sys.argv[1], "w"))
EOF
	timeout 30 "$1" --root "$tmp/state-probe-$1" run -b "$b" "lagom-probe-$$" \
		</dev/null 2>&1
}
spool=$tmp/spool # for the probe's bundle; the cluster's below
out_probe=$(probe runc)
case $out_probe in
*probe-ok*) ;;
*) plan_skip_all "runc cannot run a container here: $(echo "$out_probe" | head -1)" ;;
esac
runtimes=runc
if command -v crun >/dev/null 2>&1; then
	out_probe=$(probe crun)
	case $out_probe in
	*probe-ok*) runtimes="runc crun" ;;
	*) crun_why=$(echo "$out_probe" | tail -1) ;;
	esac
fi

cluster_unexport HP_
# shellcheck disable=SC2016 # the trap expands it
cluster_setup "$fixture" 'cluster_stop; rm -rf "$tmp"'
[ -n "${crun_why:-}" ] && diag "crun does not run here, runc only: $crun_why"
cluster_spool
cluster_plugstack "profile_dir=$CLUSTER_DIR/profiles" \
	"topology_conf=$CLUSTER_DIR/etc/topology.conf" "tuner=$tuner" \
	"measure_dir=$spool" "profiler=$profiler"
release=$(srun --version | awk '{print $2}')
case $release in
22.05.*) old=1 ;;
*) old= ;;
esac
diag "Slurm $release, runtimes: $runtimes"
tap_on_fail=dump

# oci.conf RUNTIME: the lines of doc/containers.md for root (22.05 has no
# %U: one state directory for the tests' user)
oci_conf() {
	local rt=$1 state=$CLUSTER_DIR/oci-state-$1 id='%n.%u.%j.%s.%t'
	install -d -m 0700 "$state"
	cat >"$CLUSTER_DIR/etc/oci.conf" <<EOF
RunTimeQuery="$rt --root=$state state $id"
RunTimeKill="$rt --root=$state kill -a $id"
RunTimeDelete="$rt --root=$state delete --force $id"
RunTimeRun="$rt --root=$state run $id -b %b"
EOF
}

with=$tmp/bundle-with
without=$tmp/bundle-without
bundle "$with" /usr "$top_builddir" "$spool" || { echo "Bail out! runc spec failed"; exit 1; }
bundle "$without" /usr || { echo "Bail out! runc spec failed"; exit 1; }

value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
plan_vars='^[0-9: ]*(NCCL_|LAGOM_PLAN|LAGOM_MEASURE|TORCH_NCCL|CUDA_DEVICE_MAX)'
names() { grep -E "$plan_vars" "$out" | sed 's/^[0-9: ]*//; s/=.*//' | sort -u; }
# shellcheck disable=SC2016 # expanded in the task
show='echo task-up SLURM_JOB_ID=$SLURM_JOB_ID; env | sort'

# --- the reference: the same step without a container -----------------------
run srun -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c "$show"
check_that "a step without container runs" '[ "$rc" -eq 0 ]'
ref_names=$(names)
check_that "lagom sets its plan there (NCCL_TUNER_PLUGIN on 3 ranks)" \
	'[ "$(grep -cE "^ *[0-9]+: NCCL_TUNER_PLUGIN=$tuner\$" "$out")" -eq 3 ]'
job=$(value SLURM_JOB_ID)
c=$(cluster_sacct "$job" Comment lagom)
check "its comment names no container" \
	bash -c "case '$c' in *lagom*) case '$c' in *container:*) exit 1;; esac;; *) exit 1;; esac"

for rt in $runtimes; do
	oci_conf "$rt"
	# --- with lagom's files mounted --------------------------------------
	harness="HP_LOG=/dev/null HP_RANKS=12 HP_NODES=3 $drive --scenario train 5"
	run_timeout=120 run srun -v -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \
		--container="$with" /bin/sh -c \
		"$show; $load 12 3; $harness >/dev/null 2>&1; echo harness=\$?"
	check_that "$rt with: the containerised step runs on 3 nodes" \
		'[ "$rc" -eq 0 ] && [ "$(grep -c "task-up SLURM_JOB_ID=" "$out")" -eq 3 ]'
	job=$(value SLURM_JOB_ID)
	c=$(cluster_sacct "$job" Comment container)
	lines=$(grep -c 'lagom: .*a container step' "$err")
	if [ -z "$old" ]; then
		check_that "$rt with: every rank has the whole plan (the names of a step without container)" \
			'[ -n "$ref_names" ] && [ "$(names)" = "$ref_names" ]'
		check "$rt with: NCCL_TUNER_PLUGIN=$tuner on 3 ranks" \
			[ "$(grep -cE "^ *[0-9]+: NCCL_TUNER_PLUGIN=$tuner\$" "$out")" -eq 3 ]
		check "$rt with: the tuner loads inside the container on 3 ranks" \
			[ "$(grep -c "tuner: loaded $tuner (v4)" "$out")" -eq 3 ]
		check_that "$rt with: the tuner applies the plan there (its entries for 12 ranks on 3 nodes)" \
			'[ "$(grep -cE "tuner-log: lagom tuner: plan [0-9a-f]{16} applies [1-9][0-9]* entries" "$out")" -eq 3 ]'
		check "$rt with: the profiler harness ran on 3 ranks" \
			[ "$(grep -cE '^ *[0-9]+: harness=0$' "$out")" -eq 3 ]
		check "$rt with: one record per rank in the user's spool" \
			[ "$(ls "$spool/root/$job.0" 2>/dev/null | grep -c '^task-[0-2]\..*\.rec$')" -eq 3 ]
		check "$rt with: srun -v says the whole plan was applied, once" \
			[ "$lines" -eq 1 -a \
			"$(grep -c 'a container step: .*whole plan applied' "$err")" -eq 1 ]
		check "$rt with: the comment says container: plan files mounted (node 0)" \
			bash -c "case '$c' in *'container: plan files mounted (node 0)'*) ;; *) exit 1;; esac"
	else
		check "$rt with (22.05): no variable of the plan reaches the container" \
			[ -z "$(names)" ]
		check "$rt with (22.05): srun -v says why, in one line" \
			[ "$lines" -eq 1 -a \
			"$(grep -c 'writes the container.s environment before plugins run: plan withheld' "$err")" -eq 1 ]
		check "$rt with (22.05): the comment says container: plan withheld (slurm before 23.02)" \
			bash -c "case '$c' in *'container: plan withheld (slurm before 23.02)'*) ;; *) exit 1;; esac"
	fi
	grep -q 'CUDA_VISIBLE_DEVICES=' "$out" &&
		diag "$rt: CUDA_VISIBLE_DEVICES reaches the container" ||
		diag "$rt: CUDA_VISIBLE_DEVICES does not reach the container (Slurm $release)"
	grep -q 'SLURM_LAGOM_STEP_PLAN=' "$out" &&
		diag "$rt: srun's plan text reaches the container's environment (Slurm $release writes it from the launch environment)"
	# doc/profiler.md: what srun sends beside the plan is removed before
	# the tasks start; before 23.02 the container's environment is written
	# earlier, from srun's (doc/containers.md says so)
	sent=$(grep -cE '^ *[0-9]+: SLURM_LAGOM_(PREDICTED|STEP_KEY)=' "$out")
	if [ -z "$old" ]; then
		check "$rt with: SLURM_LAGOM_PREDICTED and SLURM_LAGOM_STEP_KEY removed before the tasks start" \
			[ "$sent" -eq 0 ]
	else
		check "$rt with (22.05): SLURM_LAGOM_PREDICTED and SLURM_LAGOM_STEP_KEY visible in the container, as doc/profiler.md says" \
			[ "$sent" -eq 6 ]
	fi

	# --- without them --------------------------------------------------------
	run_timeout=120 run srun -v -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \
		--container="$without" /bin/sh -c "$show"
	check_that "$rt without: the step runs on 3 nodes all the same" \
		'[ "$rc" -eq 0 ] && [ "$(grep -c "task-up SLURM_JOB_ID=" "$out")" -eq 3 ]'
	job=$(value SLURM_JOB_ID)
	c=$(cluster_sacct "$job" Comment container)
	check "$rt without: no variable of the plan on any rank" [ -z "$(names)" ]
	check "$rt without: srun -v says why, in one lagom: line" \
		[ "$(grep -c 'lagom: .*a container step' "$err")" -eq 1 ]
	if [ -z "$old" ]; then
		check "$rt without: the reason is the unmounted tuner" \
			[ "$(grep -c 'the tuner is not mounted into the container: plan withheld; no NCCL variable of the plan is set' "$err")" -eq 1 ]
		check "$rt without: the comment says container: plan withheld (tuner not mounted)" \
			bash -c "case '$c' in *'container: plan withheld (tuner not mounted)'*) ;; *) exit 1;; esac"
	else
		check "$rt without (22.05): the comment says container: plan withheld (slurm before 23.02)" \
			bash -c "case '$c' in *'container: plan withheld (slurm before 23.02)'*) ;; *) exit 1;; esac"
	fi
done
plan "$tap_n"
done_testing
