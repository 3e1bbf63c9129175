#!/bin/bash
# tests/spank/mounts.sh - which mounts show the tuner inside an OCI
# container: every case of tests/spank/mount_cases.txt judged by lagom's
# reader (spank/container_mounts.c, through tests/spank/mounts_judge) on a
# real bundle with a real root file system, and, where runc can run a
# bundle here (root, runc, Debian's busybox-static for the container's
# shell), by runc itself: the test passes when both say what the case
# says.
. "$top_srcdir/tests/lib/tap.sh"

JUDGE=$top_builddir/tests/spank/mounts_judge
CASES=$top_srcdir/tests/spank/mount_cases.txt
[ -x "$JUDGE" ] || plan_skip_all "$JUDGE not built"
command -v python3 >/dev/null 2>&1 || plan_skip_all "python3 not installed"

tmp=$(mktemp -d /tmp/lagom-mounts.XXXXXX) || exit 1
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
host=$tmp/host/lagom
rootfs=$tmp/bundle/rootfs
mkdir -p "$host/lib" "$rootfs/bin" "$rootfs/proc" "$rootfs/dev" \
	"$rootfs/sys" "$rootfs/opt" "$rootfs/srv"
printf 'tuner\n' >"$host/lib/t.so.1"
ln -s t.so.1 "$host/lib/t.so"
ln -s "$host" "$rootfs/opt/l"
ln -s "..$host/lib" "$rootfs/srv/m"
ln -s "../../../../../../../..$host" "$rootfs/srv/esc"
ln -s loop "$rootfs/srv/loop"

# runc where it can run a bundle: its reason otherwise
why_no_runc=
if [ "$(id -u)" != 0 ]; then
	why_no_runc="runc runs as root only here"
elif ! command -v runc >/dev/null 2>&1; then
	why_no_runc="runc not installed (apt-get install runc)"
else
	deb=$(ls /var/cache/apt/archives/busybox-static_*.deb 2>/dev/null |
		head -n 1)
	[ -n "$deb" ] || (cd "$tmp" && timeout 60 apt-get download \
		busybox-static >/dev/null 2>&1) &&
		deb=${deb:-$(ls "$tmp"/busybox-static_*.deb 2>/dev/null)}
	if [ -n "$deb" ] && dpkg-deb -x "$deb" "$tmp/deb"; then
		cp "$tmp/deb/bin/busybox" "$rootfs/bin/busybox"
	elif [ -x /bin/busybox ] && dpkg -s busybox-static >/dev/null 2>&1; then
		cp /bin/busybox "$rootfs/bin/busybox"
	else
		why_no_runc="no busybox-static package for the container's shell"
	fi
fi
if [ -z "$why_no_runc" ]; then
	ln -s busybox "$rootfs/bin/sh"
	(cd "$tmp/bundle" && runc spec && mv config.json base.json) ||
		why_no_runc="runc spec failed"
fi
[ -n "$why_no_runc" ] && diag "runc not tried: $why_no_runc"

# config DIR WANT MOUNT...: DIR/config.json for the case's mounts
config() {
	python3 - "$@" <<'PY'
import json, os, sys
d, host, mounts = sys.argv[1], sys.argv[2], sys.argv[3:]
base = os.path.join(d, "base.json")
c = json.load(open(base)) if os.path.exists(base) else {"mounts": []}
c["root"] = {"path": "rootfs", "readonly": False}
c.setdefault("process", {})["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", "test -f %s/lib/t.so && "
                        "echo visible || echo hidden" % host]
for m in mounts:
    m = m.replace("@", host).replace("%", host[1:])
    f = m.split(",")
    e = {"destination": f[0], "type": f[1]}
    if f[1] == "bind":
        e.update(source=f[2], options=["rbind", "ro"])
    else:
        e.update(source="tmpfs", options=["nosuid"])
    c["mounts"].append(e)
json.dump(c, open(os.path.join(d, "config.json"), "w"))
PY
}

n=0
while read -r want mounts; do
	case $want in '' | '#'*) continue ;; esac
	n=$((n + 1))
	# shellcheck disable=SC2086 # the mounts are words
	config "$tmp/bundle" "$host" $mounts || exit 1
	got=$("$JUDGE" "$tmp/bundle" "$host/lib/t.so")
	check_that "lagom's reader: $want for '${mounts:-no mounts}' (got $got)" \
		'[ "$got" = "$want" ]'
	if [ -n "$why_no_runc" ]; then
		skip "runc: $why_no_runc"
		continue
	fi
	seen=$(cd "$tmp/bundle" && timeout 30 runc --root "$tmp/state" run \
		"lagom-mounts-$$-$n" 2>"$tmp/runc.err" </dev/null)
	runc_says=0
	[ "$seen" = visible ] && runc_says=1
	[ "$seen" = visible ] || [ "$seen" = hidden ] ||
		diag "runc did not run case $n: $(tail -n 1 "$tmp/runc.err")"
	check_that "runc: $want for '${mounts:-no mounts}' (saw ${seen:-nothing})" \
		'[ "$runc_says" = "$want" ]'
done <"$CASES"
echo "1..$tap_n"
done_testing
