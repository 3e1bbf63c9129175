# tests/lib/fuzz.sh - bounded libFuzzer runs for lagom's shell tests.
# Source it after tests/lib/tap.sh, then:
#   fuzz_setup PREFIX        find clang and check that it links a trivial
#                            libFuzzer target (else plan_skip_all with the
#                            reason); make $fuzz_tmp, removed on exit
#   fuzz_broken NAME         NAME did not build although libFuzzer works:
#                            lagom's sources are at fault, so one failing
#                            TAP line with the build log, and exit
#   fuzz_build NAME SRC...   build $fuzz_tmp/NAME with libFuzzer, ASan and
#                            UBSan; 0 when it builds (log in $fuzz_tmp)
#   fuzz_build_error NAME    the first 200 characters of NAME's build log
#   fuzz_run NAME SECS CORPUS...  run it SECS seconds from a fixed seed
#                            (LAGOM_FUZZ_SEED, default 1): one TAP line,
#                            with the fuzzer's log as diagnostics on a finding

fuzz_setup() {
	fuzz_clang=
	for c in ${CLANG:-} clang clang-14; do
		command -v "$c" >/dev/null 2>&1 && {
			fuzz_clang=$c
			break
		}
	done
	[ -n "$fuzz_clang" ] ||
		plan_skip_all "clang not installed: libFuzzer unavailable"
	fuzz_tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
	trap 'rm -rf "$fuzz_tmp"' EXIT
	# Only a toolchain without libFuzzer is a reason to skip; a target of
	# ours that does not build is a failure (fuzz_broken).
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
		'{ (void)d; (void)n; return 0; }' >"$fuzz_tmp/probe.c"
	fuzz_build probe "$fuzz_tmp/probe.c" ||
		plan_skip_all "libFuzzer unavailable: $(fuzz_build_error probe)"
}

fuzz_broken() {
	echo "1..1"
	sed 's/^/# /' "$fuzz_tmp/$1.build" | head -n 40
	echo "not ok 1 - $1 does not build (libFuzzer itself works; log above)"
	exit 1
}

fuzz_build() {
	fuzz_name=$1
	shift
	"$fuzz_clang" -g -O1 -fsanitize=fuzzer,address,undefined \
		-I"$top_srcdir" -I"$top_builddir" -D_GNU_SOURCE \
		-o "$fuzz_tmp/$fuzz_name" "$@" >"$fuzz_tmp/$fuzz_name.build" 2>&1
}

fuzz_build_error() {
	head -c 200 "$fuzz_tmp/$1.build" | tr '\n' ' '
}

fuzz_run() {
	fuzz_name=$1 fuzz_secs=$2
	shift 2
	mkdir -p "$fuzz_tmp/new-$fuzz_name"
	# A fixed seed (LAGOM_FUZZ_SEED, default 1): the smoke run in make
	# check explores the same inputs first on every machine, so a finding
	# there is a regression, not luck; 'make fuzz' explores freely.
	if "$fuzz_tmp/$fuzz_name" -max_total_time="$fuzz_secs" -timeout=5 \
		-seed="${LAGOM_FUZZ_SEED:-1}" \
		-rss_limit_mb=1024 -print_final_stats=1 \
		"$fuzz_tmp/new-$fuzz_name" "$@" >"$fuzz_tmp/$fuzz_name.log" 2>&1; then
		fuzz_n=$(grep -m1 'stat::number_of_executed_units' \
			"$fuzz_tmp/$fuzz_name.log" | awk '{print $2}')
		ok "$fuzz_name: $fuzz_secs s of fuzzing from seed ${LAGOM_FUZZ_SEED:-1}, $fuzz_n inputs, no finding"
	else
		grep -v '^#[0-9]' "$fuzz_tmp/$fuzz_name.log" | tail -n 40 |
			sed 's/^/# /'
		not_ok "$fuzz_name found a problem (log above)"
	fi
}
