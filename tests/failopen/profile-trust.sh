#!/bin/sh
# tests/failopen/profile-trust.sh - the trusted profile reader checks every
# directory above the profile directory, as sshd's StrictModes does: owned
# by root (or the trusted uid), not writable by group or others unless
# sticky.  A user who owns or may write an ancestor could swap the
# root-owned profile directory for their own.  The path is walked as
# given and no link on it is followed (issue #25: a link in a user's
# directory that leads to a root-owned one used to be resolved first, so
# the user's directory was never checked and the user could point every
# plan at any root-owned directory).
. "${top_srcdir:-.}/tests/lib/tap.sh"

tool="$top_builddir/tests/profile/profile_tool"
[ -x "$tool" ] || plan_skip_all "profile_tool not built"
[ "$(id -u)" -eq 0 ] || plan_skip_all "not root: the test makes directories owned by another user"
id nobody >/dev/null 2>&1 || plan_skip_all "no user 'nobody'"

plan 12
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"

# profiles DIR: DIR/p holds a trusted profile of node tnode
profiles() {
	install -d -m 0755 "$1/p"
	"$tool" sample tnode 1 >"$1/p/tnode.json"
	chmod 0644 "$1/p/tnode.json"
}
load() { "$tool" load "$1" tnode 0 2>&1; }

profiles "$tmp/good"
check "a profile directory whose ancestors are all root's: read" \
	[ "$(load "$tmp/good/p")" = ok ]
install -d -o nobody -m 0755 "$tmp/user"
profiles "$tmp/user"
out=$(load "$tmp/user/p")
check "an ancestor owned by another user: refused" [ "$out" != ok ]
check "... naming it" sh -c "echo '$out' | grep -q '$tmp/user (holding the profile directory) is owned by uid $(id -u nobody)'"
install -d -o nobody -m 0755 "$tmp/deep"
install -d -m 0755 "$tmp/deep/a" "$tmp/deep/a/b"
profiles "$tmp/deep/a/b"
check "an owned ancestor three levels up: refused" [ "$(load "$tmp/deep/a/b/p")" != ok ]
install -d -m 0775 "$tmp/gw"
profiles "$tmp/gw"
out=$(load "$tmp/gw/p")
check "a group-writable ancestor: refused" \
	sh -c "echo '$out' | grep -q 'writable by group or others without the sticky bit'"
install -d -m 0757 "$tmp/ow"
profiles "$tmp/ow"
check "a world-writable ancestor: refused" [ "$(load "$tmp/ow/p")" != ok ]
install -d -m 1777 "$tmp/sticky"
profiles "$tmp/sticky"
check "a sticky world-writable ancestor (like /tmp): read" [ "$(load "$tmp/sticky/p")" = ok ]
ln -s "$tmp/user" "$tmp/link-to-user"
check "a root-owned link into a user's directory: refused (the target is checked)" \
	[ "$(load "$tmp/link-to-user/p")" != ok ]
ln -s "$tmp/good" "$tmp/link-to-good"
out=$(load "$tmp/link-to-good/p")
check "a link to a trusted directory: refused, naming the link (no link is followed)" \
	sh -c "echo '$out' | grep -q '$tmp/link-to-good is a symbolic link'"
install -d -o nobody -m 0755 "$tmp/alice"
runuser -u nobody -- ln -s "$tmp/good" "$tmp/alice/lagom"
out=$(load "$tmp/alice/lagom/p")
check "a user's link to a trusted directory, in the user's own directory: refused" [ "$out" != ok ]
check "... naming the user's directory, which realpath() never showed" \
	sh -c "echo '$out' | grep -q '$tmp/alice (holding the profile directory) is owned by uid $(id -u nobody)'"
chmod 0775 "$tmp/good/p"
check "the profile directory itself group-writable (sticky or not): refused" \
	[ "$(load "$tmp/good/p")" != ok ]
done_testing
