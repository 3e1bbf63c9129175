#!/bin/sh
# tests/failopen/prolog-bounds.sh - lagom-prolog's inputs are bounded: a
# --node longer than a profile's node name (63) is refused, never cut (two
# long names would share one profile), with exit 0 like every run-time
# refusal of a Prolog; --plugstack reads regular files only,
# with a bounded read, so /dev/zero or a FIFO end at once.
. "${top_srcdir:-.}/tests/lib/tap.sh"

prolog="$top_builddir/lagom-prolog"
[ -x "$prolog" ] || plan_skip_all "lagom-prolog not built"

plan 12
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
d="$tmp/profiles"
mkdir -m 0755 "$d"
echo "# no lagom here" >"$tmp/plugstack.conf"

n63=$(printf 'n%.0s' $(seq 1 63))
n64=${n63}x
timeout 20 "$prolog" --plugstack "$tmp/plugstack.conf" --profile-dir "$d" \
	--node "$n64" --budget 0.1 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--node with 64 characters: exit 0 (a Prolog never drains the node)" [ "$rc" -eq 0 ]
check "... refused with one line naming the limit" \
	sh -c "[ \$(grep -c 'no usable node name (1 to 63 characters' '$tmp/err') -eq 1 ]"
check "... no profile written (not even under the name cut to 63)" [ -z "$(ls "$d")" ]
timeout 20 "$prolog" --plugstack "$tmp/plugstack.conf" --profile-dir "$d" \
	--node "$n63" --budget 0.1 >/dev/null 2>"$tmp/err"
check "--node with 63 characters is accepted and written" \
	[ -f "$d/$n63.json" ]
rm -rf "$d"/*
SLURMD_NODENAME=$n64 timeout 20 "$prolog" --plugstack "$tmp/plugstack.conf" \
	--profile-dir "$d" --budget 0.1 >/dev/null 2>"$tmp/err"
rc=$?
check "SLURMD_NODENAME of 64 characters: exit 0 (a Prolog never drains)" [ "$rc" -eq 0 ]
check "... and nothing written under a cut name" [ -z "$(ls "$d")" ]

# --plugstack: not a regular file
bounded() { # DESC FILE
	local t0 t1 rc
	t0=$(date +%s)
	timeout 10 "$prolog" --plugstack "$2" --profile-dir "$d" --node tnode \
		--dry-run --budget 0.1 >/dev/null 2>"$tmp/err"
	rc=$?
	t1=$(date +%s)
	if [ "$rc" -ne 124 ] && [ $((t1 - t0)) -le 5 ]; then
		ok "--plugstack $1: returns at once (exit $rc, $((t1 - t0)) s)"
	else
		not_ok "--plugstack $1: returns at once (exit $rc, $((t1 - t0)) s)"
	fi
	check "--plugstack $1: says it is not a regular file" \
		grep -q 'not a regular file' "$tmp/err"
}
bounded /dev/zero /dev/zero
mkfifo "$tmp/fifo"
bounded "a FIFO" "$tmp/fifo"
# a regular file larger than any plugstack.conf: refused, not read whole
dd if=/dev/zero of="$tmp/big.conf" bs=1M count=0 seek=64 2>/dev/null
timeout 10 "$prolog" --plugstack "$tmp/big.conf" --profile-dir "$d" \
	--node tnode --dry-run --budget 0.1 >/dev/null 2>"$tmp/err"
check "--plugstack of 64 MiB: refused as too large" grep -q 'too large' "$tmp/err"
echo "required /x/lagom.so profile_dir=$tmp/elsewhere" >"$tmp/ps.conf"
timeout 10 "$prolog" --plugstack "$tmp/ps.conf" --node tnode --dry-run \
	--budget 0.1 -v >/dev/null 2>"$tmp/err"
check "a regular plugstack.conf is still read (its profile_dir is used)" \
	grep -q "$tmp/elsewhere" "$tmp/err"
done_testing
