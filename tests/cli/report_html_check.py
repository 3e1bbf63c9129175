#!/usr/bin/env python3
"""tests/cli/report_html_check.py HTML JSON: the classes table of a
`lagom report --format html` page (as written, or as chromium's
--dump-dom gives it back) holds the figures of `lagom report --format
json`, printed to three decimals, and the page has its two SVG charts.
Prints "all equal" or one line per difference."""
import json, re, sys
from html.parser import HTMLParser
doc = json.load(open(sys.argv[2]))
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.rows = []; s.k = None; s.svg = 0
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "tr": s.rows.append({})
        if "data-k" in a and s.rows: s.k = a["data-k"]; s.rows[-1][s.k] = ""
        if tag == "svg": s.svg += 1
    def handle_endtag(s, tag):
        if tag in ("td", "span"): s.k = None
    def handle_data(s, d):
        if s.k: s.rows[-1][s.k] += d
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
print("\n".join(bad) if bad else "all equal")
