#!/usr/bin/env bash
# tests/integration/step_source.sh - where srun learns the step's nodes and
# GPUs (doc/consistency.md "Where the step's shape comes from"), on a real
# Slurm: from its own options where they tell it exactly, else from
# slurmctld.  For each way of starting a step, the plan srun makes with
# the default (step_query=auto) is the plan it makes asking slurmctld
# every time (step_query=always), every task of the step has that plan,
# and srun -v names the source it used.  srun's options are read only on
# the releases where this test proved them
# (lagom_slurm_srun_opts_verified() in compat/slurm_compat.h: 22.05, 24.11,
# 26.05); on the others every step asks slurmctld.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"

cluster_unexport SLURM_
cluster_setup "$profile_fixture"
wl=phi-2:fsdp
run_timeout=90
show_env='echo $(/bin/hostname) $(/usr/bin/env | /bin/grep -E "^LAGOM_PLAN_ID=" | /usr/bin/tr "\n" " ")'

# plan_of FILE: "ID NxG" from srun -v's plan line, or the reason srun gave
plan_of() {
	local line
	line=$(grep -o 'lagom: job [0-9.]*: auto plan [0-9a-f]* for [0-9]* nodes x [0-9]* GPUs' "$1" | head -1)
	if [ -n "$line" ]; then
		echo "$line" | sed 's/.* plan \([0-9a-f]*\) for \([0-9]*\) nodes x \([0-9]*\) GPUs/\1 \2x\3/'
	else
		# the reason, without where srun took the step from
		grep -o 'lagom: job [0-9.]*: .*no node of the step is tuned' "$1" | head -1 |
			sed -e 's/lagom: job [0-9.]*: //' \
				-e "s/(the step's nodes and GPUs from srun's options; /(/" \
				-e 's/([0-9.]* ms of it asking slurmctld for the step; /(/'
	fi
}
# source_of FILE: options, slurmctld or none (from the plan line, or from
# the line saying why there is no plan)
source_of() {
	if grep -q "lagom: .*the step's nodes and GPUs from srun's options" "$1"; then
		echo options
	elif grep -q 'lagom: .*ms of it asking slurmctld for the step' "$1"; then
		echo slurmctld
	else
		echo none
	fi
}
# tasks_agree FILE N ID: N task lines, each with LAGOM_PLAN_ID=ID
tasks_agree() {
	[ "$(grep -c '^n[0-9]' "$1")" -eq "$2" ] &&
		[ "$(grep -c "LAGOM_PLAN_ID=$3 *\$" "$1")" -eq "$2" ]
}

# compare DESC NTASKS WANT_SOURCE CMD...: CMD with step_query=auto and with
# step_query=always
compare() {
	local desc=$1 n=$2 want=$3 auto_plan always_plan auto_src id
	shift 3
	cluster_plugstack $CLUSTER_ARGS
	run "$@"
	cat "$out" "$err" >"$CLUSTER_DIR/auto.txt"
	auto_plan=$(plan_of "$CLUSTER_DIR/auto.txt")
	auto_src=$(source_of "$CLUSTER_DIR/auto.txt")
	cluster_plugstack $CLUSTER_ARGS step_query=always
	run "$@"
	cat "$out" "$err" >"$CLUSTER_DIR/always.txt"
	always_plan=$(plan_of "$CLUSTER_DIR/always.txt")
	diag "$desc: $auto_src: $auto_plan; slurmctld: $always_plan"
	tap_on_fail=dump
	check_that "$desc: the same plan as asking slurmctld" \
		'[ -n "$auto_plan" ] && [ "$auto_plan" = "$always_plan" ]' 
	check "... srun took the step from $want" [ "$auto_src" = "$want" ]
	check "... (step_query=always asked slurmctld)" \
		[ "$(source_of "$CLUSTER_DIR/always.txt")" = slurmctld ]
	case $auto_plan in
	*"no GPUs"*) return ;; # no plan: no task has one
	esac
	id=${auto_plan%% *}
	check_that "... every task of the step has that plan" \
		'tasks_agree "$CLUSTER_DIR/auto.txt" "$n" "$id"' 
}

# fast: where srun takes a step it can tell exactly from on this release
release=$(srun --version | sed -n 's/^slurm[a-z-]* \([0-9]*\.[0-9]*\)\..*/\1/p')
case $release in
22.05 | 24.11 | 26.05) fast=options ;;
'') plan_skip_all "cannot read the release from 'srun --version'" ;;
*) fast=slurmctld ;;
esac
diag "Slurm $release: srun's options are read on this release: $([ $fast = options ] && echo yes || echo no)"

lg=(--lagom=auto --lagom-workload=$wl)
compare "srun -N3 --gres=gpu:4" 3 $fast \
	srun -v -N3 --gres=gpu:4 "${lg[@]}" /bin/bash -c "$show_env"
compare "srun -N3 --gpus-per-node=2" 3 $fast \
	srun -v -N3 --gpus-per-node=2 "${lg[@]}" /bin/bash -c "$show_env"
compare "SLURM_GPUS_PER_NODE=2 srun -N3 (from the environment)" 3 $fast \
	env SLURM_GPUS_PER_NODE=2 srun -v -N3 "${lg[@]}" /bin/bash -c "$show_env"
compare "srun -N3 -n6 --gpus-per-task=2" 6 $fast \
	srun -v -N3 -n6 --gpus-per-task=2 "${lg[@]}" /bin/bash -c "$show_env"
compare "srun -N1 --gpus=3" 1 $fast \
	srun -v -N1 --gpus=3 "${lg[@]}" /bin/bash -c "$show_env"
compare "srun --export=NONE -N3 --gres=gpu:4" 3 $fast \
	srun -v --export=NONE -N3 --gres=gpu:4 "${lg[@]}" /bin/bash -c "$show_env"
compare "salloc -N3 --gres=gpu:4, srun --gres=none (no GPUs, not the job's)" 3 $fast \
	salloc -N3 --gres=gpu:4 srun -v --gres=none "${lg[@]}" /bin/bash -c "$show_env"
# 24.11's srun sends none alone (no GPUs); 22.05's sends gres:gpu:2,none,
# which slurmctld refuses (no step)
if [ "$release" = 22.05 ]; then
	run salloc -N3 --gres=gpu:4 srun --gpus-per-node=2 --gres=none "${lg[@]}" /bin/true
	check "salloc -N3 --gres=gpu:4, srun --gpus-per-node=2 --gres=none: no step on 22.05" \
		[ "$rc" -ne 0 ]
else
	compare "salloc -N3 --gres=gpu:4, srun --gpus-per-node=2 --gres=none" 3 $fast \
		salloc -N3 --gres=gpu:4 srun -v --gpus-per-node=2 --gres=none "${lg[@]}" /bin/bash -c "$show_env"
fi
compare "salloc -N3, srun -N2 (fewer nodes than the allocation)" 2 slurmctld \
	salloc -N3 --gres=gpu:4 srun -v -N2 --gres=gpu:4 "${lg[@]}" /bin/bash -c "$show_env"
compare "salloc -N3 --gres=gpu:4, srun without GPU options (the job's)" 3 slurmctld \
	salloc -N3 --gres=gpu:4 srun -v "${lg[@]}" /bin/bash -c "$show_env"
# sbatch --wait, then the batch output (srun -v's lines and the tasks')
cat >"$CLUSTER_DIR/batch" <<SH
#!/bin/sh
rm -f "$work/batch.out"
sbatch --wait -N3 --gres=gpu:4 -o "$work/batch.out" --wrap "\$*" >/dev/null
rc=\$?
cat "$work/batch.out"
exit \$rc
SH
chmod 0755 "$CLUSTER_DIR/batch"
compare "sbatch -N3 --gres=gpu:4, srun -N3 --gres=gpu:2 in the script" 3 $fast \
	"$CLUSTER_DIR/batch" "srun -v -N3 --gres=gpu:2 ${lg[*]} /bin/bash -c '$show_env'"

plan "$tap_n"
done_testing
