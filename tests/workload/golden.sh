#!/bin/sh
# Golden workload documents: every tests/workload/data/valid/*.json is read;
# every tests/workload/data/invalid/NAME.json is rejected (exit 1) with
# exactly the message in NAME.msg.  One TAP line per file.
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/lib/golden.sh"

golden_test "$top_builddir/tests/workload/workload_tool" \
	"$top_srcdir/tests/workload/data" json
