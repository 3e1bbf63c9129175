#!/bin/bash
# contrib/calibration-run.sh - the site's dense calibration run
# (doc/calibration-run.md): nccl-tests over node counts, collectives,
# algorithms and protocols forced one by one, and channel counts, each
# configuration one measured step (srun --lagom=auto: lagom's profiler
# plugin writes its records to the calibration account's spool).
#
# Submit as the calibration account (plugstack.conf calibration_user=),
# with as many nodes as the largest node count:
#
#   sbatch -N 8 --gpus-per-node=8 /usr/share/lagom/calibration-run.sh
#
# then, as root: lagom calibrate --profile PROFILE --out
# PROFILE_DIR/lagom-calibration.json MEASURE_DIR (the account's runs are
# trusted dense evidence: doc/model.md 2.7).
#
# Knobs (environment, or sbatch --export):
#   LAGOM_CAL_NODES     node counts, each at most the allocation's
#                       [2 4 8 ... up to SLURM_JOB_NUM_NODES]
#   LAGOM_CAL_COLLS     nccl-tests binaries' stems [all_reduce all_gather
#                       reduce_scatter]
#   LAGOM_CAL_ALGOS     NCCL_ALGO values [Ring Tree]
#   LAGOM_CAL_PROTOS    NCCL_PROTO values [LL LL128 Simple]
#   LAGOM_CAL_CHANNELS  NCCL_MIN_CTAS = NCCL_MAX_CTAS values [8 16 32]
#   LAGOM_CAL_MAX_BYTES largest size, nccl-tests' -e [4G] (from 8 B, x4)
#   LAGOM_CAL_ITERS     timed iterations per size [20]
#   NCCL_TESTS_DIR      where all_reduce_perf ... are [PATH]
#   LAGOM_CAL_DRY_RUN   1: print each step's command, run nothing
#
#SBATCH --job-name=lagom-calibration
#SBATCH --exclusive
#SBATCH --time=04:00:00
#SBATCH --lagom=auto
set -u

say() { printf 'lagom-calibration: %s\n' "$*" >&2; }

alloc=${SLURM_JOB_NUM_NODES:-}
gpn=${SLURM_GPUS_ON_NODE:-${LAGOM_CAL_GPUS_PER_NODE:-}}
if [ -z "$alloc" ] || [ -z "$gpn" ]; then
	say "run me with sbatch (SLURM_JOB_NUM_NODES and SLURM_GPUS_ON_NODE unset)"
	exit 2
fi
case "$alloc$gpn" in
*[!0-9]*)
	say "SLURM_JOB_NUM_NODES=$alloc, GPUs per node $gpn: not numbers"
	exit 2
	;;
esac
if [ -z "${LAGOM_CAL_NODES:-}" ]; then
	LAGOM_CAL_NODES=
	n=2
	while [ "$n" -le "$alloc" ]; do
		LAGOM_CAL_NODES="$LAGOM_CAL_NODES $n"
		n=$((n * 2))
	done
fi
colls=${LAGOM_CAL_COLLS:-all_reduce all_gather reduce_scatter}
algos=${LAGOM_CAL_ALGOS:-Ring Tree}
protos=${LAGOM_CAL_PROTOS:-LL LL128 Simple}
channels=${LAGOM_CAL_CHANNELS:-8 16 32}
max=${LAGOM_CAL_MAX_BYTES:-4G}
iters=${LAGOM_CAL_ITERS:-20}
dry=${LAGOM_CAL_DRY_RUN:-0}

bin_of() { # STEM: the nccl-tests binary, or nothing
	local b
	if [ -n "${NCCL_TESTS_DIR:-}" ]; then
		b=$NCCL_TESTS_DIR/${1}_perf
		[ -x "$b" ] && printf '%s\n' "$b"
		return 0
	fi
	command -v "${1}_perf" 2>/dev/null || true
}

for c in $colls; do
	if [ -z "$(bin_of "$c")" ] && [ "$dry" != 1 ]; then
		say "no ${c}_perf (set NCCL_TESTS_DIR to nccl-tests' build/ directory)"
		exit 2
	fi
done
for n in $LAGOM_CAL_NODES; do
	case "$n" in
	*[!0-9]* | "" | 0 | 1)
		say "node count '$n': expected 2 or more"
		exit 2
		;;
	esac
	if [ "$n" -gt "$alloc" ]; then
		say "node count $n: more than the job's $alloc nodes"
		exit 2
	fi
done

steps=0
failed=0
for n in $LAGOM_CAL_NODES; do
	for c in $colls; do
		bin=$(bin_of "$c")
		for a in $algos; do
			for p in $protos; do
				# NCCL runs Tree for allreduce only
				[ "$a" = Ring ] || [ "$c" = all_reduce ] || continue
				for ch in $channels; do
					steps=$((steps + 1))
					cmd=(env NCCL_ALGO="$a" NCCL_PROTO="$p"
						NCCL_MIN_CTAS="$ch" NCCL_MAX_CTAS="$ch"
						srun -N "$n" --ntasks-per-node="$gpn"
						--gpus-per-task=1 --lagom=auto
						-J "lagom-cal-$c-$a-$p-$ch-${n}n"
						"${bin:-${c}_perf}" -b 8 -e "$max" -f 4 -g 1
						-w 5 -n "$iters" -c 0)
					if [ "$dry" = 1 ]; then
						printf '%s\n' "${cmd[*]}"
						continue
					fi
					"${cmd[@]}" || {
						failed=$((failed + 1))
						say "step failed: ${cmd[*]}"
					}
				done
			done
		done
	done
done
say "$steps steps ($failed failed) over nodes:$LAGOM_CAL_NODES"
[ "$failed" -eq 0 ]
