#!/bin/sh
# Golden plans: every tests/tuner/plans/valid/*.plan is read; every
# tests/tuner/plans/invalid/NAME.plan is rejected (exit 1) with exactly the
# message in NAME.msg.  One TAP line per file.
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/lib/golden.sh"

golden_test "$top_builddir/tests/tuner/plan_tool" \
	"$top_srcdir/tests/tuner/plans" plan
