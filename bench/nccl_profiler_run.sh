#!/bin/sh
# bench/nccl_profiler_run.sh - a real NCCL run with lagom's profiler plugin,
# for a machine with GPUs (not part of `make check`; not yet run itself: the
# plugin's one run in a real NCCL so far is bench/gpu_check.sh's, on one H200
# with NCCL 2.28.9, two processes on one GPU, doc/gpu-check.md; this script
# is for a node with several GPUs and nccl-tests).  It runs all_reduce_perf on
# the local GPUs with libnccl-profiler-lagom.so loaded, shows NCCL's own
# NCCL_DEBUG=INFO lines proving the plugin loaded, then puts the plugin's
# measured GPU time per size (`lagom runs`) beside nccl-tests' own time.
#
#   NCCL_TESTS=/path/to/nccl-tests/build sh bench/nccl_profiler_run.sh [NGPUS]
#
# Needs: nccl-tests built against the NCCL to test (2.27+), a built tree
# (top_builddir, default .).
set -eu
top=${top_builddir:-.}
ngpus=${1:-$(nvidia-smi -L 2>/dev/null | wc -l)}
perf=${NCCL_TESTS:?set NCCL_TESTS to nccl-tests build dir}/all_reduce_perf
so=$(cd "$top" && pwd)/.libs/libnccl-profiler-lagom.so
[ -x "$perf" ] || { echo "no $perf" >&2; exit 1; }
[ -f "$so" ] || { echo "no $so (build first)" >&2; exit 1; }
[ "$ngpus" -ge 1 ] || { echo "no GPU" >&2; exit 1; }
spool=$(mktemp -d /tmp/lagom-nccl-run.XXXXXX)
chmod 700 "$spool"

echo "== all_reduce_perf, $ngpus GPU(s), plugin $so"
NCCL_PROFILER_PLUGIN=$so LAGOM_MEASURE_DIR=$spool LAGOM_MEASURE_FLUSH_S=5 \
	NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV \
	"$perf" -b 1M -e 256M -f 4 -g "$ngpus" -n 50 -w 10 >"$spool/perf.log" 2>&1
echo "== NCCL's own lines about the profiler plugin"
grep -E 'PROFILER/Plugin|profiler plugin|lagom profiler' "$spool/perf.log" | sort -u | head -n 10
echo "== nccl-tests' own times (out-of-place, us)"
grep -E '^ +[0-9]+ ' "$spool/perf.log" | awk '{print $1, $6}'
echo "== lagom's measured GPU time per call (us), from the kernel-channel timestamps"
"$top/lagom" runs --user "$(id -un)" "$spool"
echo "records and NCCL's log kept in $spool"
