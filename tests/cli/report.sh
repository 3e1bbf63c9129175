#!/bin/sh
# lagom report on a synthetic spool (tests/cli/report_spool.py writes the
# steps as the profiler and the SPANK plugin leave them): a class whose
# tuned steps are 1.10x faster than its controls, one 0.95x slower, one
# with no difference (--lagom=measure steps as its untuned arm), one with
# too few controls, and untuned steps with no arm that are not compared;
# a step srun reverted after the lossy class's runs, which lagom runs
# explains with the figure the report gives.
# Every figure of the JSON is computed again here, independently (medians,
# the Hodges-Lehmann speedup, the exact Mann-Whitney interval from integer
# counts); the text and HTML say the same; hostile files are refused one
# by one; a user sees only their own steps, root everyone's.
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/cli/lib.sh"

plan 18
ME=$(id -un)
SP="$TMP/spool"
python3 "$top_srcdir/tests/cli/report_spool.py" "$SP" "$ME" 100 \
	gainy:tuned:12:1.10:0.03:1.07 gainy:control:10:1:0.03:1.07 \
	lossy:tuned:10:0.95:0.02:1.05 lossy:control:10:1:0.02:1.05 \
	same:tuned:10:1:0.03 same:measure:10:1:0.03 \
	few:tuned:5:1.1:0.03 few:control:1:1:0.03 \
	other:untuned:3:1:0.03 lossy:revert:1:1:0.02 >"$TMP/truth.json" || exit 1

run_lagom "$TMP/r.json" "$TMP/err" report --spool "$SP" --user "$ME" \
	--format json
[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && ok "json: exit 0, no message" ||
	{ not_ok "json: exit $rc"; sed 's/^/# /' "$TMP/err"; }

python3 - "$TMP/r.json" "$TMP/truth.json" >"$TMP/check" <<'PY'
import json, math, sys
from fractions import Fraction
from functools import lru_cache

doc = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
got = {c["class"].split()[0][4:]: c for c in doc["classes"]}

def median(v):
    v = sorted(v); n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

@lru_cache(None)
def count(n, m, u):  # arrangements of n x's and m y's with U = u
    if u < 0: return 0
    if n == 0 or m == 0: return 1 if u == 0 else 0
    return count(n - 1, m, u - m) + count(n, m - 1, u)

def interval(t, c):
    n, m = len(t), len(c)
    total = math.comb(n + m, n)
    d = sorted(math.log(x) - math.log(y) for x in c for y in t)
    k, cdf = 0, Fraction(0)
    for u in range(n * m):
        if cdf + Fraction(count(n, m, u), total) > Fraction(1, 40): break
        cdf += Fraction(count(n, m, u), total); k = u + 1
    hl = math.exp(median(d))
    if k == 0: return hl, None, None
    return hl, math.exp(d[k - 1]), math.exp(d[n * m - k])

want_verdict = {"gainy": "gain", "lossy": "loss", "same": "none",
                "few": "too-few"}
bad = []
if set(got) != set(want_verdict):
    bad.append("classes %s" % sorted(got))
for name, verdict in want_verdict.items():
    c, tr = got.get(name, {}), truth[name]
    t = tr["tuned"]; k = tr.get("control", []) + tr.get("measure", [])
    hl, lo, hi = interval(t, k)
    checks = [("verdict", c.get("verdict"), verdict),
              ("tuned_runs", c.get("tuned_runs"), len(t)),
              ("control_runs", c.get("control_runs"), len(k)),
              ("median_tuned_ms", c.get("median_tuned_ms"), median(t) * 1e3),
              ("median_control_ms", c.get("median_control_ms"),
               median(k) * 1e3),
              ("speedup", c.get("speedup"), hl),
              ("lo", c.get("lo"), lo), ("hi", c.get("hi"), hi)]
    for what, g, w in checks:
        if isinstance(w, str):
            if g != w:
                bad.append("%s %s: %s, want %s" % (name, what, g, w))
        elif (w is None) != (g is None) or (
                w is not None and abs(g - w) > 1e-6 * max(1, abs(w))):
            bad.append("%s %s: %s, want %s" % (name, what, g, w))
if got["same"]["measure_runs"] != 10:
    bad.append("measure runs %s" % got["same"]["measure_runs"])
if abs(got["gainy"]["predicted_speedup"] - 1.07) > 1e-6:
    bad.append("predicted %s" % got["gainy"]["predicted_speedup"])
site = doc["site"]
cmp = [c for c in doc["classes"] if c["verdict"] != "too-few"]
s = sum(c["saved_gpu_hours"] for c in cmp)
if (site["compared"], site["classes"], site["users"]) != (3, 4, 1) or \
        abs(site["saved_gpu_hours"] - s) > 1e-6 or \
        not site["saved_lo_gpu_hours"] <= s <= site["saved_hi_gpu_hours"]:
    bad.append("site %s" % site)
g = got["gainy"]
if abs(g["saved_gpu_hours"] - g["tuned_gpu_hours"] * (g["speedup"] - 1)) > 1e-6:
    bad.append("gainy saved %s" % g)
print("\n".join(bad) if bad else "all equal")
for c in doc["classes"]:
    print("# %s %s %s [%s, %s]" % (c["class"].split()[0], c["verdict"],
          c["speedup"], c["lo"], c["hi"]))
PY
sed 's/^/# /' "$TMP/check"
head -1 "$TMP/check" | grep -qx 'all equal' &&
	ok "json: verdicts gain/loss/none/too-few; runs, medians, speedup and exact interval equal an independent computation" ||
	not_ok "json: figures differ"
jtrue "$TMP/r.json" "d['classes'][1]['exact'] and d['classes'][1]['level'] >= 0.95 and d['classes'][1]['metric'] == 'iteration'" &&
	ok "json: exact interval at >= 95 %, by iteration time" ||
	not_ok "json: $(jget "$TMP/r.json" "d['classes'][1]")"
jtrue "$TMP/r.json" "not any(c['class'].startswith('job:other') for c in d['classes'])" &&
	ok "json: untuned steps with no arm are not compared" ||
	not_ok "json: untuned steps compared"

run_lagom "$TMP/r.txt" "$TMP/err" report --spool "$SP"
sed 's/^/# /' "$TMP/r.txt"
[ $rc -eq 0 ] && grep -q "job:gainy shape:1x2x2 workload:-  *12  *10 .*\[.*\]  *1.070x  *gain" "$TMP/r.txt" &&
	grep -q "job:lossy .* loss$" "$TMP/r.txt" &&
	grep -q "resting on 1 user(s)" "$TMP/r.txt" &&
	ok "text: the classes, their verdicts and the site line" ||
	not_ok "text: exit $rc"
sp=$(jget "$TMP/r.json" "'%.3f' % [c for c in d['classes'] if c['class'].startswith('job:lossy')][0]['speedup']")
grep -q "job:lossy .* ${sp}x " "$TMP/r.txt" &&
	ok "text: the speedup the JSON gives (${sp}x)" || not_ok "text: no ${sp}x"

run_lagom "$TMP/r.html" "$TMP/err" report --spool "$SP" --format html
python3 "$top_srcdir/tests/cli/report_html_check.py" "$TMP/r.html" "$TMP/r.json" >"$TMP/hcheck"
sed 's/^/# /' "$TMP/hcheck"
[ $rc -eq 0 ] && head -1 "$TMP/hcheck" | grep -qx 'all equal' &&
	ok "html: two SVG charts; every figure of the table equals the JSON's" ||
	not_ok "html: exit $rc"
grep -q '<script\|src=\|href=' "$TMP/r.html" &&
	not_ok "html: refers to something outside the page" ||
	ok "html: self-contained (no script, no outside resource)"

# lagom runs: the reverted step says why, with the lossy class's figures
# (the runs before it: all of the class's tuned and control runs).
run_lagom "$TMP/runs.json" "$TMP/err" runs --spool "$SP" --format json
python3 - "$TMP/runs.json" "$TMP/r.json" >"$TMP/rcheck" <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
lossy = [c for c in json.load(open(sys.argv[2]))["classes"]
         if c["class"].startswith("job:lossy")][0]
rev = [s for s in steps if s["arm"] == "revert"]
bad = [] if len(rev) == 1 else ["%d reverted steps" % len(rev)]
r = rev[0]["reverted"] if rev else None
if not r or (r["tuned_runs"], r["control_runs"], r["verdict"]) != (
        lossy["tuned_runs"], lossy["control_runs"], "loss"):
    bad.append("reverted %s" % r)
for k in ("speedup", "lo", "hi"):
    if r and abs(r[k] - lossy[k]) > 1e-6:
        bad.append("%s %s != %s" % (k, r[k], lossy[k]))
if any(s["reverted"] for s in steps if s["arm"] != "revert"):
    bad.append("a step that was not reverted has a figure")
print("\n".join(bad) if bad else "%s %.2fx [%.2f, %.2f]" % (
    rev[0]["dir"], r["speedup"], r["lo"], r["hi"]))
PY
sed 's/^/# /' "$TMP/rcheck"
[ $rc -eq 0 ] && grep -q "^[0-9.]* [0-9.]*x \[" "$TMP/rcheck" &&
	ok "runs: JSON reverted: the lossy class's runs before it, the report's figures" ||
	not_ok "runs: JSON reverted (exit $rc)"
run_lagom "$TMP/out" "$TMP/err" runs --spool "$SP"
want=$(sed -n '1s/^[^ ]* \(.*\)$/\1/p' "$TMP/rcheck")
[ -n "$want" ] && grep -qF "arm revert (NCCL's defaults; plan 00000000000000aa not applied), reverted: measured $want over 20 runs before it" "$TMP/out" &&
	ok "runs: text says reverted: measured $want over 20 runs before it" ||
	{ not_ok "runs: text"; grep revert "$TMP/out" | sed 's/^/# /'; }

# Hostile files: each refused with one line, the rest still reported.
D="$SP/$ME/100.0"
ln -s "$D/task-0.1000.rec" "$D/link.rec"
printf 'lagom-measure 1\nabi 9\n' >"$D/bad.rec"
printf 'lagom-predicted 1\nplan zz\n' >"$SP/$ME/101.0/predicted"
run_lagom "$TMP/out" "$TMP/err" report --spool "$SP" --format json
sed 's/^/# /' "$TMP/err"
[ $rc -eq 1 ] && [ "$(grep -c '^lagom: report: refused' "$TMP/err")" -eq 3 ] &&
	ok "refused: a link, a corrupt record and a corrupt predictions file, one line each, exit 1" ||
	not_ok "refused: exit $rc, $(wc -l <"$TMP/err") line(s)"
jtrue "$TMP/out" "[c['tuned_runs'] for c in d['classes'] if c['class'].startswith('job:gainy')] == [12]" &&
	ok "refused: the rest still reported (a tuned step's records say it ran the plan, without its predictions too)" ||
	not_ok "refused: tuned runs $(jget "$TMP/out" "[c['tuned_runs'] for c in d['classes']]")"
rm -f "$D/link.rec" "$D/bad.rec"

# lagom runs says which steps were controls (gainy's controls: jobs 112-121)
run_lagom "$TMP/out" "$TMP/err" runs --spool "$SP" --user "$ME" "$SP/$ME/112.0"
grep -q "arm control (NCCL's defaults; plan 00000000000000aa not applied)" "$TMP/out" &&
	ok "runs: a control step says arm control, and the plan it stood in for" ||
	{ not_ok "runs: exit $rc"; sed 's/^/# /' "$TMP/out"; }
run_lagom "$TMP/out" "$TMP/err" runs --spool "$SP" --user "$ME" --format json \
	"$SP/$ME/112.0" "$SP/$ME/111.0"
jtrue "$TMP/out" "[s['arm'] for s in d['steps']] == ['control', None]" &&
	ok "runs: JSON arm control, null for a tuned step" ||
	not_ok "runs: JSON $(jget "$TMP/out" "[s.get('arm') for s in d['steps']]")"

expect_status 2 "usage: a stray operand" report --spool "$SP" extra
expect_status 2 "usage: a bad format" report --format yaml

# Root sees every user; anyone else only themselves.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null 2>&1; then
	python3 "$top_srcdir/tests/cli/report_spool.py" "$SP" nobody 900 \
		lossy:tuned:10:0.95:0.02 lossy:control:10:1:0.02 >/dev/null
	chown -R nobody "$SP/nobody"
	chmod 755 "$TMP" "$SP"
	run_lagom "$TMP/all.json" "$TMP/err" report --spool "$SP" --format json
	jtrue "$TMP/all.json" "d['site']['users'] == 2 and sorted({c['user'] for c in d['classes']}) == sorted(['$ME', 'nobody'])" &&
		ok "root: every user's classes; site totals rest on 2 users" ||
		not_ok "root: $(jget "$TMP/all.json" "d['site']")"
	setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
		"$LAGOM" report --spool "$SP" --user "$ME" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "only root" "$TMP/err" &&
		ok "a user cannot ask for another user's steps" ||
		not_ok "another user's steps: exit $rc"
else
	skip "root sees every user: needs root, user nobody and setpriv"
	skip "another user's steps: needs root, user nobody and setpriv"
fi
