#!/bin/sh
# tests/cli/cli-basic.sh - every `lagom` subcommand on the shared fixtures
# and the catalog, asserting on its JSON output (doc/cli-json.md).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 47

O=$TMP/o.json
E=$TMP/e.txt

# --- workloads -----------------------------------------------------------
run_lagom "$O" "$E" workloads --format json
check "workloads: exit 0" [ "$rc" -eq 0 ]
check "workloads: schema and command" \
	jtrue "$O" 'd["schema"] == 1 and d["command"] == "workloads"'
check "workloads: catalog has models with a shape" \
	jtrue "$O" 'len(d["models"]) >= 3 and all(m["layers"] > 0 and m["hidden"] > 0 for m in d["models"])'
check "workloads: llama-3.1-8b is about 8 B parameters" \
	jtrue "$O" '[abs(m["params_billion"] - 8.0) < 0.5 for m in d["models"] if m["name"] == "llama-3.1-8b"] == [True]'
check "workloads: examples given" jtrue "$O" 'len(d["examples"]) >= 3'
run_lagom "$TMP/t" "$E" workloads
check "workloads: text table names every model" \
	sh -c "grep -q '^phi-2 ' '$TMP/t' && grep -q 'Examples:' '$TMP/t'"

# --- profile synth / check ----------------------------------------------
P=$TMP/n001.json
run_lagom "$TMP/t" "$E" profile synth --gpu H100-SXM --gpus-per-node 8 \
	--nic 4x400 --node n001 -o "$P"
check "profile synth: exit 0" [ "$rc" -eq 0 ]
check "profile synth: a profile file for node n001" \
	jtrue "$P" 'd["node"]["name"] == "n001" and d["hardware"]["gpu_count"] == 8 and d["hardware"]["intra"] == "nvswitch" and d["hardware"]["nic_count"] == 4'
run_lagom "$O" "$E" profile synth --gpu a40 --gpus-per-node 4 --nic none \
	--node pcie01 --format json -o "$TMP"
check "profile synth -o DIR: writes DIR/NODE.json" [ -f "$TMP/pcie01.json" ]
check "profile synth: vendor-style name, PCIe fabric from the table" \
	jtrue "$O" 'd["profile"]["hardware"]["gpu_model"] == "A40" and d["profile"]["hardware"]["intra"] == "pcie"'
run_lagom "$O" "$E" profile synth --list --format json
check "profile synth --list: the GPU table" \
	jtrue "$O" 'any(g["name"] == "H100-SXM" and g["sm_count"] == 132 for g in d["gpus"])'

run_lagom "$O" "$E" profile check --no-trust --format json "$P" \
	"$TMP/pcie01.json"
check "profile check: synthesized profiles are valid" \
	jtrue "$O" 'd["valid"] and len(d["files"]) == 2 and all(f["valid"] for f in d["files"])'
check "profile check: exit 0" [ "$rc" -eq 0 ]
sed 's/"gpu_count": 8/"gpu_count": 7/' "$P" >"$TMP/tampered.json"
run_lagom "$O" "$E" profile check --no-trust --format json "$TMP/tampered.json"
check "profile check: tampered hardware fails the fingerprint (exit 1)" \
	[ "$rc" -eq 1 ]
check "profile check: the error is in the JSON" \
	jtrue "$O" 'not d["valid"] and "fingerprint" in d["files"][0]["error"]'
mkdir "$TMP/open" && cp "$P" "$TMP/open/" && chmod 0777 "$TMP/open"
run_lagom "$O" "$E" profile check "$TMP/open/n001.json"
check "profile check: trust rules refuse a world-writable directory" \
	[ "$rc" -eq 1 ]
check "profile check: ... and say why" grep -q "writable\|owned" "$E"
run_lagom "$O" "$E" profile check --no-trust "$TMP/open/n001.json"
check "profile check --no-trust: relaxes the trust rules" [ "$rc" -eq 0 ]

# --- topo ------------------------------------------------------------------
run_lagom "$O" "$E" topo --xml "$FIX/hwloc/nvidiaDGX2.xml" --format json
check "topo --xml: DGX-2 has 16 V100 GPUs on NVSwitch" \
	jtrue "$O" 'd["source"] == "hwloc-xml" and len(d["gpus"]) == 16 and d["has_nvlink"] and all("V100" in g["model"] for g in d["gpus"])'
run_lagom "$O" "$E" topo --nccl-topo "$FIX/nccl-topo/aws-p4d-24xl-topo.xml" \
	--format json
check "topo --nccl-topo: p4d has 8 GPUs and 4 NICs" \
	jtrue "$O" 'd["source"] == "nccl-topo" and len(d["gpus"]) == 8 and len(d["nics"]) == 4'
check "topo --nccl-topo: every GPU has a close NIC" \
	jtrue "$O" 'all(len(g["nics"]) >= 1 for g in d["gpus"])'
run_lagom "$TMP/t" "$E" topo --nccl-topo "$FIX/nccl-topo/aws-p5.48xl-topo.xml"
check "topo: text output lists GPUs and NICs" \
	sh -c "[ $rc -eq 0 ] && grep -q '^GPUs:' '$TMP/t' && grep -q '^NICs:' '$TMP/t'"

# --- predict ---------------------------------------------------------------
run_lagom "$O" "$E" predict --profile "$P" --nodes 2 --collective allreduce \
	--bytes 64MiB --format json
check "predict: exit 0" [ "$rc" -eq 0 ]
check "predict: time and bus bandwidth" \
	jtrue "$O" 'd["prediction"]["time_us"] > 0 and d["prediction"]["busbw_GBps"] > 0 and d["call"]["bytes"] == 64 << 20'
check "predict: without knobs it is NCCL's default choice" \
	jtrue "$O" 'd["prediction"] == d["nccl_default"]'
check "predict: busbw = bytes x 2(n-1)/n / time" \
	jtrue "$O" 'abs(d["prediction"]["busbw_GBps"] - (64 << 20) * 2 * 15 / 16 / (d["prediction"]["time_us"] * 1e3)) < 1e-3 * d["prediction"]["busbw_GBps"]'
run_lagom "$O" "$E" predict --profile "$P" --nodes 2 --collective allgather \
	--bytes 64MiB --algo ring --proto simple --channels 2 --format json
check "predict: knobs are applied" \
	jtrue "$O" 'd["prediction"]["channels"] == 2 and d["prediction"]["algo"] == "ring" and d["prediction"]["proto"] == "simple"'
check "predict: 2 channels are slower than NCCL's default for 64 MiB" \
	jtrue "$O" 'd["prediction"]["time_us"] > d["nccl_default"]["time_us"]'
run_lagom "$O" "$E" predict --gpu A40 --gpus-per-node 8 --nodes 1 \
	--collective reducescatter --bytes 1G --format json
check "predict --gpu: from the built-in table" \
	jtrue "$O" 'd["call"]["gpu"] == "A40" and d["call"]["hops"] == "node" and d["prediction"]["time_us"] > 0'

# --- plan ------------------------------------------------------------------
run_lagom "$O" "$E" plan --profile "$P" --nodes 2 --workload phi-2:fsdp \
	--job-id 77 --format json
check "plan: exit 0" [ "$rc" -eq 0 ]
check "plan: id, text and environment agree" \
	jtrue "$O" 'len(d["plan_id"]) == 16 and d["plan_text"].startswith("lagom-plan 1 ") and " " + d["plan_id"] + " job=77 " in d["plan_text"] and {e["name"]: e["value"] for e in d["env"]}["LAGOM_PLAN_ID"] == d["plan_id"]'
# A plan that tunes (phi-2:fsdp keeps NCCL's defaults here since the
# deviation gates, doc/search.md: its gain is inside the model's error).
run_lagom "$TMP/tuned.json" "$E" plan --profile "$P" --nodes 2 \
	--workload deepseek-moe-16b:ep8,mb2 --job-id 77 --format json
check "plan: LAGOM_PLAN carries the plan text for the tuner" \
	jtrue "$TMP/tuned.json" '{e["name"]: e["value"] for e in d["env"]}["LAGOM_PLAN"] == d["plan_text"]'
check "plan: the env record states the NCCL variables set (doc/plan-format.md)" \
	jtrue "$TMP/tuned.json" '(lambda v, r: r == "env tuner=1 ctas=%s-%s buffsize=%s nthreads=%s algo=%s proto=%s" % (v.get("NCCL_MIN_CTAS", "0"), v.get("NCCL_MAX_CTAS", "0"), v.get("NCCL_BUFFSIZE", "0"), v.get("NCCL_NTHREADS", "0"), v.get("NCCL_ALGO", "any"), v.get("NCCL_PROTO", "any")))({e["name"]: e["value"] for e in d["env"]}, d["plan_text"].split(";")[1])'
check "plan: per-collective choices for the FSDP collectives" \
	jtrue "$O" 'set(c["op"] for c in d["collectives"]) >= {"allgather", "reducescatter"} and all(1 <= c["channels"] <= 64 for c in d["collectives"])'
check "plan: predicted iteration against NCCL and the comm-only tuner" \
	jtrue "$O" 'd["predicted"]["iteration_ms"] > 0 and d["predicted"]["nccl_default_ms"] > 0 and d["predicted"]["comm_only_ms"] > 0'
check "plan: speedup is nccl / lagom" \
	jtrue "$O" 'abs(d["predicted"]["speedup_vs_nccl"] - d["predicted"]["nccl_default_ms"] / d["predicted"]["iteration_ms"]) < 1e-6'
check "plan: the search trajectory is shown" \
	jtrue "$O" 'd["search"]["evals"] > 0 and len(d["search"]["steps"]) > 0 and d["search"]["steps"][0]["kind"] in ("min", "max")'
cp "$O" "$TMP/plan1.json"
run_lagom "$O" "$E" plan --profile "$P" --nodes 2 --workload phi-2:fsdp \
	--job-id 77 --format json
check "plan: the same inputs give byte-identical output" \
	cmp -s "$O" "$TMP/plan1.json"

mkdir "$TMP/dir"
for n in b001 a001; do
	"$LAGOM" profile synth --gpu H100-SXM --gpus-per-node 8 --nic 4x400 \
		--node $n -o "$TMP/dir" >/dev/null
done
run_lagom "$O" "$E" plan --profile "$TMP/dir" --nodes 2 --no-trust \
	--workload phi-2:fsdp --job-id 77 --format json
check "plan: the hardware planned for" \
	jtrue "$O" 'd["hardware"]["gpu"] == "H100-SXM" and d["hardware"]["sm_count"] == 132 and d["hardware"]["nic_count"] == 4'
check "plan --profile DIR: the nodes' profiles give the same plan" \
	[ "$(jget "$O" 'd["plan_id"]')" = "$(jget "$TMP/plan1.json" 'd["plan_id"]')" ]
run_lagom "$TMP/o2.json" "$E" plan --profile "$TMP/dir" --nodelist b001,a001 \
	--no-trust --workload phi-2:fsdp --job-id 77 --format json
check "plan --nodelist: node order does not change the plan" \
	cmp -s "$O" "$TMP/o2.json"
run_lagom "$TMP/o3.json" "$E" plan --profile "$TMP/dir" \
	--nodelist 'a[001],b[001]' --no-trust --workload phi-2:fsdp --job-id 77 \
	--format json
check "plan --nodelist: a Slurm hostlist expands to the same step" \
	cmp -s "$O" "$TMP/o3.json"
run_lagom "$O" "$E" plan --profile "$P" --nodes 2 --format json
check "plan without a workload: the catalog's worst case" \
	jtrue "$O" 'd["workload"] == "catalog-worst-case" and len(d["plan_id"]) == 16'
run_lagom "$TMP/t" "$E" plan --profile "$P" --nodes 2 --workload \
	llama-3.1-8b:tp8,mb4
check "plan: text explains the prediction and the environment" \
	sh -c "[ $rc -eq 0 ] && grep -q '^predicted iteration:' '$TMP/t' && grep -q '^environment:' '$TMP/t' && grep -q '^LAGOM_PLAN: lagom-plan 1 ' '$TMP/t'"

cat >"$TMP/wl.json" <<'JSON'
{
  "lagom_workload": 1,
  "name": "two-layer fsdp",
  "regions": [
    { "name": "layer", "repeat": 2,
      "kernels": [ { "time_s": 0.004, "mem_bound": 0.3 } ],
      "collectives": [ { "op": "allgather", "bytes": 67108864,
                         "ranks": 16, "nodes": 2 } ] }
  ]
}
JSON
run_lagom "$O" "$E" plan --profile "$P" --nodes 2 --workload "$TMP/wl.json" \
	--format json
check "plan --workload FILE: the file's workload is planned" \
	jtrue "$O" 'd["workload"] == "two-layer fsdp" and [c["op"] for c in d["collectives"]] == ["allgather"] and d["collectives"][0]["bytes"] == 67108864'

printf 'SwitchName=l1 Nodes=a001\nSwitchName=l2 Nodes=b001\nSwitchName=s Switches=l[1-2]\n' \
	>"$TMP/topology.conf"
run_lagom "$O" "$E" plan --profile "$TMP/dir" --nodes 2 --no-trust \
	--workload phi-2:fsdp --job-id 77 --topology-conf "$TMP/topology.conf" \
	--format json
check "plan --topology-conf: crossing the spine is predicted slower" \
	jtrue "$O" "d['predicted']['nccl_default_ms'] > $(jget "$TMP/plan1.json" 'd["predicted"]["nccl_default_ms"]')"

# --- help ------------------------------------------------------------------
fails=
for sub in workloads predict plan "profile synth" "profile check" topo; do
	# shellcheck disable=SC2086
	"$LAGOM" $sub --help >"$TMP/h" 2>&1 && grep -q '^Usage: lagom' "$TMP/h" ||
		fails="$fails $sub"
done
check "--help on every subcommand${fails:+ (failed:$fails)}" [ -z "$fails" ]

done_testing
