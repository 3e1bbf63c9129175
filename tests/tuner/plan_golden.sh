#!/bin/sh
# Golden plans: every tests/tuner/plans/valid/*.plan is read; every
# tests/tuner/plans/invalid/NAME.plan is rejected (exit 1) with exactly the
# message in NAME.msg.  One TAP line per file.
. "${top_srcdir:-.}/tests/lib/tap.sh"

tool="$top_builddir/tests/tuner/plan_tool"
src="$top_srcdir/tests/tuner/plans"
[ -x "$tool" ] || plan_skip_all "plan_tool not built"

nvalid=$(ls "$src"/valid/*.plan | wc -l)
ninvalid=$(ls "$src"/invalid/*.plan | wc -l)
plan $((nvalid + ninvalid))

for f in "$src"/valid/*.plan; do
	out=$("$tool" "$f")
	if [ "$out" = ok ]; then ok "valid/${f##*/}"; else not_ok "valid/${f##*/}: $out"; fi
done

cd "$src/invalid" || exit 1
for f in *.plan; do
	if [ ! -f "${f%.plan}.msg" ]; then
		not_ok "invalid/$f: no ${f%.plan}.msg beside it"
		continue
	fi
	want=$(cat "${f%.plan}.msg")
	out=$("$tool" "$f")
	st=$?
	if [ "$out" = "$want" ] && [ $st -eq 1 ]; then
		ok "invalid/$f: $want"
	else
		not_ok "invalid/$f: got '$out' (exit $st), want '$want'"
	fi
done
done_testing
