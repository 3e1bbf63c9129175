#!/usr/bin/env bash
# tests/lua/lagom_submit.sh - contrib/slurm/lagom_submit.lua under lua5.1
# (the Lua of Debian 12's job_submit_lua.so) with a fake slurm table, and
# with a policy file written by `lagom policy`.
. "$top_srcdir/tests/lib/tap.sh"

lua=$(command -v lua5.1 || true)
[ -n "$lua" ] || plan_skip_all "lua5.1 not installed (contrib/install-deps.sh installs it)"
lagom=$top_builddir/lagom
[ -x "$lagom" ] || plan_skip_all "lagom not built"

dir=$(mktemp -d /tmp/lagom-lua.XXXXXX)
trap 'chmod 0700 "$dir"; rm -rf "$dir"' EXIT
chmod 0755 "$dir"
printf 'SwitchName=leaf1 Nodes=n[1-4]\nSwitchName=leaf2 Nodes=n[5-8]\nSwitchName=spine Switches=leaf[1-2]\n' >"$dir/topology.conf"
if ! "$lagom" policy --profile "$top_srcdir/tests/profile/valid/a100-full.json" \
	--topology-conf "$dir/topology.conf" --spine-taper 4 --output "$dir/generated" \
	>"$dir/out" 2>&1; then
	echo "1..1"
	echo "not ok 1 - lagom policy wrote a policy"
	sed 's/^/# /' "$dir/out"
	exit 1
fi
"$lua" "$top_srcdir/tests/lua/test_lagom_submit.lua" \
	"$top_srcdir/contrib/slurm/lagom_submit.lua" "$dir/generated" "$dir" "$(id -u)"
