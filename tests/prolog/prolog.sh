#!/bin/sh
# lagom-prolog on this node: writes a valid profile (topology-only where the
# node has no GPU), never fails at run time, is a no-op within the TTL,
# re-measures when the hardware fingerprint changes, runs clean under
# valgrind.
. "${top_srcdir:-.}/tests/lib/tap.sh"

prolog="$top_builddir/lagom-prolog"
tool="$top_builddir/tests/profile/profile_tool"
[ -x "$prolog" ] || plan_skip_all "lagom-prolog not built"
[ -x "$tool" ] || plan_skip_all "profile_tool not built"

plan 30
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
d="$tmp/profiles"
mkdir -m 0755 "$d"
# No plugstack.conf of the host may change the test.
echo "# no lagom here" > "$tmp/plugstack.conf"
run() { "$prolog" --plugstack "$tmp/plugstack.conf" --node tnode "$@"; }
inode() { stat -c %i "$d/tnode.json" 2>/dev/null; }

out=$("$prolog" --help)
check "--help exits 0 and prints the usage" [ $? -eq 0 ]
case $out in *"Usage: lagom-prolog"*) ok "--help text" ;; *) not_ok "--help text" ;; esac
run --no-such-option 2>/dev/null
check "an unknown option is a usage error (exit 2)" [ $? -eq 2 ]
run --ttl soon 2>/dev/null
check "a bad --ttl is a usage error (exit 2)" [ $? -eq 2 ]

run --profile-dir "$d" 2>"$tmp/err1"
check "first run exits 0" [ $? -eq 0 ]
check "first run writes a profile the trusted reader accepts" \
	[ "$("$tool" load "$d" tnode "$(id -u)")" = ok ]
check "first run adds the node to the cluster digest" \
	grep -q "^node tnode ino=$(stat -c %i "$d/tnode.json") " \
	"$d/lagom-cluster.digest.d/digest"
check "the digest is 0644 in a 0755 directory, its lock 0600" \
	[ "$(stat -c %a "$d/lagom-cluster.digest.d/digest" "$d/lagom-cluster.digest.d" "$d/lagom-cluster.digest.lock" | tr '\n' ' ')" = "644 755 600 " ]
check "the digest is sealed with the profile directory's inode and change time" \
	grep -q "^lagom-digest 4 seal=$(stat -c %i "$d"):$(stat -c %Z "$d")\.[0-9]\{9\}\$" "$d/lagom-cluster.digest.d/digest"
rm "$d/lagom-cluster.digest.d/digest"
run --profile-dir "$d" 2>/dev/null
check "a fresh profile missing from the digest is added" \
	grep -q "^node tnode " "$d/lagom-cluster.digest.d/digest"
cp "$d/tnode.json" "$d/tnode2.json.tmp"
sed 's/"tnode"/"tnode2"/' "$d/tnode2.json.tmp" > "$d/tnode2.json"
rm "$d/tnode2.json.tmp"
run --profile-dir "$d" --digest 2>/dev/null
check "--digest takes in every profile of the directory" \
	[ "$(grep -c '^node ' "$d/lagom-cluster.digest.d/digest")" = 2 ]
rm "$d/tnode2.json"
mkdir -m 0755 "$tmp/many"
for i in 1 2 3 4 5 6 7 8; do
	"$prolog" --plugstack "$tmp/plugstack.conf" --node "c$i" \
		--profile-dir "$tmp/many" --budget 0 2>/dev/null &
done
wait
check "8 prologs at once: the digest holds all 8 nodes" \
	[ "$(grep -c '^node c' "$tmp/many/lagom-cluster.digest.d/digest")" = 8 ]
if [ -e /dev/nvidiactl ]; then
	skip "this node has an NVIDIA device: not a topology-only node"
else
	check "without a GPU the profile is topology-only" \
		grep -q '"measurements": {}' "$d/tnode.json"
fi
check "the profile says why nothing was measured" \
	grep -q '"note": ' "$d/tnode.json"

first=$(inode)
run --profile-dir "$d" -v 2>"$tmp/err2"
check "second run within the TTL exits 0" [ $? -eq 0 ]
check "second run within the TTL leaves the profile alone" [ "$(inode)" = "$first" ]
check "second run says the profile is fresh" grep -q "is fresh" "$tmp/err2"

run --profile-dir "$d" --ttl 0 2>/dev/null
check "--ttl 0 re-measures (a new file replaced the old)" [ "$(inode)" != "$first" ]

"$tool" sample tnode 3 > "$d/tnode.json"
run --profile-dir "$d" --ttl 1000000000 2>"$tmp/err3"
check "another hardware fingerprint makes it re-measure" \
	grep -q "hardware of tnode changed" "$tmp/err3"
check "... and says an older lagom-prolog's spec-table values may be why" \
	grep -q "older lagom-prolog wrote the profile with spec-table values" \
	"$tmp/err3"
check "... and the new profile is valid" [ "$("$tool" load "$d" tnode)" = ok ]

echo '{"format": "lagom-profile", "vers' > "$d/tnode.json"
run --profile-dir "$d" 2>/dev/null
check "a corrupt profile is replaced, exit 0" \
	[ $? -eq 0 -a "$("$tool" load "$d" tnode)" = ok ]

run --profile-dir "$tmp/missing" 2>"$tmp/err4"
st=$?
if [ $st -eq 0 ] && grep -q "No such file or directory" "$tmp/err4"; then
	ok "an unwritable profile dir is logged, exit still 0"
else
	not_ok "an unwritable profile dir is logged, exit still 0 (exit $st)"
fi

run --profile-dir "$tmp/dry" --dry-run --print > "$tmp/dry.json" 2>/dev/null
check "--dry-run --print prints a valid profile and writes nothing" \
	[ ! -e "$tmp/dry" -a "$("$tool" read "$tmp/dry.json")" = ok ]

run --profile-dir "$d" --force --budget 0 -v 2>"$tmp/err5"
check "--budget 0 stops the probes and still writes a profile" \
	grep -q "stopped" "$tmp/err5"

mkdir -m 0755 "$tmp/from-plugstack"
cat > "$tmp/plugstack2.conf" <<EOC
# lagom's line, as the admin writes it
optional /usr/lib/x86_64-linux-gnu/slurm-wlm/other.so x=1
required /usr/lib/x86_64-linux-gnu/slurm-wlm/lagom.so default=auto profile_dir=$tmp/from-plugstack
EOC
"$prolog" --plugstack "$tmp/plugstack2.conf" --node tnode 2>/dev/null
check "profile_dir= of lagom's plugstack.conf line is the default" \
	[ -e "$tmp/from-plugstack/tnode.json" ]

"$prolog" --plugstack "$tmp/plugstack.conf" --node ../etc --profile-dir "$d" 2>"$tmp/err6"
st=$?
if [ $st -eq 0 ] && grep -q "no usable node name" "$tmp/err6"; then
	ok "a bad node name writes nothing, exit 0"
else
	not_ok "a bad node name writes nothing, exit 0 (exit $st)"
fi

wrapper="$top_srcdir/contrib/prolog/lagom-prolog.sh"
SLURM_JOB_GPUS=0 LAGOM_PROLOG=/bin/false sh "$wrapper" 2>/dev/null
check "the Prolog wrapper exits 0 when lagom-prolog fails" [ $? -eq 0 ]
printf '#!/bin/sh\ntouch "%s/ran"\n' "$tmp" > "$tmp/fake-prolog"
chmod +x "$tmp/fake-prolog"
env -u SLURM_JOB_GPUS -u CUDA_VISIBLE_DEVICES LAGOM_PROLOG="$tmp/fake-prolog" \
	sh "$wrapper" 2>/dev/null
check "the Prolog wrapper skips jobs without GPUs" [ $? -eq 0 -a ! -e "$tmp/ran" ]

if [ -z "$VALGRIND" ]; then
	skip "valgrind not installed"
elif [ -n "$LAGOM_SANITIZED" ]; then
	skip "sanitizer build: valgrind cannot run ASan binaries"
else
	# leaks inside system libraries: tests/valgrind/*.supp, each file
	# says whose (--keep-debuginfo: name frames of unloaded plugins)
	vg_supp=
	for f in "$top_srcdir"/tests/valgrind/*.supp; do
		vg_supp="$vg_supp --suppressions=$f"
	done
	$VALGRIND -q --error-exitcode=1 --leak-check=full --keep-debuginfo=yes \
		$vg_supp "$prolog" \
		--plugstack "$tmp/plugstack.conf" --node tnode \
		--profile-dir "$d" --force > "$tmp/vg.out" 2>&1
	st=$?
	[ $st -eq 0 ] || sed 's/^/# /' "$tmp/vg.out"
	check "lagom-prolog runs clean under valgrind" [ $st -eq 0 ]
fi
done_testing
