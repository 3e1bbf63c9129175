#!/bin/sh
# A bounded libFuzzer run (about 10 s) of the step plan's decoder, seeded
# with a real plan text: no crash, no sanitizer report, every text that
# decodes re-encodes to the same bytes, and the job comment a node composes
# from it holds only the characters of lagom's own fields.  Skips with the reason when
# clang/libFuzzer is not there.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_setup lagom-carrierfuzz
s=$top_srcdir

if ! fuzz_build fuzz_carrier "$s/tests/fuzz/fuzz_carrier.c" \
	"$s/spank/carrier.c" "$s/spank/carrier_trust.c" \
	"$s/plugstack/plugstack.c" "$s/plugstack/measure.c" \
	"$s/planner/comment_text.c" "$s/search/vars.c" "$s/catalog/catalog.c" \
	"$s/catalog/workload.c" "$s"/model/*.c "$s/common/nccl_names.c" \
	"$s/common/text.c" \
	"$s/common/error.c" "$s/common/hash.c"; then
	fuzz_broken fuzz_carrier
fi
plan 1
fuzz_run fuzz_carrier 10 "$s/tests/fuzz/corpus/carrier"
done_testing
