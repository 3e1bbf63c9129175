#!/bin/sh
# The pure core (model/, catalog/, search/) does no I/O, reads no environment or clock
# and calls no Slurm, hwloc or jansson function.  This reads the undefined
# symbols of the core's archives (nm -u) and fails on any forbidden one.
#
# It also fails when a header written for a narrower audience is included
# from outside it (model/model_fast.h says who may include which), and
# when a source file includes another folder's private header
# (`X/..._int.h` from a file outside folder X): what a folder shares with
# others is in its public header.  X's own white-box tests (tests/X/) may
# include it.  One naming rule makes every private header visible here: a
# header whose name says it is private any other way (`internal`,
# `private`, `_priv.h`, `_impl.h`), or whose opening comment says it is
# "private to X/", fails too (doc/vocabulary.md).
#
#   purity.sh [--src DIR] [ARCHIVE...]
#   default: the core archives of the build tree and the source tree; with
#   --src alone, only DIR's includes; with archives alone, only those.
. "${top_srcdir:-.}/tests/lib/tap.sh"

# One extended regular expression per line, matched against a whole symbol.
forbidden='
(f|fd|)open(at|64|dir)?|creat|close|closedir|(f|p)?read(v|dir|link|64)?|(f|p)?write(v|64)?
f(get|put)(c|s)|(get|put)(c|s|char|line|delim)|ungetc|fflush|fseek|ftell|rewind|fscanf|scanf|sscanf
(v|f|vf|d|vd)?printf|puts|perror|__(v)?(f|s|sn)?printf_chk|__fprintf_chk
std(in|out|err)|mmap|munmap|ioctl|fcntl|stat(64)?|fstat(64)?|lstat(64)?|__(l|f|x)?stat(64)?|access|unlink|rename|mkdir|rmdir
(secure_)?getenv|__secure_getenv|setenv|unsetenv|putenv|clearenv|environ|__environ
time|clock|clock_gettime|gettimeofday|localtime(_r)?|gmtime(_r)?|strftime|times|sleep|usleep|nanosleep
rand|srand|random|srandom|drand48|rand_r|getrandom|getpid|dlopen|dlsym|system|popen|exec.*|fork|syslog
slurm_.*|spank_.*|hwloc_.*|json_.*|jansson_.*|exit|abort
'
pattern=$(printf '%s\n' "$forbidden" | sed '/^$/d' | paste -sd'|' -)
pattern="^($pattern)(@.*)?\$"

# Each "file:line: X/private.h" where file, outside folder X, includes X's
# private header.  Copies of the tree (distcheck's lagom-*/) and VCS and
# autotools caches are not read.
private_includes() {
	(cd "$1" && find . \( -name .git -o -name autom4te.cache -o \
		-name 'lagom-[0-9]*' \) -prune -o \
		-type f \( -name '*.c' -o -name '*.h' \) -print) |
		sed 's|^\./||' | sort | while IFS= read -r f; do
		grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+/[^"/]*_int\.h"' \
			"$1/$f" 2>/dev/null |
			sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1 \2/' |
			while read -r line hdr; do
				case "$f" in
				"${hdr%/*}"/* | tests/"${hdr%/*}"/*) ;;
				*) echo "$f:$line: $hdr" ;;
				esac
			done
	done
}

# Each header named private other than by the rule (*_int.h), or that says
# in its opening comment that it is private to a folder but is not so named.
misnamed_private() {
	(cd "$1" && find . \( -name .git -o -name autom4te.cache -o \
		-name 'lagom-[0-9]*' \) -prune -o \
		-type f -name '*.h' -print) | sed 's|^\./||' | sort |
		while IFS= read -r h; do
			case "$h" in
			*internal*.h | *private*.h | *_priv.h | *_impl.h)
				echo "$h" ;;
			*_int.h) ;;
			*) head -n 6 "$1/$h" | grep -qiE 'private to [a-z_]+/' &&
				echo "$h" ;;
			esac
		done
}

# Headers for a narrower audience than their folder's public header: the
# header, then the folders (X/) and files that may include it.  tests/ may
# include anything.
audiences='
model/model_fast.h model/ search/
model/model_fit.h model/ profile/ planner/calib.h planner/consensus.h
'

# Each "file:line: header" where file includes an audience header it is
# not in the audience of.
audience_includes() {
	printf '%s\n' "$audiences" | sed '/^$/d' | while read -r hdr allowed; do
		(cd "$1" && grep -rnE --include='*.c' --include='*.h' \
			"^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$hdr\"" \
			--exclude-dir=.git --exclude-dir=autom4te.cache \
			--exclude-dir='lagom-[0-9]*' . 2>/dev/null) |
			sed 's|^\./||' | while IFS=: read -r f line _; do
				ok=
				case "$f" in tests/*) ok=1 ;; esac
				for a in $allowed; do
					case "$a" in
					*/) case "$f" in "$a"*) ok=1 ;; esac ;;
					*) [ "$f" = "$a" ] && ok=1 ;;
					esac
				done
				[ -n "$ok" ] || echo "$f:$line: $hdr"
			done
	done
}

src=
if [ "${1:-}" = --src ]; then
	src=$2
	shift 2
elif [ $# -eq 0 ]; then
	src=${top_srcdir:-.}
	set -- "$top_builddir/.libs/libmodel.a" "$top_builddir/.libs/libcatalog.a" \
		"$top_builddir/.libs/libsearch.a" \
		"$top_builddir/.libs/libpolicy.a"
fi

n=$#
[ -z "$src" ] || n=$((n + 3))
plan $n
if [ -n "$src" ]; then
	bad=$(private_includes "$src")
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | sed 's/^/# /'
		not_ok "no file includes another folder's private header:" \
			$(printf '%s\n' "$bad" | sed 's/:.*//' | tr '\n' ' ')
	else
		ok "no file includes another folder's private header"
	fi
	bad=$(audience_includes "$src")
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | sed 's/^/# /'
		not_ok "audience headers are included by their audience only:" \
			$(printf '%s\n' "$bad" | sed 's/:.*//' | tr '\n' ' ')
	else
		ok "audience headers are included by their audience only"
	fi
	bad=$(misnamed_private "$src")
	if [ -n "$bad" ]; then
		not_ok "private headers are named *_int.h:" $bad
	else
		ok "private headers are named *_int.h"
	fi
fi
for archive in "$@"; do
	if [ ! -f "$archive" ]; then
		not_ok "$archive: not built"
		continue
	fi
	bad=$(${NM:-nm} -u "$archive" 2>/dev/null | awk '{print $NF}' |
		grep -E "$pattern" | sort -u | tr '\n' ' ')
	if [ -n "$bad" ]; then
		not_ok "$(basename "$archive") is pure: calls $bad"
	else
		ok "$(basename "$archive") is pure"
	fi
done
done_testing
