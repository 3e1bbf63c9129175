#!/usr/bin/env bash
# tests/integration/one_plan.sh - one plan per step, on a real Slurm
# (doc/consistency.md): in every situation that split steps when each node
# planned on its own, every task of the step ends up with the same lagom
# environment (the same LAGOM_PLAN_ID), or no task has any of it.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
LAGOM_CLI=$top_builddir/lagom
[ -x "$LAGOM_CLI" ] || plan_skip_all "lagom not built ($LAGOM_CLI)"
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"
id nobody >/dev/null 2>&1 || plan_skip_all "no user nobody to run steps as"

cluster_unexport SLURM_
cluster_setup "$profile_fixture"
prof=$CLUSTER_DIR/profiles
chmod 0777 "$work"
wl=phi-2:fsdp
run_timeout=90

as_user=(runuser -u nobody -- env SLURM_CONF="$SLURM_CONF")
show_env='echo $(hostname) $(env | grep -E "^(NCCL_|LAGOM_|SLURM_LAGOM|TORCH_NCCL|CUDA_DEVICE_MAX)" | sort | tr "\n" " ")'

# tasks FILE: number of task lines; same FILE: distinct lagom environments
tasks() { grep -c '^n[0-9]' "$1"; }
envs() { grep '^n[0-9]' "$1" | sed 's/^[^ ]*//' | sort -u | wc -l; }
ids() { grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$1" | sort -u | wc -l; }
tuned() { grep -c 'LAGOM_PLAN_ID=' "$1"; }

# agree DESC N [planned|untuned]: the step ran N tasks, all with the same
# lagom environment; planned: it holds a LAGOM_PLAN_ID; untuned: nothing
agree() {
	local desc=$1 n=$2 want=${3:-} good=1
	[ "$rc" -eq 0 ] && [ "$(tasks "$out")" -eq "$n" ] && [ "$(envs "$out")" -eq 1 ] || good=
	case $want in
	planned) [ "$(tuned "$out")" -eq "$n" ] && [ "$(ids "$out")" -eq 1 ] || good= ;;
	untuned) ! grep -q 'LAGOM_\|NCCL_' "$out" || good= ;;
	esac
	if [ -n "$good" ]; then ok "$desc"; else not_ok "$desc"; dump; fi
}

# --- the six situations that split steps --------------------------------
run srun -v -N3 --gpus=7 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
agree "srun -N3 --gpus=7 (4+2+1 GPUs): every task alike, left to NCCL" 3 untuned
check "... srun -v says why, once" [ "$(grep -c 'lagom: .*unevenly.*no node of the step is tuned' "$err")" -eq 1 ]
diag "$(grep -o 'lagom: .*' "$err" | head -1)"

run srun -v -n7 -N3 --gpus-per-task=1 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
agree "srun -n7 -N3 --gpus-per-task=1 (uneven tasks): every task alike, left to NCCL" 7 untuned

run salloc -N3 --gres=gpu:4 srun -v --lagom=auto --lagom-workload=$wl -N1 --gres=gpu:1 bash -c "$show_env" : \
	-N2 --gres=gpu:2 bash -c "$show_env"
agree "a heterogeneous step (1 + 2 nodes): every task alike, left to NCCL" 3 untuned

# a prolog refreshing one node's profile (atomic rename) while steps start
"$LAGOM_CLI" profile synth --gpu A100 --gpus-per-node 4 --nic 1x100 --node n2 \
	-o "$CLUSTER_DIR/weak-n2.json" >/dev/null 2>&1
sed "s/\"name\": *\"gpu001\"/\"name\": \"n2\"/" "$profile_fixture" >"$CLUSTER_DIR/strong-n2.json"
if [ -s "$CLUSTER_DIR/weak-n2.json" ]; then
	(
		end=$((SECONDS + 120))
		while [ "$SECONDS" -lt "$end" ] && [ ! -e "$CLUSTER_DIR/stop-refresh" ]; do
			for f in weak strong; do
				install -m 0644 "$CLUSTER_DIR/$f-n2.json" "$prof/.n2.tmp"
				mv -f "$prof/.n2.tmp" "$prof/n2.json"
			done
		done
	) &
	refresher=$!
	split=0 planned=0 seen=
	for i in $(seq 1 20); do
		run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
		[ "$rc" -eq 0 ] && [ "$(tasks "$out")" -eq 3 ] && [ "$(envs "$out")" -eq 1 ] || split=$((split + 1))
		[ "$(tuned "$out")" -eq 3 ] && planned=$((planned + 1))
		seen="$seen${seen:+ }$(grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$out" | head -1 | cut -d= -f2)"
	done
	touch "$CLUSTER_DIR/stop-refresh"
	wait "$refresher"
	check "a profile replaced during 20 launches: no step split (split: $split)" [ "$split" -eq 0 ]
	check "... and the steps were tuned ($planned of 20)" [ "$planned" -eq 20 ]
	diag "plan ids seen: $(tr ' ' '\n' <<<"$seen" | sort | uniq -c | tr '\n' ' ')"
	install -m 0644 "$CLUSTER_DIR/weak-n2.json" "$prof/n2.json"
	run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
	agree "one node's profile differs from the others: every task has the same plan" 3 planned
	install -m 0644 "$CLUSTER_DIR/strong-n2.json" "$prof/n2.json"
else
	skip "lagom profile synth failed: no second profile"
	skip "lagom profile synth failed: no second profile"
	skip "lagom profile synth failed: no second profile"
fi

# a workload file: read once, by srun, as the user; where it cannot be
# read no node is tuned
wlf=$top_srcdir/tests/workload/data/valid/fsdp-layer.json
if [ -f "$wlf" ]; then
	cluster_fit_workload "$wlf" "$work/w.json"
	run "${as_user[@]}" srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=w.json bash -c "$show_env"
	agree "a workload file srun can read: every task has the same plan" 3 planned
	chmod 0600 "$work/w.json"
	run "${as_user[@]}" srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=w.json bash -c "$show_env"
	agree "a workload file srun cannot read: no task is tuned" 3 untuned
else
	skip "no workload fixture ($wlf)"
	skip "no workload fixture ($wlf)"
fi

# one node's profile missing, or unreadable: nobody is tuned
mv "$prof/n3.json" "$CLUSTER_DIR/n3.json.away"
run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
agree "one node's profile missing: no task is tuned" 3 untuned
mv "$CLUSTER_DIR/n3.json.away" "$prof/n3.json"
chmod 0600 "$prof/n3.json"
run "${as_user[@]}" srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
agree "one node's profile unreadable: no task is tuned" 3 untuned
chmod 0644 "$prof/n3.json"
chmod 0700 "$prof"
run "${as_user[@]}" srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
agree "the profile directory unreadable: no task is tuned" 3 untuned
chmod 0755 "$prof"

# --- where steps come from: all plan once and agree ----------------------
run srun -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "$show_env"
agree "srun -N3 with its own allocation: one plan" 3 planned
own=$(grep -o 'LAGOM_PLAN_ID=[0-9a-f]*' "$out" | head -1)

cat >"$work/steps.sh" <<EOF
#!/bin/bash
srun -N3 --lagom=auto --lagom-workload=$wl bash -c '$show_env' >$work/s3.out
srun -N2 --lagom=auto --lagom-workload=$wl bash -c '$show_env' >$work/s2.out
EOF
run salloc -N3 --gres=gpu:4 bash "$work/steps.sh"
cp "$work/s3.out" "$out"
agree "salloc -N3, then srun -N3: one plan" 3 planned
check "... the same plan as srun -N3 with its own allocation" grep -q "$own" "$work/s3.out"
cp "$work/s2.out" "$out"
agree "salloc -N3, then srun -N2: one plan" 2 planned
check_that "... for the step's two nodes (n1 n2), not the job's three" \
	'[ "$(cut -d" " -f1 "$work/s2.out" | sort | tr "\n" " ")" = "n1 n2 " ] && ! grep -q "$own" "$work/s2.out"'

cat >"$work/batch.sh" <<EOF
#!/bin/bash
#SBATCH -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl
srun bash -c '$show_env'
EOF
run sbatch --parsable --wait -o "$work/batch.out" "$work/batch.sh"
cp "$work/batch.out" "$out" 2>/dev/null
rc=0
agree "sbatch with one multi-node srun: one plan" 3 planned
check "... the same plan as srun -N3" grep -q "$own" "$work/batch.out"

run srun --export=NONE -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl /bin/bash -c "$show_env"
agree "srun --export=NONE: one plan" 3 planned
cat >"$work/batch-none.sh" <<EOF
#!/bin/bash
#SBATCH -N3 --gres=gpu:4 --lagom=auto --lagom-workload=$wl --export=NONE
srun /bin/bash -c '$show_env'
EOF
run sbatch --parsable --wait -o "$work/batch-none.out" "$work/batch-none.sh"
cp "$work/batch-none.out" "$out" 2>/dev/null
rc=0
agree "sbatch --export=NONE with one multi-node srun: every task alike" 3
diag "sbatch --export=NONE: $(head -1 "$out")"

# nested: a task's srun gets its own plan, never the enclosing step's text
run srun -N1 --gres=gpu:4 --lagom=auto --lagom-workload=$wl \
	bash -c 'env | grep -c "^SLURM_LAGOM_STEP_PLAN=" || true'
check "the plan's carrier never reaches a task" [ "$(head -1 "$out")" = 0 ]

plan "$tap_n"
done_testing
