# tests/lib/golden.sh - data-driven reader tests: one file per case, the
# exact expected message beside it, one TAP line each.  Source it after
# tests/lib/tap.sh, then:
#   golden_test TOOL DIR EXT  the whole test with TOOL (skipped when it is
#                             not built): plan, golden_check, done_testing
#   golden_count DIR EXT      how many cases DIR holds (for plan)
#   golden_check DIR EXT CMD...
#     every DIR/valid/*.EXT: CMD FILE prints "ok";
#     every DIR/invalid/NAME.EXT: CMD NAME.EXT, run in DIR/invalid, exits 1
#     and prints exactly NAME.msg (a case without one fails)

golden_count() {
	echo $(($(ls "$1"/valid/*."$2" 2>/dev/null | wc -l) +
		$(ls "$1"/invalid/*."$2" 2>/dev/null | wc -l)))
}

golden_check() {
	g_dir=$1 g_ext=$2
	shift 2
	for f in "$g_dir"/valid/*."$g_ext"; do
		[ -e "$f" ] || continue
		out=$("$@" "$f")
		if [ "$out" = ok ]; then ok "valid/${f##*/}"; else not_ok "valid/${f##*/}: $out"; fi
	done
	for f in "$g_dir"/invalid/*."$g_ext"; do
		[ -e "$f" ] || continue
		f=${f##*/}
		msg=$g_dir/invalid/${f%."$g_ext"}.msg
		if [ ! -f "$msg" ]; then
			not_ok "invalid/$f: no ${f%."$g_ext"}.msg beside it"
			continue
		fi
		want=$(cat "$msg")
		out=$(cd "$g_dir/invalid" && "$@" "$f")
		st=$?
		if [ "$out" = "$want" ] && [ $st -eq 1 ]; then
			ok "invalid/$f: $want"
		else
			not_ok "invalid/$f: got '$out' (exit $st), want '$want'"
		fi
	done
}

golden_test() {
	[ -x "$1" ] || plan_skip_all "${1##*/} not built"
	plan "$(golden_count "$2" "$3")"
	golden_check "$2" "$3" "$1"
	done_testing
}
