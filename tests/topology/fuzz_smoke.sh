#!/bin/sh
# A bounded libFuzzer run (about 10 s each) of topology/'s string parsers
# from their seed corpora: no crash, no sanitizer report, no broken
# invariant.  Skips with the reason when clang/libFuzzer (or, for the
# topology.conf target, libslurm) is not there.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_setup lagom-topofuzz
s=$top_srcdir

if ! fuzz_build fuzz_nccl_topo "$s/tests/fuzz/fuzz_nccl_topo.c" \
	"$s/topology/nccl_topo.c" "$s/topology/topo_core.c" \
	"$s/topology/xml_lite.c" "$s/common/error.c"; then
	fuzz_broken fuzz_nccl_topo
fi
plan 3
fuzz_run fuzz_nccl_topo 10 "$s/tests/fuzz/corpus/nccl_topo" \
	"$s/tests/fixtures/nccl-topo"

if fuzz_build fuzz_step_strings "$s/tests/fuzz/fuzz_step_strings.c" \
	"$s/placement/tasks.c" "$s/common/error.c"; then
	fuzz_run fuzz_step_strings 10 "$s/tests/fuzz/corpus/step_strings"
else
	not_ok "fuzz_step_strings does not build: $(fuzz_build_error fuzz_step_strings)"
fi

if fuzz_build fuzz_switchtree "$s/tests/fuzz/fuzz_switchtree.c" \
	"$s/placement/switchtree.c" "$s/placement/placement.c" \
	"$s/placement/tasks.c" "$s/common/error.c" -lslurm; then
	fuzz_run fuzz_switchtree 10 "$s/tests/fuzz/corpus/switchtree"
else
	not_ok "fuzz_switchtree does not build: $(fuzz_build_error fuzz_switchtree)"
fi
done_testing
