#!/bin/sh
# Contention predictors against the slowdowns measured in the fixture traces
# (tests/model/contention_report.c says how), each row with the protocol
# the importer reads: the built-in rate constant is the in-sample fit, and
# left out (by trace, by row group) the model beats "no slowdown" and the
# model before, and the best constant slowdown, on what the data support
# (the "check:" lines; doc/model.md 4).  The check can fail: without the
# rate term (--k-max 0) and without the bound the published H100 figure
# puts on the rate constant (--k-max 32) it does.
. "${top_srcdir:-.}/tests/lib/tap.sh"

report="${top_builddir:-.}/tests/model/contention_report"
dir="${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}/traces"
plan 3
set --
for t in "$dir"/hta-a100-2rank-nccl_data.json.gz \
	"$dir"/hta-v100-2rank-trace_diff_test.json.gz; do
	[ -f "$t" ] && set -- "$@" "$t"
done
if [ $# -ne 2 ]; then
	for i in 1 2 3; do
		skip "contention: the two fixture traces are not under $dir"
	done
	done_testing
	exit 0
fi
out=$("$report" --check "$@")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
nchecks=$(printf '%s\n' "$out" | grep -c '^check: .*: ok$')
if [ $rc -eq 0 ] && [ "$nchecks" -eq 21 ]; then
	ok "contention (importer's protocols): $nchecks checks hold"
else
	not_ok "contention: exit $rc, $nchecks checks hold:" \
		"$(printf '%s\n' "$out" | grep 'FAILED' | tr '\n' ';')"
fi

# expect_fail NAME PATTERN ARGS...: the check exits 1 and says PATTERN
expect_fail()
{
	name=$1 pattern=$2
	shift 2
	out=$("$report" --check "$@")
	rc=$?
	printf '%s\n' "$out" | grep FAILED | sed "s/^/# $name: /"
	if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "$pattern"; then
		ok "contention check fails $name"
	else
		not_ok "contention check does not fail $name (exit $rc)"
	fi
}
expect_fail "without the rate term (--k-max 0)" \
	'^check: all rows, LOTO mean |log| .* no slowdown .*: FAILED$' \
	--k-max 0 "$@"
expect_fail "without the published bound (--k-max 32)" \
	'^check: built-in contention_rate .* the in-sample fit [3-9]\..*: FAILED$' \
	--k-max 32 "$@"
done_testing
