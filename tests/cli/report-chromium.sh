#!/bin/sh
# The `lagom report --format html` page in a real headless browser
# (Debian's chromium): it loads and renders with no console message and
# no failed resource, the DOM chromium builds from it holds the JSON's
# figures and its charts' points stand where their axes' ticks put the
# JSON's figures (tests/cli/report_html_check.py), and its screenshot draws the
# charts (a gain in green, a loss in red).  Skips, saying so, without
# chromium (contrib/install-deps.sh installs it).
. "${top_srcdir:-.}/tests/lib/tap.sh"
. "${top_srcdir:-.}/tests/cli/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	plan_skip_all "chromium not installed (contrib/install-deps.sh)"
plan 4
SP="$TMP/spool"
python3 "$top_srcdir/tests/cli/report_spool.py" "$SP" "$(id -un)" 100 \
	gainy:tuned:12:1.10:0.03:1.07 gainy:control:10:1:0.03:1.07 \
	lossy:tuned:10:0.95:0.02:1.05 lossy:control:10:1:0.02:1.05 \
	few:tuned:5:1.1:0.03 >/dev/null || exit 1
"$LAGOM" report --spool "$SP" --format json >"$TMP/r.json" &&
	"$LAGOM" report --spool "$SP" --format html >"$TMP/r.html" || exit 1

browse() {
	HOME="$TMP" timeout 120 "$CHROMIUM" --headless --no-sandbox \
		--disable-gpu --no-first-run --enable-logging=stderr --v=0 \
		--window-size=1000,1300 "$@" "file://$TMP/r.html"
}
browse --dump-dom >"$TMP/dom.html" 2>"$TMP/dom.err"
rc=$?
[ $rc -eq 0 ] && grep -q '<svg id="speedup"' "$TMP/dom.html" &&
	ok "chromium loads the page (exit 0, the DOM has the charts)" ||
	{ not_ok "chromium: exit $rc"; tail -5 "$TMP/dom.err" | sed 's/^/# /'; }
# Console messages and failed loads are logged as CONSOLE / net errors.
if grep -E 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|Failed to load' \
	"$TMP/dom.err" >"$TMP/console"; then
	not_ok "chromium: console messages"
	sed 's/^/# /' "$TMP/console"
else
	ok "chromium: no console message, no failed resource"
fi
python3 "$top_srcdir/tests/cli/report_html_check.py" "$TMP/dom.html" \
	"$TMP/r.json" >"$TMP/check"
sed 's/^/# /' "$TMP/check"
head -1 "$TMP/check" | grep -qx 'all equal' &&
	ok "the rendered DOM's figures equal the JSON's, ticks and points included" ||
	not_ok "the rendered DOM's figures differ from the JSON's"
browse --screenshot="$TMP/r.png" >/dev/null 2>&1
python3 "$top_srcdir/tests/cli/png_check.py" "$TMP/r.png" 1000 \
	'#1a7f37' '#cf222e' >"$TMP/png" 2>&1 &&
	ok "screenshot: drawn, a gain in green and a loss in red" ||
	{ not_ok "screenshot"; sed 's/^/# /' "$TMP/png"; }
