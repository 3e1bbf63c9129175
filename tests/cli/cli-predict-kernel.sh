#!/bin/sh
# tests/cli/cli-predict-kernel.sh - `lagom predict` with one kernel beside
# the collective: its predicted time and slowdown agree with the model's
# published overlap case (H100 132-block GEMM beside 24 channels about 2x,
# doc/model.md 7), rise with the memory-bound share, and bad kernel
# options fail with one line.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 9

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
# shellcheck disable=SC2086
expect_status 2 "predict: --grid without --kernel-time" predict $H100 --grid 132
# shellcheck disable=SC2086
expect_status 2 "predict: --mem-bound above 1" predict $H100 --kernel-time 10 --mem-bound 1.5
# shellcheck disable=SC2086
expect_status 2 "predict: --kernel-time not a number" predict $H100 --kernel-time 'nan'
# shellcheck disable=SC2086
expect_status 2 "predict: --kernel-time with shell text" predict $H100 --kernel-time '1;rm -rf /'
done_testing
