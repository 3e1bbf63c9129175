#!/usr/bin/env bash
# tests/integration/block.sh - topology/block and segments on a real Slurm
# that has them (topology/block 23.11+, --segment 24.05+, segment_size in
# job_submit/lua 26.05+; doc/scheduler.md 4): four nodes in two blocks of
# two (n[1-2], n[3-4]); `lagom policy` on the cluster's block
# topology.conf, `lagom place` reading the blocks through libslurm and
# printing --segment, Slurm placing a job with that --segment inside one
# block, and the job_submit module setting segment_size (26.05+) or
# leaving the job unchanged with one log line (older releases).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/cluster.sh"

cluster_need_plugin
[ -f /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so ] ||
	plan_skip_all "job_submit_lua.so not installed (slurm-wlm-basic-plugins)"
lagom=$top_builddir/lagom
[ -x "$lagom" ] || plan_skip_all "lagom not built"
fixture=$top_srcdir/tests/profile/valid/a100-full.json
# the release of the installed Slurm (srun --version needs a slurm.conf)
printf 'ClusterName=x\nSlurmctldHost=localhost\n' >"${TMPDIR:-/tmp}/lagom-block-version.conf"
release=$(SLURM_CONF=${TMPDIR:-/tmp}/lagom-block-version.conf srun --version 2>/dev/null |
	sed -n 's/^slurm[a-z-]* \([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p')
rm -f "${TMPDIR:-/tmp}/lagom-block-version.conf"
[ -n "$release" ] || plan_skip_all "cannot read the release from 'srun --version'"
set -- $release
major=$1 minor=$((10#$2))
[ $((major * 100 + minor)) -ge 2405 ] ||
	plan_skip_all "Slurm $major.$2 has no --segment (24.05+; topology/block 23.11+)"
lua_segment=$([ $((major * 100 + minor)) -ge 2605 ] && echo yes || echo no)

site=$(cluster_site_lua)
cleanup() {
	cluster_stop
	rm -f "$site"
}
cluster_unexport
export LAGOM_CLUSTER_NODES=4
LAGOM_CLUSTER_ACCT=0 LAGOM_JOB_SUBMIT_LUA=$site cluster_setup "$fixture" cleanup
etc=$CLUSTER_DIR/etc
policy=$etc/lagom-policy
ctld_log=$CLUSTER_DIR/log/slurmctld.log
heavy=llama-3-70b:tp8,fsdp
show() { timeout 10 scontrol show job "$1" 2>/dev/null; }

# The cluster as two NVLink-like blocks of two nodes.  scontrol reconfigure
# restarts the daemons on 23.11+, which takes a new TopologyPlugin.
sed -i 's|^TopologyPlugin=.*|TopologyPlugin=topology/block|' "$etc/slurm.conf"
printf 'BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\nBlockSizes=2\n' \
	>"$etc/topology.conf"
timeout 30 scontrol reconfigure >/dev/null 2>&1
for i in $(seq 1 60); do
	timeout 5 scontrol show topology 2>/dev/null | grep -q '^BlockName=b1' &&
		[ "$(timeout 5 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -ge 4 ] &&
		break
	sleep 0.5
done
diag "Slurm $major.$2: $(timeout 5 scontrol show topology 2>/dev/null | head -2 | tr '\n' ';')"
check_that "Slurm $major.$2 runs topology/block (scontrol show topology)" \
	'timeout 5 scontrol show topology | grep -q "^BlockName=b1 .*Nodes=n\[1-2\]"'

# --- lagom place: the blocks through libslurm, --segment for packing -------
run "$lagom" place --nodes 2 --workload "$heavy" --profile "$CLUSTER_DIR/profiles" \
	--spine-taper 4 --format json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["options"]:
    print(o["kind"], int(o["possible"]), int(o["recommended"]), o["sbatch"])
' "$out" >"$CLUSTER_DIR/place" 2>/dev/null
tap_on_fail=dump
check "lagom place reads Slurm's blocks (scontrol show topology)" [ "$rc" -eq 0 ]
pack=$(awk '$1 == "pack-now" && $2 == 1' "$CLUSTER_DIR/place" | cut -d' ' -f4-)
diag "pack-now: $pack"
check_that "... pack-now asks for one segment of the job's nodes (--segment=2)" \
	'[[ "$pack" == *" --segment=2"* ]] && [[ "$pack" != *--switches* ]]'
run sbatch --parsable -o /dev/null $pack --wrap='sleep 60'
job=$(cut -d';' -f1 "$out")
for i in $(seq 1 40); do
	show "$job" | grep -q 'JobState=RUNNING' && break
	sleep 0.25
done
nodes=$(show "$job" | sed -n 's/^ *NodeList=//p' | head -1)
check_that "... and sbatch $pack runs inside one block ($nodes)" \
	'[ "$nodes" = "n[1-2]" ] || [ "$nodes" = "n[3-4]" ]'
timeout 10 scancel "$job"

# --- lagom policy and the job_submit module --------------------------------
run "$lagom" policy --profile "$CLUSTER_DIR/profiles" --topology-conf "$etc/topology.conf" \
	--spine-taper 4 --min-loss 0.05 --workload "$heavy" --output "$policy"
check "lagom policy reads the block topology.conf" [ "$rc" -eq 0 ]
check "... and writes a block policy" grep -q '^topology block' "$policy"
before=$(grep -c 'lua: lagom:' "$ctld_log")
run sbatch --parsable -H -o /dev/null -N2 --lagom=auto --lagom-workload="$heavy" --wrap=true
job=$(cut -d';' -f1 "$out")
s=$(show "$job")
check "sbatch -N2 --lagom=auto --lagom-workload=$heavy is accepted" [ "$rc" -eq 0 ]
if [ "$lua_segment" = yes ]; then
	check "... the module sets segment_size = 2 (SegmentSize=2)" grep -q 'SegmentSize=2' <<<"$s"
	check "... with the decision in the admin comment" \
		grep -q "AdminComment=lagom: --segment=2 for $heavy on 2 nodes" <<<"$s"
else
	check_that "... unchanged: job_submit/lua cannot set segment_size before 26.05" \
		'! grep -q "AdminComment=lagom" <<<"$s" && ! grep -q "Switches=" <<<"$s"'
	check "... one log line saying why" \
		[ "$(grep 'lua: lagom:' "$ctld_log" | tail -n +$((before + 1)) | grep -c 'segment_size')" -ge 1 ]
fi
timeout 10 scancel --user=root >/dev/null 2>&1

plan "$tap_n"
done_testing
