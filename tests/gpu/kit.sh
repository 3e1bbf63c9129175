#!/bin/sh
# tests/gpu/kit.sh - the GPU check kit on a machine without a GPU: the pack
# bench/gpu_pack.sh makes is self-contained (every library its binaries
# need that the device does not provide is inside), its plan decodes and
# carries the id lagom's encoder would give it, nccl_pair and
# nccl_contention fail cleanly without a driver, bench/gpu_check.sh runs
# through every step, says "no GPU" and leaves its eight result files, and
# its --only-contention path (with stand-ins for nccl_contention and
# nvidia-cuda-mps-control) merges the plain and MPS passes into one CSV
# with the kernel columns and sums them up per kernel; the triad's and the
# hog's PTX assemble for sm_90 (where ptxas is found).
. "$top_srcdir/tests/lib/tap.sh"

command -v python3 >/dev/null 2>&1 || plan_skip_all "python3 not installed (the pack computes the plan id with it)"
command -v ldd >/dev/null 2>&1 || plan_skip_all "no ldd"
[ -x "$top_builddir/lagom" ] || plan_skip_all "lagom not built"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	plan_skip_all "this machine has a GPU: the kit is for bench/gpu_check.sh by hand; this test checks the no-GPU path"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-kit.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
pack=$TMP/pack
cuda=${CUDA_HOME:-/usr/local/cuda}
have_cuda=no
[ -f "$cuda/include/nccl.h" ] && [ -f "$cuda/include/cuda_runtime_api.h" ] && have_cuda=yes

plan 23

top_builddir=$top_builddir sh "$top_srcdir/bench/gpu_pack.sh" "$pack" >"$TMP/pack.log" 2>&1
check "gpu_pack.sh makes the pack" [ $? -eq 0 ]
check "the pack has the programs, the plugins, the plan and the check script" \
	test -x "$pack/bin/lagom" -a -x "$pack/bin/lagom-prolog" \
	-a -f "$pack/lib/libnccl-profiler-lagom.so" -a -f "$pack/lib/libnccl-tuner-lagom.so" \
	-a -s "$pack/pair.plan" -a -f "$pack/gpu_check.sh" -a -x "$pack/glibc/ld-linux-x86-64.so.2"
kib=$(du -sk "$pack" | awk '{ print $1 }')
check_that "the pack is under 40 MiB ($kib KiB)" '[ "$kib" -lt 40960 ]'

# Self-contained: what a binary needs resolves inside the pack, or is what
# the device provides (glibc, the C++ runtime, CUDA, NCCL).
provided='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libcudart|libnccl|libcublas|libcublasLt)[.-]'
for f in "$pack"/bin/* "$pack"/lib/*.so*; do
	LD_LIBRARY_PATH=$pack/lib ldd "$f" | awk '$2 == "=>" { print $1, $3 }' |
		grep -Ev "$provided" | grep -v " $pack/lib/"
done >"$TMP/outside"
tap_on_fail="cat $TMP/outside"
check_that "every other library resolves inside the pack" '[ ! -s "$TMP/outside" ]'
tap_on_fail=

# The plan: accepted by the tuner's decoder, its id the encoder's.
plan_tool=$top_builddir/tests/tuner/plan_tool
if [ -x "$plan_tool" ]; then
	check_that "the pair's plan decodes" '[ "$("$plan_tool" "$pack/pair.plan")" = ok ]'
else
	skip "tests/tuner/plan_tool not built"
fi
"$top_builddir/lagom" profile synth --gpu H200 --gpus-per-node 1 --nic 1x100 \
	--transport tcp --node n0 -o "$TMP/h200.json" >/dev/null 2>&1
"$top_builddir/lagom" plan --profile "$TMP/h200.json" --nodes 2 --gpus-per-node 1 \
	--workload gpt2-xl:dp | sed -n 's/^LAGOM_PLAN: //p' >"$TMP/real.plan"
want=$(awk '{ print $4; exit }' "$TMP/real.plan")
got=$(sed 's/^[^;]*;//' "$TMP/real.plan" | tr -d '\n' | sh "$top_srcdir/bench/gpu_pack.sh" --plan-id)
check_that "--plan-id gives lagom's own id for a real plan ($want)" '[ -n "$want" ] && [ "$got" = "$want" ]'
body_id=$(sed 's/^[^;]*;//' "$pack/pair.plan" | tr -d '\n' | sh "$top_srcdir/bench/gpu_pack.sh" --plan-id)
check_that "the pair's plan carries its id, this lagom's version and the pair's shape" \
	'grep -q "^lagom-plan 1 $("$top_builddir/lagom" --version | cut -d" " -f2) $body_id job=0 ranks=2 nodes=2;" "$pack/pair.plan"'

# nccl_pair without a driver.
if [ "$have_cuda" = yes ] && [ -x "$pack/bin/nccl_pair" ]; then
	LD_LIBRARY_PATH=$cuda/lib64:$cuda/lib "$pack/bin/nccl_pair" 0 2 "$TMP/id" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	check_that "nccl_pair without a GPU: exit 1, one nccl_pair: line" \
		'[ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q "^nccl_pair: rank 0: " "$TMP/e" && [ ! -e "$TMP/id" ]'
	"$pack/bin/nccl_pair" 2 2 "$TMP/id" 2>"$TMP/e"
	rc=$?
	check_that "nccl_pair with a rank out of range: usage, exit 2" '[ "$rc" -eq 2 ] && grep -q "^usage: " "$TMP/e"'
else
	skip "no CUDA headers under $cuda: the pack has no nccl_pair"
	skip "no CUDA headers under $cuda: the pack has no nccl_pair"
fi

# nccl_contention without a driver.
if [ "$have_cuda" = yes ] && [ -x "$pack/bin/nccl_contention" ]; then
	mkdir -p "$TMP/cd"
	LD_LIBRARY_PATH=$cuda/lib64:$cuda/lib "$pack/bin/nccl_contention" 0 "$TMP/cd" "$TMP/c.csv" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	check_that "nccl_contention without a GPU: exit 1, one nccl_contention: line, no id, no CSV" \
		'[ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q "^nccl_contention: rank 0: " "$TMP/e" && [ -z "$(ls "$TMP/cd")" ] && [ ! -e "$TMP/c.csv" ]'
	LD_LIBRARY_PATH=$cuda/lib64:$cuda/lib "$pack/bin/nccl_contention" 1 "$TMP/cd" - 4 65 2>"$TMP/e"
	rc=$?
	check_that "nccl_contention with k 65: usage, exit 2" '[ "$rc" -eq 2 ] && grep -q "^usage: .*K from 1 to 64" "$TMP/e"'
	# The kernels the driver compiles at load time, assembled here.
	ptxas=$(command -v ptxas 2>/dev/null || echo "$cuda/bin/ptxas")
	if [ -x "$ptxas" ]; then
		: >"$TMP/ptxas.log"
		for kern in triad hog; do
			"$pack/bin/nccl_contention" --ptx $kern >"$TMP/$kern.ptx" &&
				"$ptxas" -arch=sm_90 -v -o "$TMP/$kern.cubin" "$TMP/$kern.ptx" >>"$TMP/ptxas.log" 2>&1 ||
				echo "$kern: failed" >>"$TMP/ptxas.log"
		done
		tap_on_fail="cat $TMP/ptxas.log"
		check_that "nccl_contention --ptx: the triad and the hog assemble for sm_90 (ptxas), no stack, no spills" \
			'! grep -q failed "$TMP/ptxas.log" && [ "$(grep -c "Compiling entry function .lagom_\(triad\|hog\). for .sm_90." "$TMP/ptxas.log")" -eq 2 ] && [ "$(grep -c "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" "$TMP/ptxas.log")" -eq 2 ]'
		tap_on_fail=
	else
		skip "no ptxas (PATH, $cuda/bin): the kernels' PTX is not assembled here"
	fi
else
	skip "no CUDA or cuBLAS headers under $cuda: the pack has no nccl_contention"
	skip "no CUDA or cuBLAS headers under $cuda: the pack has no nccl_contention"
	skip "no CUDA or cuBLAS headers under $cuda: the pack has no nccl_contention"
fi

# The device script, here.
OUT=$TMP/out sh "$pack/gpu_check.sh" >"$TMP/check.log" 2>&1
check "gpu_check.sh runs to the end (exit 0)" [ $? -eq 0 ]
tap_on_fail="cat $TMP/check.log"
check_that "eight result files, no folders" \
	'[ "$(cd "$TMP/out" && echo *)" = "contention_nccl.csv nccl_pair.log profile.json profile_long.json prolog.log records.tar.gz runs.json summary.txt" ] && [ -z "$(find "$TMP/out" -mindepth 1 -type d)" ]'
check_that "the summary says there is no GPU and that the pair and step 6 failed" \
	'grep -q "^no GPU: " "$TMP/out/summary.txt" && grep -q "^== done: pair no, contention no;" "$TMP/out/summary.txt"'
check_that "both lagom-prolog runs printed a profile the plugin's reader accepts" \
	'"$top_builddir/lagom" profile check --no-trust "$TMP/out/profile.json" "$TMP/out/profile_long.json" >/dev/null'
check_that "runs.json is lagom runs' JSON" \
	'python3 -c "import json,sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d[\"command\"] == \"runs\" else 1)" "$TMP/out/runs.json"'

# Step 6 alone.
OUT=$TMP/only sh "$pack/gpu_check.sh" --only-contention >"$TMP/only.log" 2>&1
rc=$?
tap_on_fail="cat $TMP/only.log"
check_that "--only-contention: exit 0, steps 1, 2 and 6 only, three files" \
	'[ "$rc" -eq 0 ] && [ "$(cd "$TMP/only" && echo *)" = "contention_nccl.csv nccl_pair.log summary.txt" ] && [ "$(grep -c "^== [0-9]" "$TMP/only/summary.txt")" -eq 3 ] && grep -q "^== 6\. " "$TMP/only/summary.txt" && grep -q "^== done: contention no;" "$TMP/only/summary.txt"'
OUT=$TMP/bad sh "$pack/gpu_check.sh" --everything >/dev/null 2>"$TMP/e"
rc=$?
check_that "an unknown option: usage, exit 2, no results" '[ "$rc" -eq 2 ] && grep -q "^usage: " "$TMP/e" && [ ! -e "$TMP/bad" ]'

# Stand-ins: a nccl_contention whose rank 0 writes two rows and says which
# MPS pipe and tuner it saw (with STANDIN_KERNELS set, four rows in
# nccl_contention's own columns: two k, two kernels, the hog left out at
# k 2), an
# nvidia-cuda-mps-control that logs what it is told.
cp -R "$pack" "$TMP/fake"
cat >"$TMP/fake/bin/nccl_contention" <<'EOF'
#!/bin/sh
[ "$1" = 0 ] || exit 0
if [ -n "${STANDIN_KERNELS:-}" ]; then
	x=1.0; [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && x=1.5
	{
	echo k,nccl_channels,algo,proto,alone_ms,idle_ms,idle_slowdown,moving_ms,moving_slowdown,after_ms,allreduce_calls,allreduce_GBps,held,covered,kernel,unit,work,alone_rate,idle_rate,moving_rate,blocks,hog_ms,hog_slowdown,hog_GBps,hog_alone_GBps,hog_covered
	echo "1,1,RING,SIMPLE,0.1720,0.1806,1.0500,0.1720,$x,0.1720,3,3.0000,1,1,gemm_bf16_8192x1024x8192,TFLOP/s,137438953472,799.06,761.01,799.06,0,0.1900,1.1047,640.00,700.00,1"
	echo "1,1,RING,SIMPLE,0.8000,0.8080,1.0100,0.8000,$x,0.8000,3,3.0000,1,1,triad_f32_3x1GiB,GB/s,3221225472,4026.53,3986.67,4026.53,65536,0.9600,1.2000,640.00,700.00,1"
	echo "2,2,RING,SIMPLE,0.1720,0.1892,1.1000,0.1720,$x,0.1720,3,3.0000,1,1,gemm_bf16_8192x1024x8192,TFLOP/s,137438953472,799.06,726.42,799.06,0,,,,,"
	echo "2,2,RING,SIMPLE,0.8000,0.8160,1.0200,0.8000,$x,0.8000,3,3.0000,1,1,triad_f32_3x1GiB,GB/s,3221225472,4026.53,3947.57,4026.53,65536,,,,,"
	} >"$3"
else
	printf 'k,nccl_channels\n1,1\n2,2\n' >"$3"
fi
echo "stand-in rank 0, pipe ${CUDA_MPS_PIPE_DIRECTORY:-none}, tuner ${NCCL_TUNER_PLUGIN:-none}"
EOF
mkdir -p "$TMP/path"
cat >"$TMP/path/nvidia-cuda-mps-control" <<EOF
#!/bin/sh
if [ "\$1" = -d ]; then echo "-d \$CUDA_MPS_PIPE_DIRECTORY" >>"$TMP/mps.log"; exit 0; fi
read -r what && echo "\$what" >>"$TMP/mps.log"
EOF
chmod +x "$TMP/fake/bin/nccl_contention" "$TMP/path/nvidia-cuda-mps-control"
PATH=$TMP/path:$PATH LAGOM_CONTENTION_MPS=1 NCCL_TUNER_PLUGIN=x OUT=$TMP/fo \
	sh "$TMP/fake/gpu_check.sh" --only-contention >"$TMP/fo.log" 2>&1
tap_on_fail="cat $TMP/fo.log $TMP/mps.log"
rows=$(tr '\n' ' ' <"$TMP/fo/contention_nccl.csv")
check_that "both passes in one CSV, the mode first, the header once" \
	'[ "$rows" = "mode,k,nccl_channels plain,1,1 plain,2,2 mps,1,1 mps,2,2 " ] && grep -q "^contention_nccl.csv: 4 row" "$TMP/fo/summary.txt" && grep -q "^== done: contention yes;" "$TMP/fo/summary.txt"'
told=$(sed 's|/.*/|/|' "$TMP/mps.log" | tr '\n' ' ')
check_that "the MPS pass ran under a private daemon, told to quit after; no lagom plugin loaded" \
	'grep -q "^stand-in rank 0, pipe none, tuner none" "$TMP/fo/summary.txt" && grep -q "^stand-in rank 0, pipe /.*/mps, tuner none" "$TMP/fo/summary.txt" && [ "$told" = "-d /mps quit " ]'
# The kernel columns: kept through the merge, summed up per kernel.
: >"$TMP/mps.log"
PATH=$TMP/path:$PATH LAGOM_CONTENTION_MPS=1 STANDIN_KERNELS=1 OUT=$TMP/fk \
	sh "$TMP/fake/gpu_check.sh" --only-contention >"$TMP/fk.log" 2>&1
tap_on_fail="cat $TMP/fk.log"
check_that "kernel rows: 8 in one CSV, 27 columns each, plain then MPS, the kernel in column 16" \
	'[ "$(awk -F, "NF != 27 { bad = 1 } END { print NR, bad + 0 }" "$TMP/fk/contention_nccl.csv")" = "9 0" ] && [ "$(awk -F, "NR > 1 { printf \"%s:%s:%s \", \$1, \$2, \$16 }" "$TMP/fk/contention_nccl.csv")" = "plain:1:gemm_bf16_8192x1024x8192 plain:1:triad_f32_3x1GiB plain:2:gemm_bf16_8192x1024x8192 plain:2:triad_f32_3x1GiB mps:1:gemm_bf16_8192x1024x8192 mps:1:triad_f32_3x1GiB mps:2:gemm_bf16_8192x1024x8192 mps:2:triad_f32_3x1GiB " ]'
check_that "the summary sums up each kernel and mode: slowdowns over k, rates in their unit" \
	'grep -q "^triad_f32_3x1GiB plain: k 1 2$" "$TMP/fk/summary.txt" && grep -q "^   idle_x   1.0100 1.0200$" "$TMP/fk/summary.txt" && grep -A 3 "^triad_f32_3x1GiB mps: k 1 2$" "$TMP/fk/summary.txt" | grep -q "^   move_x   1.5 1.5$" && grep -q "^   GB/s alone/idle/moving  4026.53/3986.67/4026.53 4026.53/3947.57/4026.53$" "$TMP/fk/summary.txt" && grep -q "^   hog_x   1.2000@700.00 - (slowdown@hog GB/s alone)$" "$TMP/fk/summary.txt"'
tap_on_fail=
done_testing
