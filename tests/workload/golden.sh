#!/bin/sh
# Golden workload documents: every tests/workload/data/valid/*.json is read;
# every tests/workload/data/invalid/NAME.json is rejected (exit 1) with
# exactly the message in NAME.msg.  One TAP line per file.
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/lib/golden.sh"

tool="$top_builddir/tests/workload/workload_tool"
src="$top_srcdir/tests/workload/data"
[ -x "$tool" ] || plan_skip_all "workload_tool not built"

plan "$(golden_count "$src" json)"
golden_check "$src" json "$tool"
done_testing
