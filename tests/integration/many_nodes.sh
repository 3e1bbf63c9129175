#!/usr/bin/env bash
# tests/integration/many_nodes.sh - lagom on a step of 128 nodes of a real
# Slurm (issue 34): 128 slurmd on this machine (contrib/demo-cluster.sh,
# each in its own UTS namespace), then `srun -N128 --lagom=auto` and an
# sbatch of it.  Checks: one plan id on every node; every node received the
# same carrier, of a size that does not grow with the node count and stays
# within what Slurm allows; the job comment written once, by node 0; the
# per-node work (each node's "checked in X ms") does not grow with the
# node count (compared with a 4-node step on the same cluster).
#
# LAGOM_MANY_NODES=N: another node count (default 128).  Takes about a
# minute here (2 CPUs): the cluster's start and stop are most of it.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
N=${LAGOM_MANY_NODES:-128}
profile_fixture=$top_srcdir/tests/profile/valid/a100-full.json
[ -f "$profile_fixture" ] || plan_skip_all "no profile fixture ($profile_fixture)"
probe_src=$top_srcdir/tests/integration/carrier_probe.c
command -v "${CC:-cc}" >/dev/null 2>&1 || plan_skip_all "no C compiler for the carrier probe (${CC:-cc})"

cluster_unexport SLURM_
LAGOM_CLUSTER_NODES=$N cluster_setup "$profile_fixture"
# from the cluster directory's birth, made once the cluster lock was taken
# (the wait for another test's cluster is not this test's time)
t_born=$(stat -c %W "$CLUSTER_DIR" 2>/dev/null)
[ "${t_born:-0}" -gt 0 ] || t_born=$(date +%s)
since_born() { echo $(($(date +%s) - t_born)); }
diag "$N slurmd up in $(since_born) s; their memory: $(awk '/^slurmd-/ {print $2}' "$CLUSTER_DIR/pids" |
	xargs ps -o rss= -p 2>/dev/null | awk '{s += $1; n++} END {if (n) printf "%.1f MiB RSS each, %.0f MiB in all", s / n / 1024, s / 1024}')"
# the probe (tests/integration/carrier_probe.c), built against this
# release's slurm/spank.h, runs before lagom on every node
probe=$CLUSTER_DIR/carrier_probe.so
"${CC:-cc}" -shared -fPIC -o "$probe" "$probe_src" 2>"$CLUSTER_DIR/probe.err" || {
	echo "Bail out! the carrier probe did not compile: $(head -3 "$CLUSTER_DIR/probe.err")"
	exit 1
}
# the cluster digest, as lagom-prolog keeps it (srun reads one file, not N)
digest=no
if [ -x "$top_builddir/lagom-prolog" ] &&
	"$top_builddir/lagom-prolog" --digest -d "$CLUSTER_DIR/profiles" >/dev/null 2>&1; then
	digest=yes
fi
{
	echo "required $probe"
	echo "required $LAGOM_PLUGIN $CLUSTER_ARGS verbose=2"
} >"$CLUSTER_DIR/etc/plugstack.conf"
wl=phi-2:fsdp
run_timeout=120
show='echo "$(hostname) ${LAGOM_PLAN_ID:-none}"'

# the lines of job J (JOB.STEP) in every node's slurmd log matching RE
node_lines() { cat "$CLUSTER_DIR"/log/slurmd.n*.log | grep -a "\[$1\]\|job $1" | grep -a -- "$2"; }
# carrier J: "LEN HASH" per node; checked J: each node's "checked in" ms
carriers() { node_lines "$1" "lagom-probe: job $1 " | sed 's/.* carrier \([0-9]*\) bytes fnv \([0-9a-f]*\).*/\1 \2/'; }
checked() { node_lines "$1" "lagom: job $1 on .* checked in" | sed 's/.* checked in \([0-9.]*\) ms.*/\1/'; }
median() { sort -g | awk '{a[NR] = $1} END {if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; else print -1}'; }
job_of() { sed -n 's/^JOB=//p' "$1" | head -1; }

# --- a 4-node step first: the baseline of per-node cost -------------------
run srun -N4 --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "echo JOB=\$SLURM_JOB_ID.\$SLURM_STEP_ID >&2; $show"
j4=$(sed -n 's/^JOB=//p' "$err" | head -1)
check_that "srun -N4 --lagom=auto: 4 tasks, one plan (rc $rc)" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c " [0-9a-f]\{16\}$" "$out")" -eq 4 ]'

# --- srun -N128 ------------------------------------------------------------
t0=$(date +%s%N)
run srun -v -N"$N" --gres=gpu:4 --lagom=auto --lagom-workload=$wl bash -c "echo JOB=\$SLURM_JOB_ID.\$SLURM_STEP_ID >&2; $show"
t1=$(date +%s%N)
cp "$out" "$CLUSTER_DIR/srun.out"
jn=$(sed -n 's/^JOB=//p' "$err" | head -1)
diag "srun -N$N took $(((t1 - t0) / 1000000)) ms; srun: $(grep -o 'lagom: job .* plan .* in [0-9.]* ms' "$err" | head -1) (cluster digest: $digest)"
check_that "srun -N$N --lagom=auto ran $N tasks on $N distinct nodes (rc $rc)" \
	'[ "$rc" -eq 0 ] && [ "$(wc -l <"$out")" -eq "$N" ] && [ "$(cut -d" " -f1 "$out" | sort -u | wc -l)" -eq "$N" ]'
own=$(cut -d" " -f2 "$out" | sort -u)
check_that "... every task has the same plan id ($(echo "$own" | tr '\n' ' '))" \
	'[ "$(echo "$own" | wc -l)" -eq 1 ] && [[ $own =~ ^[0-9a-f]{16}$ ]]'
[ -n "$jn" ] || dump

# every node received the same carrier, within the size Slurm allows
# (LAGOM_CARRIER_MAX, below Slurm's 256 KiB per environment value), no
# larger than the 4-node step's but for the task counts' few digits
c128=$(carriers "$jn" | sort -u)
c4=$(carriers "$j4" | sort -u | head -1)
len128=$(echo "$c128" | head -1 | cut -d" " -f1)
len4=${c4%% *}
diag "carrier: $len128 bytes on $N nodes, ${len4:-?} bytes on 4"
check_that "... all $N nodes received the same carrier ($(carriers "$jn" | wc -l) probed, $(echo "$c128" | wc -l) distinct)" \
	'[ "$(carriers "$jn" | wc -l)" -eq "$N" ] && [ "$(echo "$c128" | wc -l)" -eq 1 ]'
check_that "... of $len128 bytes: within 192 KiB, at most 64 bytes more than the 4-node step's ($len4)" \
	'[ "${len128:-0}" -gt 0 ] && [ "$len128" -le 196608 ] && [ -n "$len4" ] && [ "$len128" -le $((len4 + 64)) ]'

# the node-side work: each node checks the carrier and applies the plan;
# its time must not grow with the node count.  The slurmstepd of the N
# nodes share 2 CPUs here, so the bound is loose: the median at N within
# 3 times the 4-node step's + 2 ms (a per-node cost linear in N would be
# 32 times at 128).
m4=$(checked "$j4" | median)
mn=$(checked "$jn" | median)
diag "per-node hook time (checked in ... ms): median $m4 ms on 4 nodes, $mn ms on $N (max $(checked "$jn" | sort -g | tail -1) ms)"
check_that "... every node checked and applied the plan ($(checked "$jn" | wc -l) of $N)" \
	'[ "$(checked "$jn" | wc -l)" -eq "$N" ]'
check_that "... per-node time does not grow with the node count (median $mn ms at $N, $m4 ms at 4)" \
	'awk -v a="$m4" -v b="$mn" "BEGIN {exit !(a >= 0 && b >= 0 && b <= 3 * a + 2)}"'

# the comment: written once, by node 0 (verbose=2 logs its round trips)
comments=$(node_lines "$jn" "comment took" | wc -l)
check_that "... the job comment written once ($comments times), by node 0 (n1)" \
	'[ "$comments" -eq 1 ] && grep -aq "job $jn: comment took" "$CLUSTER_DIR/log/slurmd.n1.log"'
job=${jn%%.*}
state=
for _ in $(seq 1 30); do
	state=$(timeout 5 sacct -X -n -j "$job" -o State 2>/dev/null | tr -d ' ')
	case $state in COMPLETED* | FAILED* | CANCELLED*) break ;; esac
	sleep 0.5
done
comment=$(timeout 5 sacct -X -n -j "$job" -o Comment%1100 2>/dev/null)
check_that "... sacct shows one lagom segment with the plan id (job $job: $state)" \
	'[ "$(grep -o "{lagom: " <<<"$comment" | wc -l)" -eq 1 ] && grep -q "$own" <<<"$comment"'
[ "$(grep -o "{lagom: " <<<"$comment" | wc -l)" -eq 1 ] || diag "comment: ${comment:0:200}"

# --- sbatch -N128 with one srun ---------------------------------------------
cat >"$work/batch.sh" <<EOF
#!/bin/bash
#SBATCH -N$N --gres=gpu:4 --lagom=auto --lagom-workload=$wl
srun bash -c '$show'
EOF
t0=$(date +%s%N)
run sbatch --parsable --wait -o "$work/batch.out" "$work/batch.sh"
t1=$(date +%s%N)
diag "sbatch -N$N --wait took $(((t1 - t0) / 1000000)) ms"
# (the batch output holds node 0's lagom lines too: verbose=2)
grep '^n[0-9]* ' "$work/batch.out" >"$out" 2>/dev/null
show_batch() { grep -v '^n[0-9]* ' "$work/batch.out" | sed 's/^/#   /' | head -10; }
tap_on_fail=show_batch check_that "sbatch -N$N with srun inside: $N tasks, the plan of srun -N$N on each (rc $rc)" \
	'[ "$rc" -eq 0 ] && [ "$(grep -c " $own\$" "$out")" -eq "$N" ] && [ "$(cut -d" " -f1 "$out" | sort -u | wc -l)" -eq "$N" ]'

diag "this test took $(since_born) s from the cluster's start (and the stop is about 7 s more)"
plan "$tap_n"
done_testing
