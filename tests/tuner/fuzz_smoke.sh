#!/bin/sh
# A bounded (about 10 s) libFuzzer run of plan/'s decoder (and the
# encoder's round trip) from the seed corpus: no crash, no sanitizer
# report, no broken invariant.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_setup lagom-fuzz
if ! fuzz_build fuzz_plan "$top_srcdir/tests/fuzz/fuzz_plan.c" \
	"$top_srcdir/plan/rules.c" "$top_srcdir/plan/encode.c" \
	"$top_srcdir/plan/decode.c" "$top_srcdir/common/error.c" \
	"$top_srcdir/common/hash.c" "$top_srcdir/common/nccl_names.c"; then
	plan_skip_all "libFuzzer unavailable: $(fuzz_build_error fuzz_plan)"
fi

plan 2
ok "fuzz_plan builds with -fsanitize=fuzzer,address,undefined"
fuzz_run fuzz_plan 10 "$top_srcdir/tests/fuzz/corpus/plan"
done_testing
