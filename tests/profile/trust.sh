#!/bin/sh
# Trust policy of the profile reader: the directory and the file must be owned
# by root (or the configured uid) and not writable by group or others, and
# the file must not be a symlink.  Needs root to give files to another user.
. "${top_srcdir:-.}/tests/lib/tap.sh"

tool="$top_builddir/tests/profile/profile_tool"
[ -x "$tool" ] || plan_skip_all "profile_tool not built"
[ "$(id -u)" -eq 0 ] || plan_skip_all "needs root (to chown profiles to another user)"
nobody=$(id -u nobody 2>/dev/null) || plan_skip_all "no 'nobody' user to own files"

plan 13
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
d="$tmp/profiles"
mkdir -m 0755 "$d" "$tmp/outside"
"$tool" sample gpu001 4 > "$d/gpu001.json"
chmod 0644 "$d/gpu001.json"

# expect DESCRIPTION PATTERN tool-args...: the output matches the pattern.
expect() {
	what=$1 pat=$2
	shift 2
	out=$("$tool" "$@")
	case $out in
	$pat) ok "$what: $out" ;;
	*) not_ok "$what: got '$out', want '$pat'" ;;
	esac
}

expect "root-owned 0644 file in a 0755 dir is trusted" ok load "$d" gpu001 0

chmod 0775 "$d"
expect "group-writable directory is rejected" \
	"profile $d/gpu001.json: directory $d is writable by group or others (mode 0775)" \
	load "$d" gpu001 0
chmod 0757 "$d"
expect "world-writable directory is rejected" "*writable by group or others (mode 0757)" \
	load "$d" gpu001 0
chmod 0755 "$d"

chmod 0664 "$d/gpu001.json"
expect "group-writable file is rejected" \
	"profile $d/gpu001.json: file gpu001.json is writable by group or others (mode 0664)" \
	load "$d" gpu001 0
chmod 0644 "$d/gpu001.json"

chown nobody "$d/gpu001.json"
expect "file owned by another user is rejected" \
	"profile $d/gpu001.json: file gpu001.json is owned by uid $nobody, not root" \
	load "$d" gpu001 0
expect "file owned by the configured SlurmUser uid is trusted" ok \
	load "$d" gpu001 "$nobody"
chown root "$d/gpu001.json"

chown nobody "$d"
expect "directory owned by another user is rejected" \
	"profile $d/gpu001.json: directory $d is owned by uid $nobody, not root" \
	load "$d" gpu001 0
chown root "$d"

mv "$d/gpu001.json" "$tmp/outside/gpu001.json"
ln -s "$tmp/outside/gpu001.json" "$d/gpu001.json"
expect "symlink out of the directory is rejected" \
	"profile $d/gpu001.json: a symbolic link" load "$d" gpu001 0
expect "relaxed mode (no trust) follows the symlink" ok load "$d" gpu001
rm "$d/gpu001.json"

expect "missing profile is ENOENT" \
	"profile $d/gpu001.json: No such file or directory" load "$d" gpu001 0

mkfifo -m 0644 "$d/gpu001.json"
expect "a FIFO is rejected without blocking" \
	"profile $d/gpu001.json: not a regular file" load "$d" gpu001 0
rm "$d/gpu001.json"

"$tool" sample gpu002 4 > "$d/gpu001.json"
expect "a profile written for another node is rejected" \
	"profile $d/gpu001.json: written for node \"gpu002\"" load "$d" gpu001 0
expect "a node name with a slash is refused before any open" \
	"\"../gpu001\" is not a valid node name" load "$d" ../gpu001 0
done_testing
