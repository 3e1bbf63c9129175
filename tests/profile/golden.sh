#!/bin/sh
# Golden profiles: every tests/profile/valid/*.json loads; every
# tests/profile/invalid/NAME.json is rejected with exactly the message in
# NAME.msg.  An oversized file is made on the fly (1 MiB is too big to ship).
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/lib/golden.sh"

tool="$top_builddir/tests/profile/profile_tool"
src="$top_srcdir/tests/profile"
[ -x "$tool" ] || plan_skip_all "profile_tool not built"

plan $(($(golden_count "$src" json) + 2))
golden_check "$src" json "$tool" read

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$tool" sample big 4 > big.json
head -c 1048576 /dev/zero | tr '\0' ' ' >> big.json
out=$("$tool" read big.json)
case $out in
"profile big.json: "*" bytes, over the 1048576 byte limit") ok "oversized: $out" ;;
*) not_ok "oversized: got '$out'" ;;
esac
# Exactly at the limit is read (and here valid: JSON allows trailing spaces).
"$tool" sample edge 4 > edge.json
pad=$((1048576 - $(wc -c < edge.json)))
head -c $pad /dev/zero | tr '\0' ' ' >> edge.json
out=$("$tool" read edge.json)
if [ "$out" = ok ]; then ok "exactly 1 MiB is accepted"; else not_ok "1 MiB: $out"; fi
done_testing
