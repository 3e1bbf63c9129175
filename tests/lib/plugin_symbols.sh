# tests/lib/plugin_symbols.sh - the symbol checks of an NCCL plugin that
# NCCL dlopen()s (tests/tuner/symbols.sh, tests/profiler/symbols.sh).
# Source it after tests/lib/tap.sh, then:
#   plugin_symbols KIND WANT LOOKUP GREP NEXTRA
#     KIND    tuner or profiler: $top_builddir/.libs/libnccl-KIND-lagom.so,
#             whose symbols NCCL names by the stem of WANT's first
#     WANT    the symbols it exports, sorted, separated by one space
#     LOOKUP  all: every one the installed NCCL looks up is exported;
#             newest: its newest is
#     GREP    grep's options for the libnccl-KIND prefix in NCCL's strings:
#             -qx a string of its own, -q part of one
#     NEXTRA  the caller's own tests after these four
# It plans 4 + NEXTRA tests: exactly WANT exported, only libc needed, and
# against the installed NCCL's binary (GPU-free: NCCL loads plugins only
# inside communicator creation, which needs a GPU) what it looks up and the
# libnccl-KIND prefix it builds names with.  Without that NCCL it skips the
# rest, NEXTRA included, and exits; otherwise $nccl is its path.

plugin_symbols() {
	ps_kind=$1 want=$2 ps_lookup=$3 ps_grep=$4 ps_extra=$5
	so="$top_builddir/.libs/libnccl-$ps_kind-lagom.so"
	[ -f "$so" ] || plan_skip_all "$so not built"
	command -v readelf >/dev/null 2>&1 || plan_skip_all "readelf not installed (binutils)"
	nm=${NM:-nm}
	ps_stem=${want%%_v*}_v

	plan $((4 + ps_extra))

	got=$($nm -D --defined-only "$so" | awk '{print $NF}' | sort | tr '\n' ' ')
	if [ "$got" = "$want " ]; then
		ok "exports exactly: $want"
	else
		not_ok "exports '$got', want '$want'"
	fi

	needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	# A sanitizer link adds its runtime's deps (clang: --no-as-needed -lm -ldl...).
	allowed='^libc\.so\.'
	[ -n "$LAGOM_SANITIZED" ] && allowed='^libc\.so\.|san\.so|^lib(m|dl|pthread|rt)\.so\.'
	extra=$(echo "$needed" | tr ' ' '\n' | grep -v '^$' | grep -Ev "$allowed")
	if [ -z "$extra" ]; then
		ok "links only libc${LAGOM_SANITIZED:+ and sanitizer runtime deps} (NEEDED: $needed)"
	else
		not_ok "NEEDED has more than libc: $needed"
	fi

	# The NCCL this machine has (no GPU needed to read its binary).
	nccl=${LAGOM_NCCL_LIB:-}
	for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu; do
		[ -n "$nccl" ] && break
		[ -f "$d/libnccl.so.2" ] && nccl="$d/libnccl.so.2"
	done
	if [ -z "$nccl" ]; then
		ps_i=0
		while [ "$ps_i" -lt $((2 + ps_extra)) ]; do
			skip "libnccl.so.2 not found (set LAGOM_NCCL_LIB)"
			ps_i=$((ps_i + 1))
		done
		done_testing
		exit
	fi
	looked_up=$(strings -a "$nccl" | grep -x "${ps_stem}[0-9]*" | sort -u | tr '\n' ' ')
	if [ "$ps_lookup" = newest ]; then
		newest=$(echo "$looked_up" | tr ' ' '\n' | grep -v '^$' | sort -V | tail -n 1)
		case " $want " in
		*" $newest "*) ok "$nccl looks up $looked_up- its newest, $newest, is exported" ;;
		*) not_ok "$nccl looks up '$looked_up'; newest '$newest' not exported" ;;
		esac
	else
		missing=
		for s in $looked_up; do
			case " $want " in *" $s "*) ;; *) missing="$missing $s" ;; esac
		done
		if [ -n "$looked_up" ] && [ -z "$missing" ]; then
			ok "$nccl looks up $looked_up- all exported"
		else
			not_ok "$nccl looks up '$looked_up', not exported:$missing"
		fi
	fi
	# NCCL_TUNER_PLUGIN=lagom -> dlopen("lagom") fails -> "libnccl-tuner-lagom.so"
	# (NCCL_PROFILER_PLUGIN likewise).
	check "$nccl builds plugin names with the libnccl-$ps_kind prefix" \
		sh -c "strings -a '$nccl' | grep $ps_grep 'libnccl-$ps_kind'"
}
