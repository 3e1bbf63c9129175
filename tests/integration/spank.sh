#!/usr/bin/env bash
# tests/integration/spank.sh - lagom.so on a real Slurm: 3 slurmd (own UTS
# namespaces), slurmctld, slurmdbd + MariaDB, fake GPUs, topology.conf.
# One cluster for every check (started once, always stopped); every srun and
# sbatch is bounded by a timeout.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"

cluster_unexport
cluster_setup "$profile_fixture"
P=$CLUSTER_ARGS

# lines of $err that are lagom's
lagom_lines() { grep -c 'lagom:' "$err"; }
# distinct values of VAR printed as "host VAR=value" in $out
values_of() { grep -o "$1=[^ ]*" "$out" | sort -u; }
show_env='echo $(hostname) $(env | grep -E "^(NCCL_|LAGOM_|TORCH_NCCL|CUDA_DEVICE_MAX)" | sort | tr "\n" " ")'
step() { run srun -N3 --gres=gpu:4 "$@" bash -c "$show_env"; }

# --- loading and options -------------------------------------------------
run srun -N3 true
check "lagom.so loads: srun -N3 true succeeds with lagom in plugstack.conf" [ "$rc" -eq 0 ]
run srun --help
check "srun --help lists --lagom=MODE" grep -q -- '--lagom=MODE' "$out"
check "srun --help lists --lagom-workload" grep -q -- '--lagom-workload=NAME|FILE' "$out"
run srun -N1 --lagom=bogus true
check "srun --lagom=bogus is refused" [ "$rc" -ne 0 ]
check "... with one lagom: line naming the value" [ "$(grep -c 'lagom: --lagom=bogus' "$err")" -eq 1 ]
run sbatch --wrap=true --lagom=sometimes -o /dev/null
check_that "sbatch --lagom=sometimes is refused" '[ "$rc" -ne 0 ] && grep -q "lagom: --lagom=sometimes" "$err"'

# --- auto ------------------------------------------------------------------
step --lagom=auto --lagom-workload=phi-2:fsdp
cp "$out" "$CLUSTER_DIR/auto.out"
check "srun -N3 --lagom=auto succeeds" [ "$rc" -eq 0 ]
hosts=$(awk '{print $1}' "$out" | sort -u | tr '\n' ' ')
check "the step ran on three hosts (n1 n2 n3)" [ "$hosts" = "n1 n2 n3 " ]
check "every task has LAGOM_PLAN_ID" [ "$(grep -c 'LAGOM_PLAN_ID=' "$out")" -eq 3 ]
check "LAGOM_PLAN_ID is identical on all nodes" [ "$(values_of LAGOM_PLAN_ID | wc -l)" -eq 1 ]
check_that "every task has the same plan variables (NCCL_*, LAGOM_*)" \
	'[ "$(cut -d" " -f2- "$out" | sort -u | wc -l)" -eq 1 ] && grep -q NCCL_ "$out"'
plan_id=$(values_of LAGOM_PLAN_ID | cut -d= -f2)
diag "plan: $(head -1 "$out")"

run srun -N3 --gres=gpu:4 --lagom=explain --lagom-workload=phi-2:fsdp bash -c "$show_env"
check "explain: the step runs" [ "$rc" -eq 0 ]
check_that "explain: nothing injected" '! grep -q "LAGOM_\|NCCL_" "$out"'
check "explain: the plan is reported on stderr" grep -q 'lagom: explain' "$err"
# every variable explain would set is what auto set
would=$(sed -n 's/.*lagom:   would set \([A-Z_0-9]*=[^ ]*\).*/\1/p' "$err" | sort | tr '\n' ' ')
got=$(head -1 "$CLUSTER_DIR/auto.out" | cut -d' ' -f2- | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
check_that "explain lists exactly the variables auto sets" '[ -n "$would" ] && [ "$would" = "$got" ]'

# --- off and the user wins -------------------------------------------------
step --lagom=off
check_that "--lagom=off injects nothing" '[ "$rc" -eq 0 ] && ! grep -q "LAGOM_\|NCCL_" "$out"'
step
check_that "default=off (no option) injects nothing" '[ "$rc" -eq 0 ] && ! grep -q "LAGOM_\|NCCL_" "$out"'
cluster_plugstack $P default=auto
step
check "default=auto (no option) injects the plan" [ "$(grep -c 'LAGOM_PLAN_ID=' "$out")" -eq 3 ]
cluster_plugstack $P
NCCL_ALGO=UserChoice step --lagom=auto --lagom-workload=phi-2:fsdp
check "a user-set NCCL_ALGO survives on every task" [ "$(grep -c 'NCCL_ALGO=UserChoice' "$out")" -eq 3 ]
check "... and the rest of the plan is still set" [ "$(grep -c 'LAGOM_PLAN_ID=' "$out")" -eq 3 ]
# a variable the plan does set: the user's value survives and the comment
# says lagom skipped it; the admin's override= and forbid= change that
var=$(head -1 "$CLUSTER_DIR/auto.out" | grep -o 'NCCL_[A-Z_]*=' | head -1 | tr -d =)
[ -n "$var" ] || var=TORCH_NCCL_HIGH_PRIORITY
diag "user-set variable that the plan sets: $var"
run env "$var=4242" srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \
	bash -c 'echo $(hostname) SLURM_JOB_ID=$SLURM_JOB_ID '"$var"'=${'"$var"'}'
check "a user-set $var (which the plan sets) survives on every task" [ "$(grep -c "$var=4242" "$out")" -eq 3 ]
job=$(values_of SLURM_JOB_ID | head -1 | cut -d= -f2)
check "the job comment lists $var as skipped" \
	grep -q "skipped=.*$var" <<<"$(timeout 10 squeue -h -t all -j "$job" -o %k)"
cluster_plugstack $P override=$var
run env "$var=4242" srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \
	bash -c 'echo $(hostname) '"$var"'=${'"$var"'}'
check_that "override=$var: lagom's value replaces the user's" \
	'! grep -q "$var=4242" "$out" && [ "$(grep -c "$var=." "$out")" -eq 3 ]'
cluster_plugstack $P forbid=$var
step --lagom=auto --lagom-workload=phi-2:fsdp
check_that "forbid=$var: lagom never sets it, the rest of the plan is set" \
	'! grep -q "$var=" "$out" && [ "$(grep -c LAGOM_PLAN_ID= "$out")" -eq 3 ]'
cluster_plugstack $P

# --- sbatch and sacct ------------------------------------------------------
cat >"$work/job.sh" <<'EOF'
#!/bin/bash
#SBATCH -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp
#SBATCH --comment=my-experiment-7
srun bash -c 'echo $(hostname) LAGOM_PLAN_ID=$LAGOM_PLAN_ID'
EOF
run sbatch --parsable --wait -o "$work/job.out" "$work/job.sh"
job=$(head -1 "$out" | cut -d';' -f1)
cp "$work/job.out" "$out" 2>/dev/null
check "sbatch with #SBATCH --lagom=auto: every task has the plan" \
	[ "$(grep -c "LAGOM_PLAN_ID=$plan_id" "$out")" -eq 3 ]
comment=$(cluster_sacct "$job" Comment "" 30)
diag "sacct comment of job $job: $comment"
check "sacct shows lagom's comment with the plan id" grep -q "{lagom: .*$plan_id" <<<"$comment"
check "... and keeps the user's --comment" grep -q '^my-experiment-7 {lagom: ' <<<"$comment"
check "... within 1024 bytes" [ "${#comment}" -le 1024 ]

# srun with its own allocation ends the job as soon as its tasks exit: the
# comment, written off the launch path, must still land every time
jobs=
for _ in $(seq 1 8); do
	run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp \
		bash -c 'echo $SLURM_JOB_ID'
	jobs="$jobs $(head -1 "$out")"
done
missing=
for j in $jobs; do
	grep -q "{lagom: .*$plan_id" <<<"$(cluster_sacct "$j" Comment "{lagom: ")" || missing="$missing $j"
done
check "8 short srun jobs (own allocation): sacct shows lagom's comment for each (missing:${missing:- none})" \
	[ -z "$missing" ]
cluster_plugstack $P comment=admin
run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp --comment=mine \
	bash -c 'echo $SLURM_JOB_ID'
job=$(head -1 "$out")
check "comment=admin: sacct shows lagom's line in AdminComment" \
	grep -q "{lagom: .*$plan_id" <<<"$(cluster_sacct "$job" AdminComment "{lagom: ")"
check "comment=admin: the user's Comment is untouched" \
	[ "$(timeout 10 sacct -X -n -P -j "$job" -o Comment | head -1)" = mine ]

# the comment's round trips to slurmctld never leave a socket in a task
# (Slurm's and libmunge's sockets are not close-on-exec)
: >"$CLUSTER_DIR/fds"
for _ in $(seq 1 15); do
	timeout 60 srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp -l \
		bash -c 'for f in /proc/$$/fd/*; do echo "$f $(readlink "$f")"; done' \
		>>"$CLUSTER_DIR/fds" 2>&1
done
check_that "no task inherits a socket from lagom's comment thread (15 steps)" \
	'[ "$(grep -c "fd/" "$CLUSTER_DIR/fds")" -ge 135 ] && ! grep -q socket: "$CLUSTER_DIR/fds"'

# a bad option value that bypasses srun's check (a hand-made variable in
# the job's environment) reaches slurmstepd: the step runs, lagom is off
cluster_plugstack $P default=auto
run env _SLURM_SPANK_OPTION_lagom_lagom=bogus srun -N3 --gres=gpu:4 bash -c "$show_env"
check_that "a bad --lagom value reaching slurmstepd: the step runs, nothing injected" \
	'[ "$rc" -eq 0 ] && [ "$(wc -l <"$out")" -eq 3 ] && ! grep -q "LAGOM_\|NCCL_" "$out"'
cluster_plugstack $P

# --- fail open: the job runs, exit 0, one lagom: line ----------------------
fail_open() { # WHAT
	check_that "fail open, $1: the job runs and exits 0" '[ "$rc" -eq 0 ] && [ "$(wc -l <"$out")" -eq 3 ]'
	check_that "fail open, $1: environment untouched, one lagom: line" \
		'! grep -q "LAGOM_\|NCCL_" "$out" && [ "$(lagom_lines)" -eq 1 ]'
	[ "$(lagom_lines)" -eq 1 ] || dump
	diag "$(grep 'lagom:' "$err" | head -1)"
}
cluster_plugstack "profile_dir=$CLUSTER_DIR/no-such-dir" tuner=none
step -v --lagom=auto
fail_open "profile directory missing"
cluster_plugstack $P
cp "$CLUSTER_DIR/profiles/n2.json" "$CLUSTER_DIR/n2.json.good"
echo '{"format": "lagom-profile", "version": "1.0", "node": ' >"$CLUSTER_DIR/profiles/n2.json"
step -v --lagom=auto
fail_open "corrupt profile"
cp "$CLUSTER_DIR/n2.json.good" "$CLUSTER_DIR/profiles/n2.json"
chmod g+w "$CLUSTER_DIR/profiles/n3.json"
step -v --lagom=auto
fail_open "group-writable profile"
chmod g-w "$CLUSTER_DIR/profiles/n3.json"
run srun -v -N3 --lagom=auto bash -c "$show_env"
fail_open "no GPUs in the step"
step -v --lagom=auto --lagom-workload=no-such-model:fsdp
fail_open "unknown workload"
echo '{}' >"$work/secret.json"
chmod 0600 "$work/secret.json"
run runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" srun -v -N3 --gres=gpu:4 \
	--lagom=auto --lagom-workload="$work/secret.json" bash -c "$show_env"
fail_open "unreadable workload file (read as the user)"

# --- workload files, read as the user, relative to the job's directory --
wl=$top_srcdir/tests/workload/data/valid/fsdp-layer.json
if [ -f "$wl" ]; then
	cluster_fit_workload "$wl" "$work/my-workload.json"
	run runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" srun -N3 --gres=gpu:4 \
		--lagom=auto --lagom-workload=my-workload.json bash -c "$show_env"
	check "a workload file (relative path, read as the user) gives every task the plan" \
		[ "$(grep -c 'LAGOM_PLAN_ID=' "$out")" -eq 3 ]
	echo '{"lagom_workload": 1, "name": ' >"$work/broken.json"
	chmod 0644 "$work/broken.json"
	run srun -v -N3 --gres=gpu:4 --lagom=auto --lagom-workload="$work/broken.json" bash -c "$show_env"
	fail_open "malformed workload file"
else
	skip "no workload fixture ($wl)"
fi

plan "$tap_n"
done_testing
