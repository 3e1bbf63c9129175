#!/bin/sh
# The pure core (model/, catalog/, search/) does no I/O, reads no environment or clock
# and calls no Slurm, hwloc or jansson function.  This reads the undefined
# symbols of the core's archives (nm -u) and fails on any forbidden one.
#
#   purity.sh [ARCHIVE...]   default: the core archives of the build tree
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

if [ $# -eq 0 ]; then
	set -- "$top_builddir/.libs/libmodel.a" "$top_builddir/.libs/libcatalog.a" \
		"$top_builddir/.libs/libsearch.a"
fi

plan $#
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
