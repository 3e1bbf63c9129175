#!/bin/sh
# Every C file follows .clang-format (kernel-like: tabs, 8 columns, 80 wide).
. "${top_srcdir:-.}/tests/lib/tap.sh"

cf=${CLANG_FORMAT:-}
[ -n "$cf" ] || cf=$(command -v clang-format 2>/dev/null)
[ -n "$cf" ] || plan_skip_all "clang-format not installed (apt-get install clang-format)"

cd "$top_srcdir" || exit 1
files=$(find common compat model catalog workload search topology placement profile prolog plugstack planner policy spank tuner profiler measurement trace cli \
	tests bench -name '*.[ch]' 2>/dev/null | sort)
[ -n "$files" ] || plan_skip_all "no C files found under $top_srcdir"

plan "$(echo "$files" | wc -l)"
for f in $files; do
	if "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
		ok "$f"
	else
		not_ok "$f is not formatted: run '$cf -i $f'"
	fi
done
done_testing
