#!/usr/bin/env bash
# tests/integration/container_ns.sh - a container plugin that moves each task
# into a mount namespace of its own (as pyxis does with enroot's, in its
# task_init) on a real cluster: lagom's task_init, listed after it, sees
# whether the task reaches the tuner there; where it does not, no variable
# of the plan reaches the task and one "lagom:" line on the task's stderr
# says so; where it does, the whole plan (doc/containers.md).
#
# The container plugin is a stand-in for pyxis's namespace switch, built
# here against the Slurm headers: its task_init_privileged unshares the
# task's mount namespace, makes every mount private and, with hide=DIR,
# mounts an empty tmpfs over DIR (the tuner's directory): what an image
# without lagom's files looks like from inside.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
tuner=$top_builddir/.libs/libnccl-tuner-lagom.so
fixture=$top_srcdir/tests/profile/valid/a100-full.json
for f in "$tuner" "$fixture"; do
	[ -f "$f" ] || plan_skip_all "$f not built or missing"
done

tmp=$(mktemp -d /tmp/lagom-ns.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/standin.c" <<'EOF'
/* A stand-in for pyxis's namespace switch (lagom's tests only): each task
 * gets a mount namespace of its own; hide=DIR puts an empty tmpfs on DIR. */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <slurm/spank.h>

SPANK_PLUGIN(nsstandin, 1)

static char hide[4096];

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++)
		if (strncmp(av[i], "hide=", 5) == 0)
			strncpy(hide, av[i] + 5, sizeof(hide) - 1);
	return 0;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		slurm_error("nsstandin: cannot unshare the mount namespace");
		return -1;
	}
	if (hide[0] && mount("tmpfs", hide, "tmpfs", 0, "size=64k") < 0) {
		slurm_error("nsstandin: cannot mount over %s", hide);
		return -1;
	}
	return 0;
}
EOF
slurm_cppflags=$(sed -n 's/^SLURM_CPPFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)
# shellcheck disable=SC2086 # the configured flags, one word each
${CC:-cc} $slurm_cppflags -shared -fPIC -o "$tmp/standin.so" "$tmp/standin.c" 2>"$tmp/cc.err" ||
	plan_skip_all "cannot build the stand-in plugin: $(head -1 "$tmp/cc.err")"
# The stand-in's own calls, tried here first: where a mount namespace
# cannot be made (a chroot or a container without CAP_SYS_ADMIN), every
# step would fail in the stand-in, not in lagom.
cat >"$tmp/probe.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	if (unshare(CLONE_NEWNS) < 0) {
		printf("unshare(CLONE_NEWNS): %s\n", strerror(errno));
		return 1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("making / private: %s\n", strerror(errno));
		return 1;
	}
	if (mount("tmpfs", argv[1], "tmpfs", 0, "size=64k") < 0) {
		printf("a tmpfs: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
EOF
${CC:-cc} -o "$tmp/probe" "$tmp/probe.c" 2>"$tmp/cc.err" ||
	plan_skip_all "cannot build the namespace probe: $(head -1 "$tmp/cc.err")"
mkdir -p "$tmp/probe-dir"
why=$("$tmp/probe" "$tmp/probe-dir" 2>&1) ||
	plan_skip_all "a mount namespace cannot be made here (${why:-the probe failed}):" \
		"the stand-in of pyxis's namespace switch cannot run"
chmod -R a+rX "$tmp"

cluster_unexport
# shellcheck disable=SC2016 # the trap expands it
cluster_setup "$fixture" 'cluster_stop; rm -rf "$tmp"'
tap_on_fail=dump
lagom_line="required $LAGOM_PLUGIN profile_dir=$CLUSTER_DIR/profiles topology_conf=$CLUSTER_DIR/etc/topology.conf tuner=$tuner"
plan_vars='^[0-9: ]*(NCCL_|LAGOM_|TORCH_NCCL|CUDA_DEVICE_MAX)'
withheld="lagom: the container lacks the tuner $tuner: plan withheld on this task"
step() { run srun -l -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c 'echo task-up; env | sort'; }
plan 7

# --- the reference: no container plugin ---------------------------------------
echo "$lagom_line" >"$CLUSTER_DIR/etc/plugstack.conf"
step
check_that "without container plugin: NCCL_TUNER_PLUGIN on 3 ranks" \
	'[ "$(grep -cE "^ *[0-9]+: NCCL_TUNER_PLUGIN=$tuner\$" "$out")" -eq 3 ]'
ref=$(grep -E "$plan_vars" "$out" | sed 's/^[0-9: ]*//; s/=.*//' | sort -u)

# --- the container's namespace hides the tuner: none of the plan ------------
printf 'required %s hide=%s\n%s\n' "$tmp/standin.so" "$(dirname "$tuner")" "$lagom_line" \
	>"$CLUSTER_DIR/etc/plugstack.conf"
step
check_that "tuner hidden: the step runs on 3 ranks" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "task-up" "$out")" -eq 3 ]'
check_that "tuner hidden: no task has a variable of the plan" \
	'! grep -qE "$plan_vars" "$out"'
check_that "tuner hidden: one lagom: line per task, naming the admin's tuner" \
	'[ "$(grep -c -- "$withheld" "$err")" -eq 3 ] && [ "$(grep -c "lagom:" "$err")" -eq 3 ]'

# --- the namespace shows the tuner: the whole plan -------------------------
printf 'required %s\n%s\n' "$tmp/standin.so" "$lagom_line" \
	>"$CLUSTER_DIR/etc/plugstack.conf"
step
check_that "tuner reachable: the step runs on 3 ranks" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "task-up" "$out")" -eq 3 ]'
check_that "tuner reachable: every rank has the whole plan (the names of a step without container)" \
	'[ -n "$ref" ] && [ "$(grep -E "$plan_vars" "$out" | sed "s/^[0-9: ]*//; s/=.*//" | sort -u)" = "$ref" ] &&
	 [ "$(grep -cE "^ *[0-9]+: NCCL_TUNER_PLUGIN=$tuner\$" "$out")" -eq 3 ]'
check_that "tuner reachable: no withheld line" '! grep -q "withheld" "$err"'
done_testing
