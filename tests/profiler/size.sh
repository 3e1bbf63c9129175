#!/bin/sh
# libnccl-profiler-lagom.so is small on disk: its state (pf, about 6 MB:
# the record snapshot and its text) must stay all zero at load time so it
# lies in .bss, not in the file.  One nonzero initialiser (it once was
# `.dir_fd = -1`) put the whole struct in .data: a 6 MB module, read into
# every rank of every measured job.
. "$top_srcdir/tests/lib/tap.sh"

so="$top_builddir/.libs/libnccl-profiler-lagom.so"
[ -f "$so" ] || plan_skip_all "$so not built"
command -v size >/dev/null 2>&1 || plan_skip_all "size not installed (binutils)"

plan 3

# Berkeley format: text data bss dec hex filename.
set -- $(size "$so" | awk 'NR == 2 { print $1, $2, $3 }')
text=$1 data=$2 bss=$3
bytes=$(wc -c <"$so")
check_that "initialised data under 64 KiB (text $text, data $data, bss $bss)" \
	'[ -n "$data" ] && [ "$data" -lt 65536 ]'
check_that "the state is in .bss ($bss bytes, over 1 MiB)" \
	'[ -n "$bss" ] && [ "$bss" -gt 1048576 ]'
check_that "the file is under 1 MiB ($bytes bytes)" '[ "$bytes" -lt 1048576 ]'
done_testing
