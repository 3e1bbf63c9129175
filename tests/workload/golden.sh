#!/bin/sh
# Golden workload documents: every tests/workload/data/valid/*.json is read;
# every tests/workload/data/invalid/NAME.json is rejected (exit 1) with
# exactly the message in NAME.msg.  One TAP line per file.
. "${top_srcdir:-.}/tests/lib/tap.sh"

tool="$top_builddir/tests/workload/workload_tool"
src="$top_srcdir/tests/workload/data"
[ -x "$tool" ] || plan_skip_all "workload_tool not built"

nvalid=$(ls "$src"/valid/*.json | wc -l)
ninvalid=$(ls "$src"/invalid/*.json | wc -l)
plan $((nvalid + ninvalid))

for f in "$src"/valid/*.json; do
	out=$("$tool" "$f")
	if [ "$out" = ok ]; then ok "valid/${f##*/}"; else not_ok "valid/${f##*/}: $out"; fi
done

cd "$src/invalid" || exit 1
for f in *.json; do
	if [ ! -f "${f%.json}.msg" ]; then
		not_ok "invalid/$f: no ${f%.json}.msg beside it"
		continue
	fi
	want=$(cat "${f%.json}.msg")
	out=$("$tool" "$f")
	st=$?
	if [ "$out" = "$want" ] && [ $st -eq 1 ]; then
		ok "invalid/$f: $want"
	else
		not_ok "invalid/$f: got '$out' (exit $st), want '$want'"
	fi
done
done_testing
