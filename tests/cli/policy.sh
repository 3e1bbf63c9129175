#!/bin/sh
# tests/cli/policy.sh - `lagom policy`: deterministic, atomic, strict about
# its inputs, and what it writes is what doc/policy-format.md says;
# `lagom place` fails with one line when Slurm cannot be reached.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

PROF=$top_srcdir/tests/profile/valid/a100-full.json
WL=$top_srcdir/tests/workload/data/valid/fsdp-layer.json
TOPO=$TMP/topology.conf
printf 'SwitchName=leaf1 Nodes=n[1-4]\nSwitchName=leaf2 Nodes=n[5-8]\nSwitchName=spine Switches=leaf[1-2]\n' >"$TOPO"
POL="policy --profile $PROF --topology-conf $TOPO"

# shellcheck disable=SC2086
{
expect_status 0 "policy to stdout" $POL
cp "$TMP/out" "$TMP/stdout.policy"
check "the first line is the format line" [ "$(head -1 "$TMP/stdout.policy")" = "lagom-policy 1" ]
check "the last line counts the entries" \
	[ "$(tail -1 "$TMP/stdout.policy")" = "end $(grep -c '^entry ' "$TMP/stdout.policy")" ]
check "every catalog example on 2, 3 and 4 nodes (the largest leaf)" \
	[ "$(grep -c '^entry ' "$TMP/stdout.policy")" -eq 36 ]
check "entries have 9 fields" \
	[ "$(awk '$1 == "entry" && NF != 9' "$TMP/stdout.policy" | wc -l)" -eq 0 ]
check "leaf_nodes is the largest leaf" grep -qx 'leaf_nodes 4' "$TMP/stdout.policy"
check "a non-blocking spine: every entry insensitive" \
	[ "$(grep -c ' insensitive$' "$TMP/stdout.policy")" -eq 36 ]

expect_status 0 "policy --output (atomic write)" $POL --spine-taper 4 --output "$TMP/p1"
check "mode 0644" [ "$(stat -c %a "$TMP/p1")" = 644 ]
check "no temporary file left" [ "$(find "$TMP" -name '.p1.*' | wc -l)" -eq 0 ]
check "a tapered spine makes some entries ask for one switch" grep -q '^entry .* 1 [0-9]* .* pack$' "$TMP/p1"
check "waits never exceed max_wait_s" \
	[ "$(awk '$1 == "entry" && ($5 > 300 || ($4 == 1 && $5 < 1))' "$TMP/p1" | wc -l)" -eq 0 ]
"$LAGOM" $POL --spine-taper 4 --output "$TMP/p2" >/dev/null 2>&1
check "deterministic: two runs give identical files" cmp -s "$TMP/p1" "$TMP/p2"
expect_status 0 "--run-length 600 --max-wait 100" $POL --spine-taper 4 --run-length 600 \
	--max-wait 100 --output "$TMP/p3"
check "... waits are loss x 600 s, capped at 100" \
	[ "$(awk '$1 == "entry" && $4 == 1 { w = int($6 * 600 + 1e-6); if (w > 100) w = 100; if (w < 1) w = 1; if (w != $5) bad++ } END { print bad + 0 }' "$TMP/p3")" -eq 0 ]
expect_status 0 "--format json summary" $POL --spine-taper 4 --output "$TMP/p4" --format json
check "... lists the entries written" \
	jtrue "$TMP/out" 'd["command"] == "policy" and len(d["entries"]) == 36 and d["params"]["leaf_nodes"] == 4'
printf '# site workloads\nllama-3-70b:tp8,fsdp\n\n  %s  # our FSDP layer\n' "$WL" >"$TMP/list"
expect_status 0 "--workloads FILE: catalog names and a workload file" $POL --workloads "$TMP/list" \
	--output "$TMP/p5"
check "... the file's workload has one entry, at its own 2 nodes" \
	[ "$(grep -c "^entry $WL 2 " "$TMP/p5")" -eq 1 ]
check "... --nodes default for catalog names" [ "$(grep -c '^entry llama-3-70b:tp8,fsdp ' "$TMP/p5")" -eq 3 ]

printf 'BlockName=rack1 Nodes=gb[01-18]\nBlockName=rack2 Nodes=gb[19-36]\nBlockSizes=18\n' >"$TMP/block.conf"
expect_status 0 "a topology/block topology.conf (two 18-node racks)" policy --profile "$PROF" \
	--topology-conf "$TMP/block.conf" --workload phi-2:fsdp --nodes 2,16,18,20 --output "$TMP/pb"
check "... topology block, a block is the leaf (18 nodes)" \
	[ "$(grep -c -x -e 'topology block' -e 'leaf_nodes 18' "$TMP/pb")" -eq 2 ]
check "... entries up to 18 nodes, none for 20" \
	[ "$(awk '$1 == "entry" {printf "%s ", $3}' "$TMP/pb")" = "2 16 18 " ]

echo old >"$TMP/keep"
expect_status 1 "an output directory that does not exist" $POL --output "$TMP/nodir/p"
expect_status 2 "no --topology-conf" policy --profile "$PROF"
expect_status 2 "topology.conf that does not exist" policy --profile "$PROF" --topology-conf "$TMP/none"
printf 'SwitchName=leaf1 Nodes=n[1-4] Bogus=1\n' >"$TMP/bad.conf"
expect_status 1 "a malformed topology.conf" policy --profile "$PROF" --topology-conf "$TMP/bad.conf" \
	--output "$TMP/keep"
check "... leaves the old output in place" [ "$(cat "$TMP/keep")" = old ]
expect_status 2 "an unknown workload" $POL --workload no-such-model:fsdp
expect_status 2 "a workload named twice" $POL --workload phi-2:fsdp --workload phi-2:fsdp
expect_status 2 "--nodes 1" $POL --nodes 1,2
expect_status 2 "--spine-taper 0.5" $POL --spine-taper 0.5
expect_status 2 "a 200-character workload name" $POL --workload "$(printf 'x%.0s' $(seq 200))"
printf 'phi-2:fsdp\nbad name with spaces\n' >"$TMP/hostile"
expect_status 2 "a workload list with a name holding spaces" $POL --workloads "$TMP/hostile"
}
# slurm_init() (24.05+) would retry an unreadable SLURM_CONF for 60 s
start=$(date +%s)
SLURM_CONF=$TMP/no-slurm.conf "$LAGOM" place --nodes 2 --workload phi-2:fsdp \
	--profile "$PROF" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "place with an unreadable SLURM_CONF: exit 1 at once, one lagom line" \
	[ "$rc" -eq 1 -a $(($(date +%s) - start)) -lt 10 -a \
	  "$(cat "$TMP/err")" = \
	  "lagom: cannot read SLURM_CONF=$TMP/no-slurm.conf: No such file or directory" ]
plan "$tap_n"
done_testing
