#!/usr/bin/env bash
# tests/integration/measure.sh - the measurement loop on a real Slurm (the
# cluster of tests/integration/spank.sh): lagom.so gives a tuned step a
# spool and loads libnccl-profiler-lagom.so; at the step's end the job
# comment gains the measured figure (the user's text kept); the next step
# of the same key plans from what was measured, its model corrected per
# class; another user sees none of it; hostile records are refused with
# one line and the step still runs.
#
# This machine has no GPU: the tasks of step 1 run lagom's ABI harness
# (tests/profiler/test_profiler_abi --scenario train), which loads the
# plugin from the NCCL_PROFILER_PLUGIN the SPANK plugin set and drives it
# as NCCL 2.28 would, with kernel-channel timestamps it makes up.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_spool_setup
tap_on_fail=dump # a failed check_that shows the last run
value() { grep -o "$1=[^ ]*" "$out" | head -1 | cut -d= -f2-; }
comment_of() { timeout 10 squeue -h -t all -j "$1" -o %k; }
show='echo $(hostname) SLURM_JOB_ID=$SLURM_JOB_ID LAGOM_PLAN_ID=$LAGOM_PLAN_ID NCCL_PROFILER_PLUGIN=$NCCL_PROFILER_PLUGIN LAGOM_MEASURE_DIR=$LAGOM_MEASURE_DIR'

# The figure counts the records node 0 sees when its last task exits
# (doc/profiler.md): a task of another node that ends a moment later is not
# in it (tasks=2 was seen on Slurm 26.05, tasks=1 on 24.11).  So that the
# checks below can ask for all three, node 0's task ends only once the
# step's directory (shared by the demo cluster's nodes) holds every task's
# record, waiting at most 10 s.
harness="HP_LOG=/dev/null HP_RANKS=12 HP_NODES=3 $drive --scenario train 5"
last='[ "$SLURM_NODEID" != 0 ] || for _ in $(seq 100); do
	[ "$(ls "$LAGOM_MEASURE_DIR" | grep -c "^task-.*\.rec$")" -ge 3 ] && break
	sleep 0.1; done'

# --- step 1: measured ------------------------------------------------------
run srun -N3 --gres=gpu:4 -J lagom-measure-it --lagom=auto --comment="my own words" \
	bash -c "$show; $harness; r=\$?; $last; exit \$r"
check_that "step 1 runs the harness on 3 nodes" '[ "$rc" -eq 0 ]'
job1=$(value SLURM_JOB_ID)
plan1=$(value LAGOM_PLAN_ID)
dir1=$spool/root/$job1.0
check "tasks got NCCL_PROFILER_PLUGIN=$profiler" \
	[ "$(grep -c "NCCL_PROFILER_PLUGIN=$profiler " "$out")" -eq 3 ]
check "tasks got LAGOM_MEASURE_DIR=$dir1" \
	[ "$(grep -c "LAGOM_MEASURE_DIR=$dir1\$" "$out")" -eq 3 ]
check "the step's spool is the user's, mode 0700" \
	[ "$(stat -c '%U %a' "$dir1" 2>/dev/null)" = "root 700" ]
check "one record per task" [ "$(ls "$dir1" 2>/dev/null | grep -c '^task-[0-2]\..*\.rec$')" -eq 3 ]
LAGOM=$top_builddir/lagom
run "$LAGOM" runs --spool "$spool" --format json
check "lagom runs reads them: 3 tasks, tuned, plan $plan1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = [s for s in d["steps"] if s["dir"] == sys.argv[2]][0]
assert s["tasks"] == 3 and s["tuned"] and s["plan"] == sys.argv[3], s
assert s["iteration_collectives"] == 4, s
' "$out" "$job1.0" "$plan1"
check "the step's predictions are next to its records" \
	grep -q "^plan $plan1\$" "$dir1/predicted"
# the step's end: node 0 adds what the records it sees measured (all three
# here: the demo cluster's nodes share one spool)
c1=$(cluster_sacct "$job1" Comment "measured=")
diag "sacct comment of job $job1: $c1"
check "sacct: step 1's comment gained the measured figure after the launch text" \
	grep -Eq "\{lagom: lagom [^ ]+ plan=$plan1 .* measured=$job1\.0 tasks=3 iter_ms=[0-9]+\.[0-9]{3} comm_ms=[0-9]+\.[0-9]{3} #" <<<"$c1"
check "... and kept the user's own text" grep -q '^my own words {lagom: ' <<<"$c1"
check "... within 1024 bytes" [ "${#c1}" -le 1024 ]

# --- step 2: same key, no workload: planned from step 1 ---------------------
run srun -v -N3 --gres=gpu:4 -J lagom-measure-it --lagom=auto bash -c "$show"
job2=$(value SLURM_JOB_ID)
plan2=$(value LAGOM_PLAN_ID)
check "step 2 runs" [ "$rc" -eq 0 ]
check_that "step 2's plan ($plan2) differs from step 1's ($plan1)" \
	'[ -n "$plan2" ] && [ "$plan2" != "$plan1" ]'
c2=$(comment_of "$job2")
diag "comment of job $job2: $c2"
check "its comment names what it learned from: workload=measured-$job1.0" \
	grep -q "workload=measured-$job1.0" <<<"$c2"
# the model corrected per class by measured / model at NCCL's configuration
check "... and the classes it corrected from step 1's times" \
	grep -Eq " corrected=[a-z]+@[0-9]+[KM]?i?B:x[0-9]+\.[0-9]{2}.* from=$job1\.0( |$)" <<<"$c2"
run srun -N3 --gres=gpu:4 -J lagom-measure-it --lagom=explain bash -c true
check_that "explain shows each correction, measured against the model" \
	'grep -q "corrected from measured step $job1.0 (measured / model):" "$err" &&
	grep -Eq "sendrecv .* measured 50\.0 us \(at [0-9.]+ KiB, 240 calls\), model [0-9.]+ us: x[0-9.]+" "$err"'

# --- step 2b: planned from step 1 and measured: predicted against measured ---
run srun -N3 --gres=gpu:4 -J lagom-measure-it --lagom=auto \
	bash -c "$show; $harness; r=\$?; $last; exit \$r"
job2b=$(value SLURM_JOB_ID)
check "the same measurements give the same plan ($plan2)" \
	[ "$rc" -eq 0 ] && [ "$(value LAGOM_PLAN_ID)" = "$plan2" ]
c2b=$(cluster_sacct "$job2b" Comment "measured=")
diag "sacct comment of job $job2b: $c2b"
check "its comment: the corrections, then measured against predicted" \
	grep -Eq "corrected=.* from=$job1\.0 measured=$job2b\.0 tasks=3 iter_ms=[0-9.]+ comm_ms=[0-9.]+ predicted_iter_ms=[0-9.]+ predicted_comm_ms=[0-9.]+ #" <<<"$c2b"
dir1=$spool/root/$job2b.0 # the latest measured step of the key

# --- another user: none of it ------------------------------------------------
run runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" srun -N3 --gres=gpu:4 \
	-J lagom-measure-it --lagom=auto bash -c "$show"
job3=$(value SLURM_JOB_ID)
check_that "nobody's step runs with its own spool" \
	'[ "$rc" -eq 0 ] && [ "$(value LAGOM_MEASURE_DIR)" = "$spool/nobody/$job3.0" ]'
check_that "nobody's plan is not root's measured one" \
	'[ "$(value LAGOM_PLAN_ID)" = "$plan1" ] && ! grep -q measured <<<"$(comment_of "$job3")"'

# --- hostile records in the latest measured step: one line, the step runs ---
hostile() { # DESC MAKER
	rm -f "$dir1"/task-*.rec
	eval "$2"
	run srun -v -N3 --gres=gpu:4 -J lagom-measure-it --lagom=auto bash -c "$show"
	check_that "$1: refused with one lagom: line, the step runs" \
		'[ "$rc" -eq 0 ] && [ "$(grep -c "lagom:.*measurement refused" "$err")" -eq 1 ] &&
		[ "$(grep -c LAGOM_PLAN_ID= "$out")" -eq 3 ]'
}
hostile "a corrupt record" "printf 'lagom-measure 1\nabi 9\n' >$dir1/task-0.1.rec"
hostile "a huge record" "head -c 1100000 /dev/zero >$dir1/task-0.1.rec"
hostile "a symlinked record" "ln -s /etc/passwd $dir1/task-0.1.rec"

plan "$tap_n"
done_testing
