#!/usr/bin/env bash
# tests/integration/revert.sh - revert what loses, on the real cluster
# (doc/report.md): a class whose tuned steps measured 0.95x against its
# controls (synthetic records placed in the user's spool as measured steps
# leave them: tests/cli/report_spool.py, with the step's own key and plan)
# makes the next step of that class run NCCL's defaults on every node,
# saying why in srun -v, --lagom=explain, the job comment and lagom runs;
# lagom report shows the loss.  A class whose tuned steps measured 1.10x stays tuned.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "$profile_fixture missing"
cluster_setup "$profile_fixture"
cluster_spool
cluster_plugstack $CLUSTER_ARGS "measure_dir=$spool profiler=/bin/true control=0"
tap_on_fail=dump
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
show='echo $(hostname) SLURM_JOB_ID=$SLURM_JOB_ID PLAN=${LAGOM_PLAN_ID-} PROF=${NCCL_PROFILER_PLUGIN-}'
srun_step() { # NAME ARGS...: one step of class NAME
	local name=$1
	shift
	run srun -v -N3 --gres=gpu:4 -J "$name" --lagom-workload=phi-2:fsdp "$@" \
		/bin/bash -c "$show"
}

# One tuned step of each class: its key and plan, as srun makes them.
for cls in lossy gainy; do
	srun_step "lagom-$cls" --lagom=auto
	job=$(value SLURM_JOB_ID)
	eval "key_$cls=\$spool/root/\$job.0/key plan_$cls=\$(value PLAN)"
done
check_that "the first steps run tuned ($plan_lossy, $plan_gainy)" \
	'[ -n "$plan_lossy" ] && [ -s "$key_lossy" ] && [ -s "$key_gainy" ]'

# Their measured history: 10 tuned runs and 10 controls each.
REPORT_KEY=$(cat "$key_lossy") REPORT_PLAN=$plan_lossy \
	python3 "$top_srcdir/tests/cli/report_spool.py" "$spool" root 9000 \
	lossy:tuned:10:0.95:0.01 lossy:control:10:1:0.01 >/dev/null
REPORT_KEY=$(cat "$key_gainy") REPORT_PLAN=$plan_gainy \
	python3 "$top_srcdir/tests/cli/report_spool.py" "$spool" root 9100 \
	gainy:tuned:10:1.10:0.01 gainy:control:10:1:0.01 >/dev/null

srun_step lagom-lossy --lagom=auto
job=$(value SLURM_JOB_ID)
diag "lossy: $(grep -o 'reverted:.*' "$err" | head -1)"
check_that "loss: the next step runs NCCL's defaults on every node, profiler on" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "PLAN= PROF=/bin/true" "$out")" -eq 3 ]'
check_that "loss: srun -v says reverted: measured 0.9Nx [lo, hi] over 20 runs" \
	'grep -Eq "reverted: measured 0\.9[0-9]x \[0\.9[0-9], 0\.9[0-9]\] over 20 runs \(10 tuned with plan $plan_lossy, 10 control\)" "$err"'
check "loss: STEP/predicted says arm revert" \
	grep -qx "arm revert" "$spool/root/$job.0/predicted"
c=$(timeout 10 squeue -h -t all -j "$job" -o %k)
for _ in $(seq 1 20); do
	case $c in *arm=reverted*) break ;; esac
	sleep 0.5
	c=$(timeout 10 sacct -X -n -P -j "$job" -o Comment 2>/dev/null | head -1)
done
diag "loss: comment of job $job: $c"
check_that "loss: the job comment says reverted=0.9Nx[lo,hi]/20 arm=reverted" \
	'echo "$c" | grep -Eq "reverted=0\.9[0-9]x\[0\.9[0-9],0\.9[0-9]\]/20 .*arm=reverted"'

run "$top_builddir/lagom" runs --spool "$spool"
check_that "loss: lagom runs says step $job.0 was reverted, and why (20 runs before it)" \
	'grep -Eq "^step $job\.0 .*arm revert .*, reverted: measured 0\.9[0-9]x \[0\.9[0-9], 0\.9[0-9]\] over 20 runs before it$" "$out"'

srun_step lagom-lossy --lagom=explain
check_that "loss: --lagom=explain says it is reverted" \
	'[ "$rc" -eq 0 ] && grep -q "reverted: measured 0\.9[0-9]x\[0\.9[0-9],0\.9[0-9]\]/20 runs: --lagom=auto runs NCCL.s defaults" "$err"'

srun_step lagom-gainy --lagom=auto
check_that "gain: the class that measured faster stays tuned on every node" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "PLAN=$plan_gainy " "$out")" -eq 3 ] && ! grep -q reverted "$err"'

run "$top_builddir/lagom" report --spool "$spool" --format json
check_that "lagom report: the lossy class a loss, the gainy one a gain" \
	'python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
v = {c[\"class\"].split()[0]: c[\"verdict\"] for c in d[\"classes\"]}
sys.exit(0 if v.get(\"job:lagom-lossy\") == \"loss\" and v.get(\"job:lagom-gainy\") == \"gain\" else 1)" "$out"'

plan "$tap_n"
done_testing
