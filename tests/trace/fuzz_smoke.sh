#!/bin/sh
# A bounded libFuzzer run (about 20 s) of the trace importer from its seed
# corpus (small traces shaped like Kineto's) and the real fixtures: no
# crash, no sanitizer report, no broken promise.  Skips with the reason
# when clang/libFuzzer or the libraries' headers are not there.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_setup lagom-tracefuzz
s=$top_srcdir
if ! fuzz_build fuzz_trace "$s/tests/fuzz/fuzz_trace.c" "$s"/trace/*.c \
	"$s/workload/workload.c" $(ls "$s"/model/*.c "$s"/catalog/*.c 2>/dev/null) \
	"$s"/common/*.c \
	-lyajl -lz -ljansson -lm; then
	plan_skip_all "libFuzzer unavailable: $(fuzz_build_error fuzz_trace)"
fi
plan 1
fuzz_run fuzz_trace 20 "$s/tests/fuzz/corpus/trace"
