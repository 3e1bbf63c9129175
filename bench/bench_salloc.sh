#!/usr/bin/env bash
# bench/bench_salloc.sh - no step hangs: salloc rounds of two steps inside
# one allocation (srun -N3, then srun -N2: tests/integration/one_plan.sh's
# case), with lagom (--lagom=auto, comment=yes) or without it (an empty
# plugstack.conf), on the local cluster.
#
#   make bench-salloc                    200 rounds with lagom
#   LAGOM_SALLOC_MODE=without make bench-salloc
#   LAGOM_SALLOC_ROUNDS=N                rounds (default 200)
#   LAGOM_SALLOC_KEEP=DIR                what a failed round left (default: a
#                                        temporary folder, printed)
#
# A round bounded at 60 s that takes over 25 s is a hang: its process list
# with each thread's kernel wait channel, the kernel stacks of Slurm's
# processes, squeue and the daemons' logs are kept, and the kernel's
# segfault lines (dmesg) printed.  This is how a slurmstepd that died at
# the end of node 0's step (a detached lagom thread returning through
# unmapped code after Slurm's dlclose) was found: 3 hung rounds in 200 on
# Slurm 26.05 before the fix, none after (NEWS).  Prints the rounds, the
# failures and the median round; exits 1 when a round failed.  Root only.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

mode=${LAGOM_SALLOC_MODE:-auto}
rounds=${LAGOM_SALLOC_ROUNDS:-200}
case $mode in auto | without) ;; *) echo "bench_salloc: LAGOM_SALLOC_MODE is auto or without ('$mode')" >&2; exit 1 ;; esac
case $rounds in '' | *[!0-9]* | 0*) echo "bench_salloc: LAGOM_SALLOC_ROUNDS takes a positive number ('$rounds')" >&2; exit 1 ;; esac
if reason=$(cluster_skip_reason); then
	echo "bench_salloc: skipped: $reason"
	exit 0
fi
LAGOM_PLUGIN=${LAGOM_PLUGIN:-$top_builddir/spank/.libs/lagom.so}
[ -f "$LAGOM_PLUGIN" ] || { echo "bench_salloc: $LAGOM_PLUGIN not built" >&2; exit 1; }
keep=${LAGOM_SALLOC_KEEP:-$(mktemp -d /tmp/lagom-salloc.XXXXXX)}
mkdir -p "$keep" || exit 1

cluster_unexport SLURM_
cluster_setup "$top_srcdir/tests/profile/valid/a100-full.json"
chmod 0777 "$work"
la=
if [ "$mode" = without ]; then
	: >"$CLUSTER_DIR/etc/plugstack.conf"
else
	la="--lagom=auto --lagom-workload=phi-2:fsdp"
fi
cat >"$work/steps.sh" <<X
#!/bin/bash
srun -N3 $la hostname >$work/s3.out
srun -N2 $la hostname >$work/s2.out
X

# capture DIR: what every Slurm process waits on, while the round hangs
capture() {
	local p t
	mkdir -p "$1"
	ps -eLo pid,tid,ppid,stat,wchan:32,etimes,cmd >"$1/ps" 2>&1
	for p in $(pgrep -f 'slurmstepd|srun|salloc|slurmd'); do
		for t in /proc/"$p"/task/*; do
			echo "== $p $(cat /proc/"$p"/comm 2>/dev/null) tid ${t##*/}"
			cat "$t/wchan" "$t/stack" 2>/dev/null
			echo
		done
	done >"$1/stacks" 2>&1
	squeue -a -s >"$1/squeue" 2>&1
}

fails=0
: >"$keep/times"
for i in $(seq 1 "$rounds"); do
	t0=$(date +%s%N)
	timeout 60 salloc -N3 --gres=gpu:4 bash "$work/steps.sh" >"$work/o" 2>"$work/e" &
	p=$!
	captured=
	while kill -0 "$p" 2>/dev/null; do
		if [ -z "$captured" ] && [ $((($(date +%s%N) - t0) / 1000000000)) -gt 25 ]; then
			capture "$keep/round-$i"
			captured=1
		fi
		sleep 0.1
	done
	wait "$p"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "$ms" >>"$keep/times"
	if [ "$rc" -ne 0 ] || [ -n "$captured" ]; then
		fails=$((fails + 1))
		mkdir -p "$keep/round-$i"
		cp "$work/o" "$work/e" "$keep/round-$i/"
		cp -r "$CLUSTER_DIR/log" "$keep/round-$i/log"
		echo "round $i: exit $rc after $ms ms; srun said: $(tr '\n' ' ' <"$work/e" | cut -c1-300)"
	fi
done
median=$(sort -n "$keep/times" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
echo "bench_salloc: $mode: $rounds rounds of salloc -N3 { srun -N3; srun -N2 }, $fails failed, median round $median ms"
if [ "$fails" -gt 0 ]; then
	echo "bench_salloc: the failed rounds are kept in $keep; the kernel's segfault lines:"
	dmesg 2>/dev/null | grep -E 'slurmstepd|srun' | grep -i segfault | tail -5
	exit 1
fi
[ -n "${LAGOM_SALLOC_KEEP:-}" ] || rm -rf "$keep"
