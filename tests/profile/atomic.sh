#!/bin/sh
# Atomic writer: 4 writer and 4 reader processes on one profile; every read
# sees a whole, valid profile (or none yet), and no temporary file is left.
# Bounded: 150 writes and 1000 reads per process, 60 s at most.
. "${top_srcdir:-.}/tests/lib/tap.sh"

tool="$top_builddir/tests/profile/profile_tool"
[ -x "$tool" ] || plan_skip_all "profile_tool not built"
to=
command -v timeout >/dev/null 2>&1 && to="timeout 60"

plan 10
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$tool" write "$tmp" racy 1 >/dev/null || exit 1

for i in 1 2 3 4; do
	$to "$tool" write "$tmp" racy 150 > "$tmp/w$i.out" 2>&1 &
	eval "w$i=\$!"
done
for i in 1 2 3 4; do
	$to "$tool" hammer "$tmp" racy 1000 > "$tmp/r$i.out" 2>&1 &
	eval "r$i=\$!"
done
for i in 1 2 3 4; do
	eval "wait \$w$i"
	st=$?
	check "writer $i finished ($(cat "$tmp/w$i.out"))" [ $st -eq 0 ]
done
for i in 1 2 3 4; do
	eval "wait \$r$i"
	st=$?
	out=$(cat "$tmp/r$i.out")
	check "reader $i saw only whole profiles ($out)" \
		[ "$st" -eq 0 -a "$out" = "ok 1000 whole reads" ]
done
check "no temporary file left behind" [ "$(ls -A "$tmp" | grep -c '^\.racy')" -eq 0 ]
check "the final profile is valid" [ "$("$tool" load "$tmp" racy)" = ok ]
done_testing
