#!/usr/bin/env bash
# bench/bench_submit.sh - submission cost of contrib/slurm/lagom_submit.lua.
#
# Starts one local cluster (no accounting) with JobSubmitPlugins=lua and a
# site job_submit.lua that passes jobs named "lagom" through the module
# (production settings: reload_s = 30) and returns at once for jobs named
# "plain".  Submits LAGOM_BENCH_JOBS (500) held jobs of each kind,
#   sbatch -H -N2 --lagom=auto --lagom-workload=<a packed workload>
# in alternating rounds of 50 (so drift on the shared CPUs hits both), each
# submission a bounded sbatch process, and prints the total wall time of
# each kind, their ratio (goal < 1.05), the rejected submissions (goal 0)
# and how many "lagom" jobs got Switches=1.  Because sbatch's wall time on a
# shared host is mostly process start and noise, it also prints the median
# time slurmctld itself spent in each submission RPC (the "usec=" of its
# _slurm_rpc_submit_batch_job log line, which includes job_submit/lua).
# Asserts nothing about speed.
#
#   make bench-submit                  # root only
#   LAGOM_BENCH_JOBS=1000 make bench-submit
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

jobs=${LAGOM_BENCH_JOBS:-500}
round=50
if reason=$(cluster_skip_reason); then
	echo "bench_submit: skipped: $reason"
	exit 0
fi
LAGOM_PLUGIN=$top_builddir/spank/.libs/lagom.so
lagom=$top_builddir/lagom
[ -f "$LAGOM_PLUGIN" ] && [ -x "$lagom" ] || {
	echo "bench_submit: build lagom and lagom.so first" >&2
	exit 1
}
workload=llama-3-70b:tp8,fsdp

site=$(mktemp /tmp/lagom-bench-lua.XXXXXX)
cat >"$site" <<EOF
local here = string.match(debug.getinfo(1, "S").source, "^@(.*)/[^/]*\$")
local lagom = dofile("$top_srcdir/contrib/slurm/lagom_submit.lua")
lagom.setup{ policy = here .. "/lagom-policy", trusted_uids = { 0 } }
function slurm_job_submit(job_desc, part_list, submit_uid)
	if job_desc.name == "lagom" then
		lagom.job_submit(job_desc, part_list, submit_uid)
	end
	return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end
EOF
trap 'cluster_stop; rm -f "$site"' EXIT
LAGOM_CLUSTER_ACCT=0 LAGOM_JOB_SUBMIT_LUA=$site cluster_start ||
	{ echo "bench_submit: cluster did not start" >&2; exit 1; }
cluster_plugstack profile_dir="$CLUSTER_DIR/profiles" tuner=none
cluster_profiles "$top_srcdir/tests/profile/valid/a100-full.json"
"$lagom" policy --profile "$CLUSTER_DIR/profiles" \
	--topology-conf "$CLUSTER_DIR/etc/topology.conf" --spine-taper 4 \
	--output "$CLUSTER_DIR/etc/lagom-policy" >/dev/null ||
	{ echo "bench_submit: lagom policy failed" >&2; exit 1; }
cd "$CLUSTER_DIR/work" || exit 1

rejected=0
# batch NAME COUNT: COUNT submissions, prints their wall time in ns
batch() {
	local i t0 t1
	t0=$(date +%s%N)
	for ((i = 0; i < $2; i++)); do
		timeout 30 sbatch --parsable -H -J "$1" -N2 --lagom=auto \
			--lagom-workload="$workload" -o /dev/null --wrap=true \
			>>"$CLUSTER_DIR/ids.$1" 2>/dev/null ||
			echo x >>"$CLUSTER_DIR/rejected"
	done
	t1=$(date +%s%N)
	echo $((t1 - t0))
}
: >"$CLUSTER_DIR/rejected"
# warm-up: load the script and the policy
batch lagom 5 >/dev/null
batch plain 5 >/dev/null
timeout 30 scancel --user=root
: >"$CLUSTER_DIR/ids.lagom"
: >"$CLUSTER_DIR/ids.plain"
plain_ns=0 lagom_ns=0 switched=0 done_jobs=0
while [ "$done_jobs" -lt "$jobs" ]; do
	n=$((jobs - done_jobs < round ? jobs - done_jobs : round))
	plain_ns=$((plain_ns + $(batch plain "$n")))
	lagom_ns=$((lagom_ns + $(batch lagom "$n")))
	switched=$((switched + $(timeout 30 scontrol -o show job |
		grep 'JobName=lagom ' | grep 'JobState=PENDING' | grep -c 'Switches=1@')))
	timeout 30 scancel --user=root
	done_jobs=$((done_jobs + n))
done
rejected=$(wc -l <"$CLUSTER_DIR/rejected")
echo "bench_submit: $jobs held sbatch -N2 --lagom=auto submissions of each kind, rounds of $round"
awk -v p="$plain_ns" -v l="$lagom_ns" -v n="$jobs" 'BEGIN {
	printf "  without the module: %8.1f ms total, %6.2f ms per job\n", p / 1e6, p / 1e6 / n
	printf "  with the module:    %8.1f ms total, %6.2f ms per job\n", l / 1e6, l / 1e6 / n
	printf "  ratio with/without: %.3f (goal < 1.05)\n", l / p
}'
# median usec slurmctld logged for the RPCs of the job ids in FILE
rpc_usec() {
	awk 'NR == FNR { id[$1] = 1; next }
	     /_slurm_rpc_submit_batch_job: JobId=/ {
		j = $0; sub(/.*JobId=/, "", j); sub(/ .*/, "", j)
		u = $0; sub(/.*usec=/, "", u)
		if (j in id) print u + 0 }' "$1" "$CLUSTER_DIR/log/slurmctld.log" |
		sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }'
}
up=$(rpc_usec "$CLUSTER_DIR/ids.plain")
ul=$(rpc_usec "$CLUSTER_DIR/ids.lagom")
awk -v p="$up" -v l="$ul" 'BEGIN {
	printf "  slurmctld submit RPC, median: %d us without, %d us with (ratio %.3f)\n", p, l, p ? l / p : 0
}'
echo "  rejected submissions: $rejected (goal 0)"
echo "  jobs the module gave Switches=1: $switched of $jobs"
