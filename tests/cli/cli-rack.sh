#!/bin/sh
# tests/cli/cli-rack.sh - a multi-node NVLink domain (GB200 NVL72) described
# by `lagom profile synth` and read back by `lagom predict`: the profile
# carries nic_transport and nvl_domain_nodes (doc/profile-format.md); one
# rack of 18 trays is priced as one NVSwitch domain (busbw above what its
# NICs could carry), two racks cross the network; bad values are refused.
# `lagom plan --topology-conf` reads a topology/block file: 36 trays in
# two full racks plan faster than the same 36 spread over four racks.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 13

D=$TMP/profiles
mkdir -m 0755 "$D"
run_lagom "$TMP/r" "$TMP/e" profile synth --gpu GB200 --gpus-per-node 4 \
	--nic 4x400 --transport ib --nvl-domain 18 --node gb001 -o "$D"
check "synth GB200 rack: exit 0" [ "$rc" -eq 0 ]
check "synth: nic_transport ib, nvl_domain_nodes 18" \
	jtrue "$D/gb001.json" 'd["hardware"]["nic_transport"] == "ib" and d["hardware"]["nvl_domain_nodes"] == 18 and d["hardware"]["gpu_model"] == "GB200"'
run_lagom "$TMP/p18" "$TMP/e" predict --profile "$D/gb001.json" --nodes 18 \
	--collective allreduce --bytes 8G --format json
run_lagom "$TMP/p36" "$TMP/e" predict --profile "$D/gb001.json" --nodes 36 \
	--collective allreduce --bytes 8G --format json
check "one rack (72 GPUs): NVLS inside the domain, busbw above the 200 GB/s of a tray's NICs" \
	jtrue "$TMP/p18" 'd["nccl_default"]["algo"] == "nvls" and d["nccl_default"]["busbw_GBps"] > 400'
check "two racks: slower than one (the network joins them)" \
	python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["nccl_default"]["busbw_GBps"]
b = json.load(open(sys.argv[2]))["nccl_default"]["busbw_GBps"]
sys.exit(0 if b < a else 1)' "$TMP/p18" "$TMP/p36"
expect_status 2 "synth: an NVLink domain needs NVSwitch" profile synth \
	--gpu L40S --gpus-per-node 8 --nvl-domain 18 --node x
expect_status 2 "synth: unknown transport" profile synth --gpu H100 \
	--gpus-per-node 8 --transport 'ib;x' --node x
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
d["hardware"]["nic_transport"] = "ib\u001b[31m"
json.dump(d, open(sys.argv[2], "w"))' "$D/gb001.json" "$D/bad.json"
run_lagom "$TMP/o" "$TMP/e" profile check "$D/bad.json"
check "profile check: an unknown nic_transport is refused" [ "$rc" -ne 0 ]
check "profile check: the control character does not reach the terminal" \
	sh -c "! grep -q \"$(printf '\033')\" '$TMP/e' '$TMP/o'"
T=$TMP/topology.conf
printf '%s\n' '# topology/block: four NVL72 racks' \
	'BlockName=rack1 Nodes=gb[001-018]' 'BlockName=rack2 Nodes=gb[019-036]' \
	'BlockName=rack3 Nodes=gb[037-054]' 'BlockName=rack4 Nodes=gb[055-072]' \
	'BlockSizes=18,36,72' >"$T"
run_lagom "$TMP/two" "$TMP/e" plan --profile "$D/gb001.json" \
	--nodelist 'gb[001-036]' --topology-conf "$T" \
	--workload llama-3-70b:tp4,fsdp --format json
check "plan --topology-conf with BlockName= lines: exit 0" [ "$rc" -eq 0 ]
run_lagom "$TMP/four" "$TMP/e" plan --profile "$D/gb001.json" \
	--nodelist 'gb[055-063,001-009,037-045,019-027]' --topology-conf "$T" \
	--workload llama-3-70b:tp4,fsdp --format json
check "plan: two racks of 18 keep the domain of 18, four racks of 9 are domains of 9" \
	python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["hardware"]["nvl_domain_nodes"]
b = json.load(open(sys.argv[2]))["hardware"]["nvl_domain_nodes"]
sys.exit(0 if (a, b) == (18, 9) else 1)' "$TMP/two" "$TMP/four"
check "plan: 36 trays over four racks are predicted slower than in two" \
	python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["predicted"]["nccl_default_ms"]
b = json.load(open(sys.argv[2]))["predicted"]["nccl_default_ms"]
sys.exit(0 if b > a * 1.01 else 1)' "$TMP/two" "$TMP/four"
run_lagom "$TMP/t" "$TMP/e" plan --profile "$D/gb001.json" \
	--nodelist 'gb[001-009,019-027,037-045,055-063]' --topology-conf "$T" \
	--workload llama-3-70b:tp4,fsdp
check "plan text: the step's NVLink domains" \
	grep -q 'NVLink domains of 9 nodes' "$TMP/t"
printf '%s\n' 'BlockName=rack1 Nodes=gb[001-018]' 'SwitchName=s1 Nodes=gb019' \
	>"$TMP/mixed.conf"
expect_status 1 "plan: BlockName= and SwitchName= mixed" plan \
	--profile "$D/gb001.json" --nodelist 'gb[001-002]' \
	--topology-conf "$TMP/mixed.conf"
done_testing
