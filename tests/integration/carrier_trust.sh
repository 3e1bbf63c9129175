#!/usr/bin/env bash
# tests/integration/carrier_trust.sh - the step's plan carrier
# (SLURM_LAGOM_STEP_PLAN) is the user's input (issue 25, doc/consistency.md
# "Trust"): an unprivileged user who puts a forged one into srun's
# environment never gets it past srun (no --lagom, --lagom=off,
# --export=ALL,..., --lagom=auto when srun cannot plan), and one sent by an
# srun that loads no lagom (the user's own slurm.conf) is applied only as
# far as the user could have set it themselves: no variable lagom does not
# set, no tuner path but the admin's, and none of its text in the
# AdminComment or the slurmd logs that root writes.
#
# LAGOM_TEST_PLUGIN=PATH runs the checks against another lagom.so (main
# before the fix failed them).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"
id nobody >/dev/null 2>&1 || plan_skip_all "no user nobody to run steps as"
command -v python3 >/dev/null || plan_skip_all "python3 not installed (it forges the carrier)"

cluster_unexport SLURM_
cluster_setup "$profile_fixture"
diag "plugin $LAGOM_PLUGIN"
P=$CLUSTER_ARGS
logs=$CLUSTER_DIR/log
run_timeout=90
cluster_plugstack $P comment=admin

# the user's own directory: their scripts, their slurm.conf
home=$(mktemp -d /tmp/lagom-forger.XXXXXX)
chmod 0755 "$home"
chown nobody "$home"
trap 'cluster_stop; rm -rf "$home"' EXIT
install -m 0755 "$top_srcdir/tests/integration/forge_carrier.py" "$home/forge"
# what every node writes as root: the slurmd logs (the comment is checked
# through slurmctld)
logs_have() { cat "$logs"/slurmd.n*.log 2>/dev/null | grep -c -- "$1"; }

# One job of user nobody: salloc -N3 --gres=gpu:4 runs the script STEPS
# (bash, as nobody, in $home) with the job's id in $SLURM_JOB_ID; its
# output in $out, the job id in $job.
as_nobody() { # SCRIPT [SALLOC OPTIONS...]
	local script=$1
	shift
	install -m 0755 /dev/stdin "$home/$script" <<<"$steps"
	run runuser -u nobody -- env SLURM_CONF="${USER_SLURM_CONF:-$SLURM_CONF}" \
		bash -c "cd $home && salloc -N3 --gres=gpu:4 $* ./$script"
	job=$(grep -o 'JOB=[0-9]*' "$out" | head -1 | cut -d= -f2)
}
# the lagom environment a task printed, one line per task
show_env='echo TASK $(hostname) $(env | grep -E "^(NCCL_|LAGOM_|SLURM_LAGOM|TORCH_NCCL|CUDA_DEVICE_MAX|LD_PRELOAD)" | sort | tr "\n" " ")'
untouched() { [ "$(grep -c '^TASK n' "$out")" -eq 3 ] && ! grep '^TASK' "$out" | grep -q 'NCCL_\|LAGOM_\|LD_PRELOAD'; }
admin_comment() { timeout 10 scontrol show job "$1" 2>/dev/null | grep -o 'AdminComment=.*'; }

# The carrier a user forges for step STEP of their job: a summary of their
# own words and whatever variables they like.
forge='./forge "$SLURM_JOB_ID" "$1" 3 "1(x3)" n1,n2,n3'
steps=$(cat <<EOF
#!/bin/bash
echo JOB=\$SLURM_JOB_ID
f() { $forge "\${@:2}"; }
nl=\$'\\n'
# step 0: no --lagom (default=off)
SLURM_LAGOM_STEP_PLAN="\$(f 0 PWNED-0 NCCL_ALGO=ring)\$nl" srun bash -c '$show_env' >s0.out
# step 1: --lagom=off
SLURM_LAGOM_STEP_PLAN="\$(f 1 PWNED-1 NCCL_ALGO=ring)\$nl" srun --lagom=off bash -c '$show_env' >s1.out
# step 2: --export=ALL,SLURM_LAGOM_STEP_PLAN=...
srun --export=ALL,SLURM_LAGOM_STEP_PLAN="\$(f 2 PWNED-2 NCCL_ALGO=ring)\$nl" bash -c '$show_env' >s2.out
# step 3: --lagom=auto where srun cannot plan (an unknown workload)
SLURM_LAGOM_STEP_PLAN="\$(f 3 PWNED-3 NCCL_ALGO=ring)\$nl" srun --lagom=auto --lagom-workload=no-such-model:dp bash -c '$show_env' >s3.out
EOF
)
as_nobody srun-paths.sh
diag "job $job as nobody: $(head -c 300 "$err" | tr '\n' ' ')"
for s in 0 1 2 3; do
	what=("no --lagom" "--lagom=off" "--export=ALL,SLURM_LAGOM_STEP_PLAN=..." "--lagom=auto, srun cannot plan")
	cp "$home/s$s.out" "$out" 2>/dev/null || : >"$out"
	check_that "forged carrier, ${what[$s]}: srun sends nothing, no task gets its variables" 'untouched'
	untouched || sed 's/^/#   /' "$out" | head -3
done
ac=$(admin_comment "$job")
check_that "... and its text is nowhere in the job's AdminComment ($ac)" '[ -n "$job" ] && ! grep -q PWNED <<<"$ac"'
check_that "... nor in any slurmd log" '[ "$(logs_have PWNED)" -eq 0 ]'

# --- an srun that loads no lagom: the nodes get the user's text as it is -----
sed "s|^PlugStackConfig=.*|PlugStackConfig=$home/plugstack.conf|" "$SLURM_CONF" >"$home/slurm.conf"
: >"$home/plugstack.conf"
chmod 0644 "$home/slurm.conf" "$home/plugstack.conf"
steps=$(cat <<EOF
#!/bin/bash
echo JOB=\$SLURM_JOB_ID
f() { $forge "\${@:2}"; }
nl=\$'\\n'
# step 0: a variable lagom never sets
SLURM_LAGOM_STEP_PLAN="\$(f 0 PWNED-4 NCCL_ALGO=ring LD_PRELOAD=/tmp/evil.so)\$nl" srun bash -c '$show_env' >n0.out
# step 1: a tuner of the user's choosing (the admin's tuner=none)
SLURM_LAGOM_STEP_PLAN="\$(f 1 PWNED-5 NCCL_ALGO=ring NCCL_TUNER_PLUGIN=/tmp/evil.so LAGOM_PLAN=x)\$nl" srun bash -c '$show_env' >n1.out
# step 2: only what the user could export, and words of their own
SLURM_LAGOM_STEP_PLAN="\$(f 2 'lagom 0.1.0 plan=00000000deadbeef workload=PWNED-6 please-call-555 {x}' NCCL_ALGO=ring LAGOM_PLAN_ID=00000000deadbeef)\$nl" srun bash -c '$show_env' >n2.out
# step 3: a name that is no variable name (an error that must not quote it)
SLURM_LAGOM_STEP_PLAN="\$(f 3 ok NCCL_ALGO=ring PWNED-7=1)\$nl" srun bash -c '$show_env' >n3.out
EOF
)
USER_SLURM_CONF=$home/slurm.conf as_nobody no-lagom.sh
diag "job $job as nobody, own slurm.conf: $(head -c 300 "$err" | tr '\n' ' ')"
cp "$home/n0.out" "$out" 2>/dev/null || : >"$out"
check_that "no lagom in srun, a forged carrier with LD_PRELOAD: no node applies any of it" 'untouched'
cp "$home/n1.out" "$out" 2>/dev/null || : >"$out"
check_that "... with NCCL_TUNER_PLUGIN of the user's choosing: no node applies any of it" 'untouched'
cp "$home/n2.out" "$out" 2>/dev/null || : >"$out"
check_that "... with only what the user could set: applied alike on every node (NCCL_ALGO=ring)" \
	'[ "$(grep -c "^TASK n.*NCCL_ALGO=ring" "$out")" -eq 3 ]'
ac=$(admin_comment "$job")
diag "AdminComment: $ac"
check_that "... the AdminComment has lagom's line, composed by the node (plan id)" \
	'grep -q "{lagom: .*plan=00000000deadbeef" <<<"$ac"'
check_that "... and none of the user's words (PWNED, please-call-555)" \
	'! grep -q "PWNED\|please-call" <<<"$ac"'
check_that "... no slurmd log line holds the user's text" '[ "$(logs_have PWNED)" -eq 0 ] && [ "$(logs_have evil.so)" -eq 0 ]'
logs_have PWNED >/dev/null && cat "$logs"/slurmd.n*.log | grep 'PWNED\|evil' | head -3 | sed 's/^/#   /'

# --- a genuine plan still travels and lands ------------------------------------
run runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" bash -c \
	"cd $home && SLURM_LAGOM_STEP_PLAN=junk srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c 'echo JOB=\$SLURM_JOB_ID; $show_env'"
job=$(grep -o 'JOB=[0-9]*' "$out" | head -1 | cut -d= -f2)
check_that "a planned step as nobody (an inherited carrier replaced): every task has the plan" \
	'[ "$(grep -c "^TASK n.*LAGOM_PLAN_ID=" "$out")" -eq 3 ] && [ "$(grep -o "LAGOM_PLAN_ID=[0-9a-f]*" "$out" | sort -u | wc -l)" -eq 1 ]'
plan_id=$(grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$out" | head -1 | cut -d= -f2)
ac=$(admin_comment "$job")
diag "AdminComment: $ac"
check_that "... and the AdminComment names its plan and workload" \
	'grep -q "{lagom: lagom [^ ]* plan=$plan_id workload=phi-2:fsdp channels=" <<<"$ac"'

# --- a bad plugstack value is refused at load (lagom-spank(8)) ---------------
cluster_plugstack $P slurm_user=nosuchuser
run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c "$show_env"
check_that "required line with slurm_user=nosuchuser: srun refuses the job at load (rc $rc)" \
	'[ "$rc" -ne 0 ] && ! grep -q "^TASK" "$out"'
check_that "... with one line naming the value" \
	'[ "$(grep -c "lagom: plugstack.conf: slurm_user=nosuchuser: no such user" "$err")" -eq 1 ]'
[ "$rc" -ne 0 ] || dump
echo "optional $LAGOM_PLUGIN $P slurm_user=nosuchuser" >"$CLUSTER_DIR/etc/plugstack.conf"
run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c "$show_env"
check_that "optional line with slurm_user=nosuchuser: the step runs, untuned (rc $rc)" \
	'[ "$rc" -eq 0 ] && untouched'
check_that "... one line at load naming the value, one saying --lagom=auto is ignored" \
	'[ "$(grep -c "lagom: plugstack.conf: slurm_user=nosuchuser: no such user; lagom does nothing" "$err")" -eq 1 ] &&
	 [ "$(grep -c "lagom: --lagom=auto ignored: plugstack.conf: slurm_user=nosuchuser" "$err")" -eq 1 ]'
cluster_plugstack $P slurm_user=root
run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=phi-2:fsdp bash -c "$show_env"
check_that "slurm_user=root (a name that exists): every task has the plan" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c "^TASK n.*LAGOM_PLAN_ID=$plan_id" "$out")" -eq 3 ]'

plan "$tap_n"
done_testing
