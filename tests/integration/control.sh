#!/usr/bin/env bash
# tests/integration/control.sh - the control arm on the real cluster
# (doc/report.md): with control=1 every --lagom=auto step of a measured
# site is a control: on all three nodes the tasks get NCCL's defaults (no
# LAGOM_PLAN_ID, no NCCL_* of the plan, the user's own NCCL setting
# untouched) and lagom's profiler, STEP/predicted records the plan with
# "arm control", srun -v and the job comment say so.  --lagom=auto,nocontrol
# runs tuned (control_optout=yes) and not when the admin says
# control_optout=no; --lagom=measure runs a measured untuned step on
# purpose; control=0 makes no control.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "$profile_fixture missing"
cluster_setup "$profile_fixture"
cluster_spool
M="measure_dir=$spool profiler=/bin/true"
cluster_plugstack $CLUSTER_ARGS "$M control=1"
tap_on_fail=dump
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
show='echo $(hostname) SLURM_JOB_ID=$SLURM_JOB_ID PLAN=${LAGOM_PLAN_ID-} CTAS=${NCCL_MIN_CTAS-} PROF=${NCCL_PROFILER_PLUGIN-} DIR=${LAGOM_MEASURE_DIR-}'
sacct_comment() { # JOB WORD: the Comment, polled until it holds WORD
	local c= _
	for _ in $(seq 1 20); do
		c=$(timeout 10 sacct -X -n -P -j "$1" -o Comment 2>/dev/null | head -1)
		case $c in *"$2"*) break ;; esac
		sleep 0.5
	done
	echo "$c"
}

# --- control=1: a control step --------------------------------------------
NCCL_MIN_CTAS=7 run srun -v -N3 --gres=gpu:4 -J lagom-control --lagom=auto \
	/bin/bash -c "$show"
job=$(value SLURM_JOB_ID)
check_that "control: the step runs on 3 nodes" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c SLURM_JOB_ID= "$out")" -eq 3 ]'
check_that "control: every node runs NCCL's defaults (no plan id, the user's NCCL_MIN_CTAS=7 untouched)" \
	'[ "$(grep -c "PLAN= CTAS=7 " "$out")" -eq 3 ]'
check_that "control: every node runs lagom's profiler into the step's spool" \
	'[ "$(grep -c "PROF=/bin/true DIR=$spool/root/$job.0" "$out")" -eq 3 ]'
check_that "control: srun -v says it is a control step" \
	'grep -q "a control step (control=1)" "$err"'
pred=$spool/root/$job.0/predicted
diag "control: $pred: $(tr '\n' ' ' <"$pred" 2>&1 | cut -c1-160)"
check "control: STEP/predicted records the plan with arm control" \
	grep -qx "arm control" "$pred"
plan=$(sed -n 's/^plan //p' "$pred")
check_that "control: the plan recorded is the one srun made ($plan)" \
	'[ -n "$plan" ] && grep -q "control plan $plan" "$err"'
c=$(sacct_comment "$job" "arm=control")
diag "control: comment of job $job: $c"
check_that "control: the job comment says arm=control with the plan" \
	'case $c in *"plan=$plan"*"arm=control"*) true ;; *) false ;; esac'

# --- nocontrol: allowed by default, refused by control_optout=no -----------
run srun -N3 --gres=gpu:4 --lagom=auto,nocontrol /bin/bash -c "$show"
check_that "nocontrol: the step runs tuned on every node" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "PLAN=[0-9a-f]\{16\} " "$out")" -eq 3 ]'
cluster_plugstack $CLUSTER_ARGS "$M control=1 control_optout=no"
run srun -v -N3 --gres=gpu:4 --lagom=auto,nocontrol /bin/bash -c "$show"
check_that "control_optout=no: nocontrol is ignored, saying so; a control on every node" \
	'[ "$(grep -c "PLAN= " "$out")" -eq 3 ] && grep -q "nocontrol ignored" "$err"'

# --- --lagom=measure: the user's own measured untuned step -----------------
cluster_plugstack $CLUSTER_ARGS "$M control=0"
run srun -N3 --gres=gpu:4 --lagom=measure /bin/bash -c "$show"
job=$(value SLURM_JOB_ID)
check_that "measure: NCCL's defaults and the profiler on every node" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "PLAN= CTAS= PROF=/bin/true DIR=$spool/root/$job.0" "$out")" -eq 3 ]'
check "measure: STEP/predicted says arm measure" \
	grep -qx "arm measure" "$spool/root/$job.0/predicted"

# --- control=0: no control --------------------------------------------------
run srun -N3 --gres=gpu:4 --lagom=auto /bin/bash -c "$show"
check_that "control=0: the step runs tuned on every node" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "PLAN=[0-9a-f]\{16\} " "$out")" -eq 3 ]'

plan "$tap_n"
done_testing
