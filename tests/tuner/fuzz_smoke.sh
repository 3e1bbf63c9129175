#!/bin/sh
# A bounded (about 10 s) libFuzzer run of the plan reader from the seed
# corpus: no crash, no sanitizer report, no broken invariant.
. "$top_srcdir/tests/lib/tap.sh"

clang=
for c in ${CLANG:-} clang clang-14; do
	command -v "$c" >/dev/null 2>&1 && { clang=$c; break; }
done
[ -n "$clang" ] || plan_skip_all "clang not installed: libFuzzer unavailable"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lagom-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$clang" -g -O1 -fsanitize=fuzzer,address,undefined \
	-I"$top_srcdir" -I"$top_builddir" -D_GNU_SOURCE -o "$tmp/fuzz_plan" \
	"$top_srcdir/tests/fuzz/fuzz_plan.c" "$top_srcdir/tuner/plan_read.c" \
	>"$tmp/build.log" 2>&1; then
	plan_skip_all "libFuzzer unavailable: $(head -c 200 "$tmp/build.log" | tr '\n' ' ')"
fi

plan 2
ok "fuzz_plan builds with -fsanitize=fuzzer,address,undefined"
mkdir "$tmp/corpus"
if "$tmp/fuzz_plan" -max_total_time=10 -timeout=5 -rss_limit_mb=1024 \
	-print_final_stats=1 "$tmp/corpus" \
	"$top_srcdir/tests/fuzz/corpus/plan" >"$tmp/run.log" 2>&1; then
	ok "10 s of fuzzing: $(grep -m1 'stat::number_of_executed_units' "$tmp/run.log" | awk '{print $2}') inputs, no finding"
else
	tail -n 40 "$tmp/run.log" | sed 's/^/# /'
	not_ok "fuzz_plan found a problem (log above)"
fi
done_testing
