#!/bin/sh
# tests/cli/cli-rack.sh - a multi-node NVLink domain (GB200 NVL72) described
# by `lagom profile synth` and read back by `lagom predict`: the profile
# carries nic_transport and nvl_domain_nodes (doc/profile-format.md); one
# rack of 18 trays is priced as one NVSwitch domain (busbw above what its
# NICs could carry), two racks cross the network; bad values are refused.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 8

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
done_testing
