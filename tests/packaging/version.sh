#!/bin/sh
# tests/packaging/version.sh - one version everywhere.  configure.ac's
# AC_INIT version is the only source; every place a user or a package
# manager reads lagom's version must say the same: `lagom --version`,
# `lagom-prolog --version`, the plan header (LAGOM_PLAN) and the job
# comment summary, the strings compiled into lagom.so and the tuner, the
# RPM spec (Version and its newest %changelog entry), debian/changelog's
# newest entry and NEWS's newest entry.
. "$top_srcdir/tests/lib/tap.sh"

command -v python3 >/dev/null 2>&1 ||
	plan_skip_all "python3 not installed (needed to read JSON output)"
[ -x "$top_builddir/lagom" ] || plan_skip_all "lagom not built"
plan 16

V=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
diag "PACKAGE_VERSION $V"
check "config.h has a version" [ -n "$V" ]
ac=$(sed -n 's/^AC_INIT(\[lagom\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
check "configure.ac's AC_INIT says $V ($ac)" [ "$ac" = "$V" ]
check "lagom --version" [ "$("$top_builddir/lagom" --version)" = "lagom $V" ]
check "lagom-prolog --version" \
	[ "$("$top_builddir/lagom-prolog" --version 2>/dev/null)" = "lagom-prolog $V" ]

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lagom-version.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
"$top_builddir/lagom" plan --profile "$top_srcdir/tests/profile/valid/a100-full.json" \
	--nodes 2 --workload phi-2:fsdp --format json >"$TMP/plan.json" 2>"$TMP/err"
check "lagom plan: JSON \"lagom\", plan header and summary carry $V" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); v = sys.argv[2]
sys.exit(0 if d["lagom"] == v and d["plan_text"].startswith("lagom-plan 1 " + v + " ")
         and d["summary"].startswith("lagom " + v + " plan=") else 1)' "$TMP/plan.json" "$V"

# The plugin and the tuner: the version compiled into them (the installed
# plugin's log line is checked by tests/packaging/installed.sh).
so=$top_builddir/spank/.libs/lagom.so
tuner=$top_builddir/.libs/libnccl-tuner-lagom.so
[ -f "$tuner" ] || tuner=$top_builddir/tuner/.libs/libnccl-tuner-lagom.so
if command -v strings >/dev/null 2>&1 && [ -f "$so" ] && [ -f "$tuner" ]; then
	# plan/ writes the header from the version search/ hands it
	check "lagom.so writes plan headers of $V" \
		sh -c "strings -a '$so' | grep -qxF '$V'"
	check "libnccl-tuner-lagom.so accepts plans of $V only" \
		sh -c "strings -a '$tuner' | grep -qxF '$V'"
else
	skip "not checked: strings (binutils) or the built modules missing"
	skip "not checked: strings (binutils) or the built modules missing"
fi

news=$(sed -n 's/^lagom \([^ ]*\) (.*/\1/p' "$top_srcdir/NEWS" | head -1)
check "NEWS: newest entry is $V ($news)" [ "$news" = "$V" ]
deb=$(sed -n '1s/^lagom (\([^)]*\)).*/\1/p' "$top_srcdir/debian/changelog")
check "debian/changelog: newest entry is $V-N ($deb)" \
	sh -c "case '$deb' in '$V'-[0-9]*) exit 0 ;; *) exit 1 ;; esac"
check "debian/source/format is 3.0 (quilt): upstream version, then a Debian revision" \
	grep -qx '3.0 (quilt)' "$top_srcdir/debian/source/format"
spec=$top_builddir/lagom.spec
check "lagom.spec: Version $V" grep -qx "Version: *$V" "$spec"
check "lagom.spec.in takes its Version from configure" \
	grep -qx 'Version: *@PACKAGE_VERSION@' "$top_srcdir/lagom.spec.in"
sc=$(sed -n '/^%changelog/,$s/^\* .* - \([^ ]*\)$/\1/p' "$spec" | head -1)
check "lagom.spec: newest %changelog entry is $V-N ($sc)" \
	sh -c "case '$sc' in '$V'-[0-9]*) exit 0 ;; *) exit 1 ;; esac"
rel=$(sed -n 's/^Release: *\([0-9][0-9]*\)%{?dist}$/\1/p' "$spec")
check "lagom.spec: Release $rel is the newest %changelog entry's" [ "$sc" = "$V-$rel" ]
# man pages: the .TH source field names no other version
man_ok() {
	local m src
	for m in "$top_srcdir"/doc/*.[18]; do
		src=$(sed -n '1s/^\.TH [^ ]* [0-9] "[^"]*" "\([^"]*\)".*/\1/p' "$m")
		case "$src" in "lagom" | "lagom $V") ;; *)
			diag "$m: .TH says '$src'"
			return 1 ;;
		esac
	done
}
check "man pages: .TH says lagom or lagom $V" man_ok
check "plugstack snippet points at lagom.so" \
	grep -q '^optional /.*/lagom\.so ' "$top_srcdir/contrib/lagom.conf"
done_testing
