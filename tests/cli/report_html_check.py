#!/usr/bin/env python3
"""tests/cli/report_html_check.py HTML JSON: the classes table of a
`lagom report --format html` page (as written, or as chromium's
--dump-dom gives it back) holds the figures of `lagom report --format
json`, printed to three decimals, and the page has its two SVG charts,
each with ticks on its axes whose values are the values where they stand:
every point of a chart lies where the ticks put the JSON's figure (within
a pixel; the speedup chart's x, the scatter's x predicted and y measured).
Prints "all equal" or one line per difference."""
import json, re, sys
from html.parser import HTMLParser
doc = json.load(open(sys.argv[2]))
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.rows = []; s.k = None; s.svg = 0
        s.charts = {}; s.chart = None; s.tick = None
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "tr": s.rows.append({})
        if "data-k" in a and s.rows: s.k = a["data-k"]; s.rows[-1][s.k] = ""
        if tag == "svg":
            s.svg += 1; s.chart = s.charts[a.get("id")] = {
                "ticks": [], "marks": [], "points": []}
        if s.chart is None: return
        if tag == "text" and "data-axis" in a:
            s.tick = [a["data-axis"], a["data-v"], float(a["x"]),
                      float(a["y"]), ""]
            s.chart["ticks"].append(s.tick)
        if tag == "line" and a.get("class") == "axis":
            s.chart["marks"].append(tuple(float(a[k]) for k in
                                          ("x1", "y1", "x2", "y2")))
        if tag == "circle": s.chart["points"].append(a)
    def handle_endtag(s, tag):
        if tag in ("td", "span"): s.k = None
        if tag == "text": s.tick = None
        if tag == "svg": s.chart = None
    def handle_data(s, d):
        if s.k: s.rows[-1][s.k] += d
        if s.tick: s.tick[4] += d
p = P(); p.feed(open(sys.argv[1]).read())
rows = [r for r in p.rows if r]
bad = []
if len(rows) != len(doc["classes"]) or p.svg != 2:
    bad.append("%d rows, %d svg" % (len(rows), p.svg))
for r, c in zip(rows, doc["classes"]):
    for k in ("speedup", "lo", "hi", "median_tuned_ms", "predicted_speedup"):
        want = "-" if c[k] is None else "%.3f" % c[k]
        if r.get(k, "-") != want:
            bad.append("%s %s: %s != %s" % (c["class"], k, r.get(k), want))
    if r["verdict"] != c["verdict"] or r["class"] != c["class"]:
        bad.append("%s verdict" % c["class"])

def scale(chart, axis):
    """value -> pixel of an axis from its ticks: each tick's label is its
    value, each has a mark, and they lie on one line; None (said) else."""
    t = [x for x in chart["ticks"] if x[0] == axis]
    if len(t) < 2:
        bad.append("%s axis: %d ticks" % (axis, len(t))); return None
    pos = [x[2] if axis == "x" else x[3] - 4 for x in t]
    val = [float(x[1]) for x in t]
    for x in t:
        if x[4].strip() != x[1]:
            bad.append("%s tick %s labelled %r" % (axis, x[1], x[4]))
    for p in pos:  # a mark at every tick
        if not any(abs((m[0] if axis == "x" else m[1]) - p) < 0.15 and
                   (m[0] == m[2] if axis == "x" else m[1] == m[3])
                   for m in chart["marks"]):
            bad.append("%s tick at %.1f: no mark" % (axis, p))
    a = (pos[-1] - pos[0]) / (val[-1] - val[0])
    for p, v in zip(pos, val):
        if abs(pos[0] + a * (v - val[0]) - p) > 0.15:
            bad.append("%s tick %.2f off its line" % (axis, v))
    return lambda v: pos[0] + a * (v - val[0])

def near(what, got, want):
    if abs(got - want) > 1.0:
        bad.append("%s at %.1f, the ticks put it at %.1f" % (what, got, want))

iv = [c for c in doc["classes"] if c["lo"] is not None]
for cid in ("speedup", "predicted"):
    if cid not in p.charts: bad.append("no chart %s" % cid)
if "speedup" in p.charts:
    ch = p.charts["speedup"]; x = scale(ch, "x")
    pts = ch["points"]
    if len(pts) != len(iv): bad.append("speedup: %d points" % len(pts))
    for c, pt in zip(iv, pts) if x else ():
        near("speedup %s" % c["class"], float(pt["cx"]), x(c["speedup"]))
if "predicted" in p.charts:
    ch = p.charts["predicted"]; x = scale(ch, "x"); y = scale(ch, "y")
    want = [c for c in iv if c["predicted_speedup"]]
    pts = ch["points"]
    if len(pts) != len(want): bad.append("predicted: %d points" % len(pts))
    for c, pt in zip(want, pts) if x and y else ():
        near("predicted %s" % c["class"], float(pt["cx"]),
             x(c["predicted_speedup"]))
        near("measured %s" % c["class"], float(pt["cy"]), y(c["speedup"]))
print("\n".join(bad) if bad else "all equal")
