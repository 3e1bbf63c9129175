# tests/lib/tap.sh - a small TAP library for lagom's shell tests.
# Source it, call plan N (or plan_skip_all "why"), then ok/not_ok/skip, and
# finish with done_testing.  Every skip says why.

tap_n=0
tap_failed=0

plan() { echo "1..$1"; }

plan_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $*"
}

diag() { echo "# $*"; }

# check "description" command...: ok when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# check_that "description" 'CONDITION': ok when the shell condition holds
# (evaluated here, so it may use the caller's variables and functions);
# otherwise not_ok, then $tap_on_fail when set (a command that shows why).
check_that() {
	local what=$1
	shift
	if eval "$*"; then
		ok "$what"
	else
		not_ok "$what"
		${tap_on_fail:-}
	fi
}

done_testing() {
	[ "$tap_failed" -eq 0 ]
}
