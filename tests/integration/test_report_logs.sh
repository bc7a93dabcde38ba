#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The report's log lines (docs/report.md, issue 26): tests/logs' two Python
# services recorded with --logs, front's "end" lines carrying markup and
# quotes.  The report's data has, on every call of every request it keeps,
# the lines `paths --json` has there (text, thread, time, exact), each exact
# line naming its own request; the markup stays text: nothing in the page
# but its own two scripts, and in headless Chromium a click on every row
# with lines shows them, as text, with nothing run (no element or title the
# lines would make).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "report log lines"

PY=$(command -v /usr/bin/python3 || command -v python3)
d=$(scratch_dir)
export VPATH_LOGS_END_SUFFIX=' <script>document.title="pwned"</script><img src=x onerror="document.title=1"><b id="pwned">'\''q'\'' "dq" &amp; </b>'
bash tests/logs/run.sh --requests 60 --sessions 3 --seed 11 --keep "$d/run"
"$VPATH_ANALYZE" report -n 100 -o "$d/report.html" "$d/run/rec.vpr" 2>"$d/err"
check "report-logs: report -o writes the page" test $? -eq 0 -a -s "$d/report.html"

check "report-logs: every kept request's calls carry paths --json's lines, exact ones on their own request" \
	"$PY" - "$d/report.html" "$d/run/found.json" "$VPATH_LOGS_END_SUFFIX" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
data = json.loads(re.search(r'<script type="application/json" id="vpath-data">(.*?)</script>', html, re.S).group(1))
found = {r["id"]: r for r in json.load(open(sys.argv[2]))["requests"]}
suffix = sys.argv[3]
def rows(c, out):
    out.append(c)
    for k in c["calls"]:
        rows(k, out)
    return out
bad = lines = exact = marked = 0
for rid, r in data["requests"].items():
    want = rows(found[int(rid)]["root"], [])
    base = want[0]["start_ns"]
    m = re.search(r"/req/(\d+)/", want[0].get("witness", {}).get("label", ""))
    for row, call in zip(r["calls"], want):
        got = [(l["t"] + base, l["tid"], l["text"], l["exact"]) for l in row.get("logs", [])]
        exp = [(l["time_ns"], l["tid"], l["text"], l["exact"]) for l in call.get("logs", [])]
        if got != exp:
            bad += 1
            if bad <= 3:
                print("# request %s: report %s, json %s" % (rid, got[:2], exp[:2]))
        for l in row.get("logs", []):
            lines += 1
            marked += l["text"].endswith(suffix)
            lr = re.search(r"\brid=(\d+)\b", l["text"])
            if l["exact"]:
                exact += 1
                if not m or not lr or lr.group(1) != m.group(1):
                    bad += 1
                    print("# exact line on the wrong request %s: %s" % (rid, l["text"]))
    if len(r["calls"]) != len(want):
        bad += 1
print("# %d requests in the report, %d lines on their calls, %d exact, %d with the markup" %
      (len(data["requests"]), lines, exact, marked))
sys.exit(0 if not bad and lines and marked and len(data["requests"]) == len(found) else 1)
PY
check "report-logs: the markup in the lines is data: the page has only its own two scripts" \
	test "$(grep -o '<script' "$d/report.html" | wc -l)" -eq 2 -a "$(grep -c '<img\|<b id' "$d/report.html")" -eq 0

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
	skip "report-logs: lines shown in headless Chromium" "no chromium (scripts/install-deps.sh installs it)"
	exit 0
fi
# A click on every row with lines, as a user would, once the page drew itself.
sed 's|</body>|<script>document.querySelectorAll(".row.haslogs").forEach(function (r) { r.click(); });</script></body>|' \
	"$d/report.html" >"$d/clicked.html"
timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$d/profile" \
	--enable-logging=stderr --v=0 --dump-dom "file://$d/clicked.html" >"$d/dom.html" 2>"$d/chromium.log"
check "report-logs: a click on a row shows its lines, as text, nothing run" \
	"$PY" - "$d/dom.html" "$d/report.html" <<'PY'
import json, re, sys
dom, html = open(sys.argv[1]).read(), open(sys.argv[2]).read()
data = json.loads(re.search(r'<script type="application/json" id="vpath-data">(.*?)</script>', html, re.S).group(1))
ok = True
m = re.search(r'<div id="selfcheck" data-status="([a-z]+)">([^<]*)</div>', dom)
if not m or m.group(1) != "ok":
    print("# selfcheck: %s" % (m.group(2) if m else "missing"))
    sys.exit(1)
shown = int(re.search(r"loglines=(\d+)", m.group(2)).group(1))
want = sum(len(c.get("logs", [])) for rid in data["slowest"][:3] for c in data["requests"][str(rid)]["calls"])
boxes = dom.count('<div class="logs">')
rows = sum(1 for rid in data["slowest"][:3] for c in data["requests"][str(rid)]["calls"] if c.get("logs"))
texts = re.findall(r'<span class="text">([^<]*)</span>', dom)
print("# %d lines shown in %d boxes (the 3 open waterfalls have %d); %d with the markup as text" %
      (shown, boxes, want, sum("&lt;script&gt;" in t for t in texts)))
ok = shown == want and want > 0 and len(texts) == want and boxes == rows
ok &= any('&lt;script&gt;document.title="pwned"&lt;/script&gt;&lt;img src=x' in t for t in texts)
ok &= "<title>vpath report</title>" in dom and '<b id="pwned"' not in dom and "<img" not in dom
sys.exit(0 if ok else 1)
PY
