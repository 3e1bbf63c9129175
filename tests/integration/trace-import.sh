#!/usr/bin/env bash
# tests/integration/trace-import.sh - the two-command user story on a real
# Slurm (contrib/demo-cluster.sh: 3 slurmd, slurmctld, slurmdbd + MariaDB):
# `lagom workload import` of a real profiler trace, run as an ordinary user,
# then `srun --lagom=auto --lagom-workload=FILE`: every task gets lagom's
# plan and no lagom error.  Every srun is bounded by a timeout.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
trace=$top_srcdir/tests/fixtures/traces/hta-a100-2rank-nccl_data.json.gz
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"
[ -f "$trace" ] || plan_skip_all "no trace fixture ($trace)"
cluster_unexport
cluster_setup "$profile_fixture"
plan 4
cluster_plugstack "profile_dir=$CLUSTER_DIR/profiles tuner=none"
chmod 0777 "$work"
install -m 0644 "$trace" "$work/rank0.json.gz"

rc=0
runuser -u nobody -- "$top_builddir/lagom" workload import rank0.json.gz \
	-o "$work/my-workload.json" >"$work/import.out" 2>&1 || rc=$?
check "lagom workload import (as an ordinary user) writes the workload" \
	[ "$rc" -eq 0 -a -s "$work/my-workload.json" ]
sed 's/^/# /' "$work/import.out"

show='echo $(hostname) $(env | grep -E "^(LAGOM_|NCCL_|TORCH_NCCL)" | sort | tr "\n" " ")'
rc=0
timeout 60 runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" srun -v -N1 \
	--gres=gpu:2 --lagom=auto --lagom-workload=my-workload.json \
	bash -c "$show" >"$work/out" 2>"$work/err" || rc=$?
sed 's/^/# /' "$work/out"
check "srun --lagom=auto --lagom-workload=FILE with the imported workload succeeds" \
	[ "$rc" -eq 0 ]
check "the task got lagom's plan (LAGOM_PLAN_ID set)" \
	grep -q 'LAGOM_PLAN_ID=[^ ]' "$work/out"
if grep 'lagom:' "$work/err" | grep -Eqv ': auto plan [0-9a-f]+ (for [0-9]+ nodes x [0-9]+ GPUs )?in '; then
	grep 'lagom:' "$work/err" | sed 's/^/# /'
	not_ok "lagom said nothing but its plan on srun -v"
else
	ok "lagom said nothing but its plan on srun -v"
fi
