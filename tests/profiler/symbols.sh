#!/bin/sh
# libnccl-profiler-lagom.so exports exactly the profiler symbols NCCL
# dlsym()s, needs nothing but libc, and covers what the installed NCCL's own
# binary looks up: its newest (GPU-free: NCCL loads profiler plugins only
# inside communicator creation, which needs a GPU; see doc/profiler.md).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/plugin_symbols.sh"

plugin_symbols profiler "ncclProfiler_v4 ncclProfiler_v5 ncclProfiler_v6" \
	newest -q 0
done_testing
