#!/bin/sh
# tests/cli/plan-svg.sh - `lagom plan --svg FILE`: the plan drawn as plain
# SVG.  Checks the picture against the plan it draws (one panel per class,
# lagom's and NCCL's channel counts marked), renders it with a real SVG
# renderer (rsvg-convert, Debian's librsvg2-bin) and checks the PNG, and
# feeds it hostile input (markup in a workload name, a path it cannot
# write).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/cli/lib.sh"

plan 17

PROF=$top_srcdir/tests/profile/valid/a100-full.json
S=$TMP/plan.svg
run_lagom "$TMP/plan.json" "$TMP/err" plan --profile "$PROF" --nodes 2 \
	--workload llama-3.1-8b:fsdp --format json --svg "$S"
check "plan --svg: exit 0" [ "$rc" -eq 0 ]
check "plan --svg: the JSON plan is still printed" jtrue "$TMP/plan.json" 'd["command"] == "plan"'
check "plan --svg: the file is there" [ -s "$S" ]

# svgcheck SVG PLAN.json EXPR: parse the SVG (well-formed XML, <svg> root)
# and evaluate EXPR with svg = the root, panels = the class panels,
# plan = the JSON plan.
svgcheck() {
	python3 -c 'import json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
assert svg.tag == ns + "svg", svg.tag
panels = [g for g in svg.iter(ns + "g") if g.get("class") == "panel"]
plan = json.load(open(sys.argv[2])) if sys.argv[2] != "-" else None
text = "".join(svg.itertext())
sys.exit(0 if eval(sys.argv[3]) else 1)' "$@"
}
check "plan --svg: well-formed SVG with one panel per class of the plan" \
	svgcheck "$S" "$TMP/plan.json" 'len(panels) == min(len(plan["collectives"]), 16) and len(panels) > 0'
check "plan --svg: each panel marks the channels the plan chose for its class" \
	svgcheck "$S" "$TMP/plan.json" 'all(p.get("data-op") == c["op"] and int(p.get("data-bytes")) == c["bytes"] and int(p.get("data-lagom-nc")) == c["channels"] for p, c in zip(panels, plan["collectives"]) if c["channels"] > 0)'
check "plan --svg: each panel has the curves and both markers" \
	svgcheck "$S" "$TMP/plan.json" 'all(len(p.findall(ns + "polyline")) >= 4 and "NCCL" in "".join(p.itertext()) and "lagom" in "".join(p.itertext()) for p in panels)'
check "plan --svg: the title names the version and the plan id" \
	svgcheck "$S" "$TMP/plan.json" '("lagom %s plan %s" % (plan["lagom"], plan["plan_id"])) in text'
check "plan --svg: no script, no external reference" \
	sh -c "! grep -qiE '<script|xlink:href|href=|<image|<foreignObject' '$S'"

# A real renderer: rsvg-convert (librsvg) to PNG, then the pixels.
if command -v rsvg-convert >/dev/null 2>&1; then
	rsvg-convert -o "$TMP/plan.png" "$S" 2>"$TMP/rsvg.err"
	check "rsvg-convert renders it to PNG" [ -s "$TMP/plan.png" ]
	python3 "$top_srcdir/tests/cli/png_check.py" "$TMP/plan.png" 960 \
		'#2ca02c' '#1f77b4' '#ff7f0e' '#d62728' >"$TMP/png.out" 2>&1
	st=$?
	diag "$(head -1 "$TMP/png.out")"
	check "the PNG decodes, is 960 px wide, not uniform, with the region, computation, communication and NCCL colours" [ "$st" -eq 0 ]
	[ "$st" -eq 0 ] || sed 's/^/# /' "$TMP/png.out"
else
	skip "not checked: rsvg-convert not installed (Debian librsvg2-bin)"
	skip "not checked: rsvg-convert not installed (Debian librsvg2-bin)"
fi

# No workload: one setting for the catalog, no classes: a valid picture
# that says so.
run_lagom "$TMP/o" "$TMP/err" plan --profile "$PROF" --nodes 2 --svg "$TMP/none.svg"
check_that "plan --svg without a workload: a picture that says why it has no curves" \
	'[ "$rc" -eq 0 ] && svgcheck "$TMP/none.svg" - "len(panels) == 0 and \"no workload\" in text"'

# --svg -: the picture alone on standard output.
run_lagom "$TMP/o" "$TMP/err" plan --profile "$PROF" --nodes 1 --workload phi-2:fsdp --svg -
check_that "plan --svg -: only the SVG on stdout" \
	'[ "$rc" -eq 0 ] && head -1 "$TMP/o" | grep -q "^<?xml" && svgcheck "$TMP/o" - "True"'

# Hostile: a workload whose name is markup.
python3 - "$top_srcdir/tests/workload/data/valid/fsdp-layer.json" "$TMP/evil.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["name"] = '</text><script>alert(1)</script>&"x'
json.dump(w, open(sys.argv[2], "w"))
PY
run_lagom "$TMP/o" "$TMP/err" plan --profile "$PROF" --nodes 2 --gpus-per-node 8 \
	--workload "$TMP/evil.json" --svg "$TMP/evil.svg"
check "plan --svg with a workload named with markup: exit 0" [ "$rc" -eq 0 ]
check_that "... the name is escaped: well-formed, no <script> element" \
	'svgcheck "$TMP/evil.svg" - "\"<script>alert(1)</script>\" in text" && ! grep -q "<script" "$TMP/evil.svg"'

# Cannot write: one line, exit 1, nothing left behind; an old file stays.
expect_status 1 "plan --svg into a missing folder: one lagom: line, exit 1" \
	plan --profile "$PROF" --nodes 2 --workload phi-2:fsdp --svg "$TMP/no/such/dir/p.svg"
# (root writes anywhere: then the same as nobody, through setpriv)
mkdir "$TMP/ro" && cp "$S" "$TMP/ro/keep.svg" && chmod 0555 "$TMP/ro"
as_user=
lagom_as=$LAGOM prof_as=$PROF
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 0755 "$TMP"
	# A tree under a 0700 folder (root's home, a mktemp -d: where
	# dpkg-buildpackage runs) is closed to nobody: run copies from $TMP.
	if ! $as_user test -x "$LAGOM" || ! $as_user test -r "$PROF"; then
		diag "nobody cannot reach the build tree: copies of lagom and the profile in $TMP"
		cp "$LAGOM" "$TMP/lagom" && cp "$PROF" "$TMP/profile.json" &&
			chmod 0755 "$TMP/lagom" && chmod 0644 "$TMP/profile.json"
		lagom_as=$TMP/lagom prof_as=$TMP/profile.json
	fi
	$as_user test -x "$lagom_as" || as_user=
fi
$as_user "$lagom_as" plan --profile "$prof_as" --nodes 2 --workload phi-2:fsdp \
	--svg "$TMP/ro/keep.svg" >/dev/null 2>"$TMP/err2"
rc=$?
chmod 0755 "$TMP/ro"
if [ "$(id -u)" -eq 0 ] && [ -z "$as_user" ]; then
	skip "not checked: root writes into a read-only folder, and nobody cannot run lagom here (no setpriv, or $TMP closed to nobody)"
else
	check_that "plan --svg into a read-only folder: exit 1, one line, the old picture intact, no temporary left" \
		'[ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err2")" -eq 1 ] && cmp -s "$S" "$TMP/ro/keep.svg" && [ "$(ls "$TMP/ro")" = keep.svg ]'
fi
check_that "no temporary file is left beside the pictures" '! ls "$TMP" | grep -q "\.svg\."'
done_testing
