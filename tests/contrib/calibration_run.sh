#!/bin/sh
# contrib/calibration-run.sh's plan of steps (dry run: no GPU here): on an
# 8-node job of 8 GPUs, node counts 2, 4, 8; allreduce with Ring and Tree,
# allgather and reducescatter with Ring; LL, LL128, Simple; 8, 16, 32
# channels: 108 measured steps, each forcing its algorithm, protocol and
# channel count and measured (--lagom=auto), sizes 8 B - 4 GiB.  Refused
# with one line: outside a job, a node count above the job's, no
# nccl-tests binary.
. "${top_srcdir:-.}/tests/lib/tap.sh"

script="${top_srcdir:-.}/contrib/calibration-run.sh"
command -v bash >/dev/null || plan_skip_all "no bash"
plan 6
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
SLURM_JOB_NUM_NODES=8 SLURM_GPUS_ON_NODE=8 LAGOM_CAL_DRY_RUN=1 \
	bash "$script" >"$T/out" 2>"$T/err"
rc=$?
n=$(wc -l <"$T/out")
[ $rc -eq 0 ] && [ "$n" -eq 108 ] &&
	grep -q '^lagom-calibration: 108 steps (0 failed) over nodes: 2 4 8$' "$T/err" &&
	ok "dry run: 108 steps over 2, 4, 8 nodes" ||
	not_ok "dry run: rc $rc, $n steps: $(cat "$T/err")"
bad=$(grep -cv '^env NCCL_ALGO=\(Ring\|Tree\) NCCL_PROTO=\(LL\|LL128\|Simple\) NCCL_MIN_CTAS=\([0-9]*\) NCCL_MAX_CTAS=\3 srun -N [248] --ntasks-per-node=8 --gpus-per-task=1 --lagom=auto -J lagom-cal-[a-z_]*-[A-Za-z]*-[A-Za-z0-9]*-[0-9]*-[248]n [a-z_]*_perf -b 8 -e 4G -f 4 -g 1 -w 5 -n 20 -c 0$' "$T/out")
[ "$bad" -eq 0 ] &&
	ok "every step forces its algorithm, protocol and channels, measured, 8 B - 4 GiB" ||
	not_ok "$bad steps not of the form: $(head -3 "$T/out")"
[ "$(grep -c 'NCCL_ALGO=Tree' "$T/out")" -eq 27 ] &&
	! grep 'NCCL_ALGO=Tree' "$T/out" | grep -qv all_reduce_perf &&
	ok "Tree for allreduce only (27 steps)" ||
	not_ok "Tree steps: $(grep -c 'NCCL_ALGO=Tree' "$T/out")"
bash "$script" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'run me with sbatch' "$T/err" &&
	ok "outside a job: refused with one line" || not_ok "outside a job: $(cat "$T/err")"
SLURM_JOB_NUM_NODES=4 SLURM_GPUS_ON_NODE=8 LAGOM_CAL_NODES="2 8" \
	LAGOM_CAL_DRY_RUN=1 bash "$script" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q "node count 8: more than the job's 4 nodes" "$T/err" &&
	ok "a node count above the job's: refused" || not_ok "node count: $(cat "$T/err")"
SLURM_JOB_NUM_NODES=2 SLURM_GPUS_ON_NODE=8 NCCL_TESTS_DIR="$T" \
	bash "$script" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'no all_reduce_perf (set NCCL_TESTS_DIR' "$T/err" &&
	ok "no nccl-tests: refused, saying where to point" || not_ok "no nccl-tests: $(cat "$T/err")"
done_testing
