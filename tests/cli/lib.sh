# tests/cli/lib.sh - helpers for the `lagom` command-line tests.
# Source after tests/lib/tap.sh.

LAGOM=${LAGOM:-$top_builddir/lagom}
FIX=${LAGOM_FIXTURES:-$top_srcdir/tests/fixtures}

command -v python3 >/dev/null 2>&1 ||
	plan_skip_all "python3 not installed (needed to read JSON output)"
[ -x "$LAGOM" ] || plan_skip_all "$LAGOM not built"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

# jq-like: jget FILE EXPR -> prints the Python expression EXPR evaluated
# with d = the JSON document in FILE.
jget() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)' "$1" "$2"
}

# jtrue FILE EXPR: succeeds when the Python expression is true.
jtrue() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# run_lagom OUT ERR args...: runs lagom, keeps stdout/stderr, sets $rc.
run_lagom() {
	local out=$1 err=$2
	shift 2
	"$LAGOM" "$@" >"$out" 2>"$err"
	rc=$?
}

# expect_status WANT "description" args...: exit status WANT and, for a
# failure, exactly one stderr line starting with "lagom: ".
expect_status() {
	local want=$1 what=$2
	shift 2
	run_lagom "$TMP/out" "$TMP/err" "$@"
	if [ "$rc" -ne "$want" ]; then
		not_ok "$what: exit $rc, want $want"
		sed 's/^/# /' "$TMP/err"
		return
	fi
	if [ "$want" -ne 0 ]; then
		local n
		n=$(wc -l <"$TMP/err")
		if [ "$n" -ne 1 ] || ! grep -q '^lagom: ' "$TMP/err"; then
			not_ok "$what: want one 'lagom:' line on stderr, got $n"
			sed 's/^/# /' "$TMP/err"
			return
		fi
	fi
	ok "$what"
}
