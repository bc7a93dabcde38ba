#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath-analyze report (docs/report.md) on a vApp recording, loaded in
# headless Chromium: one self-contained file (nothing fetched), no console
# error, the page's own check (#selfcheck) says what it drew and that matches
# the analysis, links to a request and to a pattern open them, and a
# screenshot is taken ($OUTPUT/report-screenshot.png, to look at).
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/vapp_recording.sh
A=$VPATH_ANALYZE
d=$(scratch_dir)

output_test_begin report "$d" || exit 1

"$A" report -o "$d/report.html" "${REC_FILES[@]}" 2>"$d/err"
[ $? -eq 0 ] && [ -s "$d/report.html" ]
check "report -o writes the page (exit 0)" test $? -eq 0
check "the page is one file: no script, style, image or font from anywhere" \
	python3 - "$d/report.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
bad = [m for m in re.findall(r'(?:src|href)\s*=\s*"([^"#][^"]*)"', html)]
bad += re.findall(r"<link\b[^>]*>", html) + re.findall(r"@import[^;]*;", html)
bad += [u for u in re.findall(r"url\(([^)]*)\)", html) if not u.startswith("#")]
bad += [u for u in re.findall(r"https?://[^\s\"'<>]+", html) if u != "http://www.w3.org/2000/svg"]
for b in bad[:5]:
    print("# fetches " + b)
sys.exit(1 if bad else 0)
PY

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
	skip "report in headless Chromium" "no chromium (scripts/install-deps.sh installs it)"
	exit 0
fi
# browse URL OUT: the DOM after the page's script ran, console on OUT.log.
browse() {
	local profile
	profile=$(mktemp -d "$d/profile.XXXXXX")
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 "$@" 2>>"$d/chromium.log"
}
console_errors() { # log: console messages at error level, and uncaught exceptions
	grep -E 'CONSOLE.*(Uncaught|Error)|Uncaught|SyntaxError' "$1"
}

: >"$d/chromium.log"
browse --dump-dom "file://$d/report.html" >"$d/dom.html"
[ -s "$d/dom.html" ] && ! console_errors "$d/chromium.log"
check "Chromium loads the page with no console error" test $? -eq 0
check "the page drew everything and says so (#selfcheck), as the analysis has it" \
	python3 - "$d/dom.html" "$d/paths.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
paths = json.load(open(sys.argv[2]))
m = re.search(r'<div id="selfcheck" data-status="([a-z]+)">([^<]*)</div>', dom)
if not m:
    print("# no #selfcheck in the DOM: the script did not finish")
    sys.exit(1)
print("# selfcheck: " + m.group(2))
kv = dict(x.split("=") for x in re.findall(r"\w+=\d+", m.group(2)))
reqs = sorted(paths["requests"], key=lambda r: -r["root"]["duration_ns"])
slowest = re.findall(r'<details class="req" id="request-(\d+)"', dom)
want_hosts = len(paths["hosts"])
ok = (m.group(1) == "ok" and int(kv["hosts"]) == want_hosts and int(kv["edges"]) > 0 and
      int(kv["slowest"]) == min(20, len(reqs)) and int(kv["waterfalls"]) == min(3, len(reqs)) and
      int(kv["patterns"]) >= 1)
# The slowest request comes first, with its duration, and has a waterfall row per call.
first = reqs[0]
def ncalls(c):
    return 1 + sum(ncalls(k) for k in c["calls"])
if not slowest or int(slowest[0]) != first["id"]:
    print("# first waterfall is request %s, want %d" % (slowest[:1], first["id"]))
    ok = False
block = dom.split('id="request-%d"' % first["id"], 1)[1].split("</details>", 1)[0]
rows = len(re.findall(r'<div class="row', block))
if rows != ncalls(first["root"]):
    print("# request %d: %d waterfall rows, %d calls" % (first["id"], rows, ncalls(first["root"])))
    ok = False
for sel in ['id="patterns"', 'id="slowest"', 'id="graph"', 'id="hosts"', 'class="hist"', 'aria-label="service graph"',
            'class="hostline"']:
    if sel not in dom:
        print("# missing " + sel)
        ok = False
# Inferred links are marked: as many ~ rows as inferred calls among the drawn waterfalls.
inferred = 0
for rid in re.findall(r'<details class="req" id="request-(\d+)" data-request="\d+" open', dom):
    r = next(x for x in paths["requests"] if x["id"] == int(rid))
    def inf(c):
        return (not c["link"]["exact"] and c["link"]["basis"] != "root") + sum(inf(k) for k in c["calls"])
    inferred += inf(r["root"])
marked = dom.count('<span class="tilde">~</span>')
if marked != inferred:
    print("# %d links marked inferred, %d inferred in the drawn requests" % (marked, inferred))
    ok = False
print("# %d inferred links marked" % marked)
sys.exit(0 if ok else 1)
PY

# From a pattern to its requests: #pattern-1 opens the pattern, whose list
# links its slowest requests; #request-ID opens one that is not among the
# slowest overall (so it is drawn on demand, as a click on the link does).
pick=$(python3 - "$d/report.html" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
data = json.loads(re.search(r'<script type="application/json" id="vpath-data">(.*?)</script>', html, re.S).group(1)
                  .replace("<\\/", "</"))
slow = set(data["slowest"])
for p in data["patterns"]:
    for rid in p["slowest"]:
        if rid not in slow:
            print(p["rank"], rid, len(data["requests"][str(rid)]["calls"]))
            sys.exit(0)
PY
)
read -r prank pid pcalls <<<"$pick"
if [ -n "$pid" ]; then
	browse --dump-dom "file://$d/report.html#request-$pid" >"$d/dom-req.html"
	check "a link to request $pid (pattern $prank) opens its waterfall ($pcalls calls)" python3 - "$d/dom-req.html" "$pid" "$pcalls" <<'PY'
import re, sys
dom, rid, n = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
m = re.search(r'<div id="picked"><details class="req[^"]*" id="request-%s" data-request="%s" open[^>]*>(.*?)</details>' % (rid, rid), dom, re.S)
sys.exit(0 if m and len(re.findall(r'<div class="row', m.group(1))) == n else 1)
PY
	browse --dump-dom "file://$d/report.html#pattern-$prank" >"$d/dom-pat.html"
	check "a link to pattern $prank opens it, with a link to request $pid" \
		grep -q "<tr class=\"pattern open\" id=\"pattern-$prank\".*<tr class=\"detail\">.*data-request=\"$pid\"" "$d/dom-pat.html"
else
	skip "pattern to request links" "every pattern's slowest requests are among the slowest overall"
fi

# The check can fail: a page whose data lacks the hosts draws nothing and logs the error.
sed 's/"hosts":\[/"hostz":[/' "$d/report.html" >"$d/broken.html"
: >"$d/chromium.log"
browse --dump-dom "file://$d/broken.html" >"$d/dom-broken.html"
broken_caught() { console_errors "$d/chromium.log" >/dev/null && ! grep -q 'data-status="ok"' "$d/dom-broken.html"; }
check "a broken page is caught (console error, no selfcheck)" broken_caught

: >"$d/chromium.log"
browse --window-size=1400,1800 --hide-scrollbars --screenshot="$d/report.png" "file://$d/report.html" >/dev/null
check "a screenshot is taken" [ "$(stat -c %s "$d/report.png" 2>/dev/null || echo 0)" -gt 20000 ]
cp "$d/report.png" "$OUTPUT/report-screenshot.png" 2>/dev/null && echo "# screenshot: $OUTPUT/report-screenshot.png"
