#!/usr/bin/env bash
# tests/integration/export_none.sh - what srun sends beside the plan reaches
# the nodes also under srun --export=NONE (and --export=VAR): the step's
# predictions (STEP/predicted) and its key (STEP/key, which the next step of
# the same key learns from) are written on every node, as with the default
# --export=ALL.  srun then sends only the variables it names and Slurm's own
# SLURM_* ones, so both travel under SLURM_ names (doc/profiler.md).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "$profile_fixture missing"
cluster_setup "$profile_fixture"
cluster_spool
cluster_plugstack $CLUSTER_ARGS "measure_dir=$spool profiler=/bin/true"
tap_on_fail=dump
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
show='echo SLURM_JOB_ID=$SLURM_JOB_ID LAGOM_PLAN_ID=$LAGOM_PLAN_ID LAGOM_MEASURE_DIR=$LAGOM_MEASURE_DIR LEAK=${LAGOM_PREDICTED-}${LAGOM_STEP_KEY-}${SLURM_LAGOM_PREDICTED-}${SLURM_LAGOM_STEP_KEY-}'

for export in ALL NONE HOME; do
	run srun -N3 --gres=gpu:4 --export=$export -J lagom-export \
		--lagom=auto /bin/bash -c "$show"
	check_that "--export=$export: the step runs tuned on 3 nodes" \
		'[ "$rc" -eq 0 ] && [ "$(grep -c "LAGOM_PLAN_ID=[0-9a-f]" "$out")" -eq 3 ]'
	job=$(value SLURM_JOB_ID)
	plan=$(value LAGOM_PLAN_ID)
	dir=$spool/root/$job.0
	diag "--export=$export: $dir: $(ls "$dir" 2>&1 | tr '\n' ' ')"
	check "--export=$export: the step's predictions reached the nodes" \
		grep -q "^plan $plan\$" "$dir/predicted"
	check "--export=$export: the step's key reached the nodes" \
		[ -s "$dir/key" ]
	check "--export=$export: no task sees what srun sent for lagom" \
		[ "$(grep -c 'LEAK=$' "$out")" -eq 3 ]
done

plan "$tap_n"
done_testing
