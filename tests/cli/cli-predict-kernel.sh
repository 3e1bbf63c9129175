#!/bin/sh
# tests/cli/cli-predict-kernel.sh - `lagom predict` with one kernel beside
# the collective: its predicted time and slowdown agree with the model's
# published overlap case (H100 132-block GEMM beside 24 channels about 2x,
# doc/model.md 7), rise with the memory-bound share, include the HBM
# traffic of the collective beside (the timeline's rate term, doc/model.md
# 4: x recomputed here from the bytes NCCL moves), and bad kernel options
# fail with one line.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 13

O=$TMP/o.json
E=$TMP/e.txt
H100="--gpu H100-SXM --gpus-per-node 8 --nodes 1 --collective allreduce --bytes 256M"

# shellcheck disable=SC2086
run_lagom "$O" "$E" predict $H100 --algo ring --proto simple --channels 24 \
	--chunk 2M --kernel-time 1000 --grid 132 --blocks-per-sm 1 \
	--mem-bound 0.2 --format json
check "predict --kernel-time: exit 0" [ "$rc" -eq 0 ]
check "predict: kernel echoed (1000 us alone, 132 blocks, m 0.2)" \
	jtrue "$O" 'd["kernel"]["time_alone_us"] == 1000 and d["kernel"]["grid_blocks"] == 132 and abs(d["kernel"]["mem_bound"] - 0.2) < 1e-9'
check "predict: 132-block GEMM beside 24 channels, 2 MiB chunks: 1.8-2.4x" \
	jtrue "$O" '[1.8 <= k["slowdown"] <= 2.4 and abs(k["time_us"] - 1000 * k["slowdown"]) < 1e-6 * k["time_us"] and k["chunk_bytes"] == 2097152 for k in [d["kernel"]["beside_prediction"]]] == [True]'
# shellcheck disable=SC2086
run_lagom "$TMP/lo.json" "$E" predict $H100 --channels 8 --kernel-time 1000 \
	--mem-bound 0 --format json
# shellcheck disable=SC2086
run_lagom "$TMP/hi.json" "$E" predict $H100 --channels 8 --kernel-time 1000 \
	--mem-bound 1 --format json
check "predict: slowdown >= 1 and rises with the memory-bound share" \
	python3 -c 'import json,sys
lo = json.load(open(sys.argv[1]))["kernel"]["beside_prediction"]["slowdown"]
hi = json.load(open(sys.argv[2]))["kernel"]["beside_prediction"]["slowdown"]
sys.exit(0 if 1.0 <= lo < hi else 1)' "$TMP/lo.json" "$TMP/hi.json"
# shellcheck disable=SC2086
run_lagom "$TMP/t" "$E" predict $H100 --channels 24 --kernel-time 500 --grid 264
check "predict text: the kernel lines" \
	sh -c "grep -q '^kernel: 500.0 us alone (264 blocks' '$TMP/t' && grep -q 'beside predicted .*24 channels: .* us, .*x' '$TMP/t'"
# One block, nothing memory-bound: no waves, no L2 term; on an A100 no
# resident constant either (doc/model.md 4); what is left is the
# HBM-traffic term 1 + k * min(x, x_cap), linear in x below the cap.
for b in 64K 256K; do
	# shellcheck disable=SC2086
	run_lagom "$TMP/r$b.json" "$E" predict --gpu A100-SXM --gpus-per-node 8 \
		--nodes 1 --collective allreduce --bytes $b --algo ring \
		--proto simple --channels 8 --kernel-time 1000 --grid 1 \
		--mem-bound 0 --format json
done
check "predict: the kernel's x is the collective's HBM bytes (Simple all-reduce, 8 ranks: 2 x 2S(n-1)/n + S(n-1)/n) over its time, over HBM" \
	python3 -c 'import json,sys
for f, S in ((sys.argv[1], 65536), (sys.argv[2], 262144)):
    d = json.load(open(f))
    k = d["kernel"]["beside_prediction"]
    t = d["prediction"]["time_us"] * 1e-6
    mem = 2 * 2 * S * 7 / 8 + S * 7 / 8
    if abs(k["mem_GBps"] * 1e9 * t - mem) > 1e-6 * mem: sys.exit(1)
    if abs(k["x"] - k["mem_GBps"] / d["kernel"]["hbm_GBps"]) > 1e-9: sys.exit(1)' \
	"$TMP/r64K.json" "$TMP/r256K.json"
check "predict: the traffic slows the kernel, in proportion to x below the cap" \
	python3 -c 'import json,sys
a, b = (json.load(open(f))["kernel"]["beside_prediction"] for f in sys.argv[1:3])
ka, kb = (a["slowdown"] - 1) / a["x"], (b["slowdown"] - 1) / b["x"]
sys.exit(0 if a["x"] < b["x"] and a["slowdown"] > 1 and abs(ka - kb) < 1e-6 * ka else 1)' \
	"$TMP/r64K.json" "$TMP/r256K.json"
# shellcheck disable=SC2086
run_lagom "$TMP/t" "$E" predict $H100 --channels 24 --kernel-time 500 --grid 264
check "predict text: the collective's HBM traffic and x beside the kernel" \
	grep -q 'beside predicted .*24 channels: .* us, .*x (its HBM traffic .* GB/s, x 0\.[0-9]*)' "$TMP/t"
check "predict: the NCCL-default configuration's traffic too" \
	jtrue "$O" 'd["kernel"]["beside_nccl_default"]["x"] > 0 and d["kernel"]["beside_nccl_default"]["mem_GBps"] > 0'
# shellcheck disable=SC2086
expect_status 2 "predict: --grid without --kernel-time" predict $H100 --grid 132
# shellcheck disable=SC2086
expect_status 2 "predict: --mem-bound above 1" predict $H100 --kernel-time 10 --mem-bound 1.5
# shellcheck disable=SC2086
expect_status 2 "predict: --kernel-time not a number" predict $H100 --kernel-time 'nan'
# shellcheck disable=SC2086
expect_status 2 "predict: --kernel-time with shell text" predict $H100 --kernel-time '1;rm -rf /'
done_testing
