#!/bin/sh
# A bounded (about 10 s) libFuzzer run of the measurement-record reader from
# the seed corpus: no crash, no sanitizer report, and every accepted input
# written back identically by the writer.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_setup lagom-fuzz-rec
if ! fuzz_build fuzz_record "$top_srcdir/tests/fuzz/fuzz_record.c" \
	"$top_srcdir/measurement/record.c" "$top_srcdir/measurement/record_parse.c" \
	"$top_srcdir/measurement/predicted.c" "$top_srcdir/common/error.c" \
	"$top_srcdir/common/nccl_names.c"; then
	fuzz_broken fuzz_record
fi

plan 2
ok "fuzz_record builds with -fsanitize=fuzzer,address,undefined"
fuzz_run fuzz_record 10 "$top_srcdir/tests/fuzz/corpus/record"
done_testing
