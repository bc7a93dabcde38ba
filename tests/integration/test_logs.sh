#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Log lines (issue 26: vpath-record --logs, the analyzer's log lines).
# The recorder: off unless asked for (no VPR_LOG record, no flag), --logs N
# out of range refused, a secret written to a log replaced before the file,
# writes to a pipe and to a unix socket recorded as such, the file 0600 and
# flagged.  The analyzer: tests/logs/run.sh, two threaded Python services
# logging through `logging`: at least 99% of requests carry exactly their
# own lines, every line marked exact is on its own request, no housekeeping
# line is on any request (tests/logs/README.md); the same read from the
# local file.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "logs"

PY=$(command -v /usr/bin/python3 || command -v python3)
d=$(scratch_dir)

"$VPATH_RECORD" --logs 0 -o "$d/x.vpr" 2>"$d/err0"
rc=$?
check "logs: --logs 0 refused ($(head -1 "$d/err0"))" test $rc -ne 0 -a -s "$d/err0"
"$VPATH_RECORD" --logs 257 -o "$d/x.vpr" 2>"$d/err1"
rc=$?
check "logs: --logs 257 refused" test $rc -ne 0

# writer.py: a file line with a password, a pipe line, a unix datagram line.
cat >"$d/writer.py" <<'PYEOF'
import os, socket, sys, time
d = sys.argv[1]
time.sleep(0.3)
with open(d + "/app.log", "a") as f:
    f.write("login user=bob password=hunter2 ok\n")
r, w = os.pipe()
os.write(w, b"to the pipe\n")
os.read(r, 100)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.send(b"to the unix socket\n")
b.recv(100)
PYEOF

record_writes() { # OUT [ARGS...]
	local out=$1
	shift
	start_recorder "$out" "$out.log" "$@" || return 1
	echo "$RECORDER_PID" >"$out.pid"
	"$PY" "$d/writer.py" "$d" &
	local w=$!
	wait $w
	sleep 0.3
	stop_recorder
}

record_writes "$d/on.vpr" --logs 64
check "logs: recording with --logs succeeds" test $? -eq 0
"$VPATH_ANALYZE" dump "$d/on.vpr" >"$d/on.txt" 2>&1
check "logs: header flagged logs" grep -q "flags=logs," "$d/on.txt"
check "logs: the file line recorded, its password replaced" \
	grep -q 'file bytes=35 len=35 redacted data="login user=bob password=\*\*\*\*\*\*\* ok\\n"' "$d/on.txt"
check "logs: no byte of the password in the file" bash -c "! grep -a -q hunter2 '$d/on.vpr'"
check "logs: the pipe line recorded as a pipe's" grep -q 'pipe bytes=12 len=12 data="to the pipe\\n"' "$d/on.txt"
check "logs: the unix socket line recorded as a unix socket's" \
	grep -q 'unix bytes=19 len=19 data="to the unix socket\\n"' "$d/on.txt"
# Other processes of the machine may write recordings too: only the recorder's own pid counts.
check "logs: none of the recorder's own writes (its file, its messages)" \
	bash -c "! grep '^log ' '$d/on.txt' | grep -q ' pid=$(cat "$d/on.vpr.pid") '"
check "logs: the file is 600 ($(stat -c %a "$d/on.vpr"))" test "$(stat -c %a "$d/on.vpr")" = 600

record_writes "$d/off.vpr"
"$VPATH_ANALYZE" dump "$d/off.vpr" >"$d/off.txt" 2>&1
check "logs: without --logs no log record ($(grep -c '^log ' "$d/off.txt") found)" \
	test "$(grep -c '^log ' "$d/off.txt")" = 0
check "logs: without --logs no flag" bash -c "! grep -q 'flags=.*logs,' '$d/off.txt'"

bash tests/logs/run.sh --requests 400 --sessions 6 --seed 3 --keep "$d/run"
# The local file (vpath-analyze local) keeps the lines: the same gates on it.
"$VPATH_ANALYZE" local -o "$d/run/rec.vpl" "$d/run/rec.vpr" 2>"$d/local.err"
check "logs: local file written" test $? -eq 0
"$VPATH_ANALYZE" paths --json "$d/run/rec.vpl" >"$d/local.json" 2>>"$d/local.err"
"$PY" tests/logs/score.py "$d/run/truth.jsonl" "$d/local.json" | sed 's/- logs: /- logs (local file): /'

# Every output has the same lines: JSON's count against SQLite's table and OTLP's events.
json_n=$("$PY" -c '
import json, sys
def n(c): return len(c.get("logs", [])) + sum(n(k) for k in c.get("calls", []))
print(sum(n(r["root"]) for r in json.load(open(sys.argv[1]))["requests"]))' "$d/run/found.json")
if command -v sqlite3 >/dev/null; then
	"$VPATH_ANALYZE" sqlite -o "$d/run/logs.db" "$d/run/rec.vpr" 2>/dev/null
	sql_n=$(sqlite3 "$d/run/logs.db" "SELECT count(*) FROM logs l JOIN calls c ON c.id = l.call_id")
	check "logs: sqlite's logs table has the JSON's $json_n lines, each on a call ($sql_n)" \
		test "$sql_n" = "$json_n" -a "$json_n" -gt 0
	# docs/sqlite.md's query of the slowest request's lines, against the JSON.
	"$PY" - docs/sqlite.md "$d/run/logs.db" "$d/run/found.json" <<'PY'
import json, re, sqlite3, sys
sql = re.search(r"<!-- query: logs-of-slowest -->\n```sql\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1)
rows = sqlite3.connect(sys.argv[2]).execute(sql).fetchall()
def n(c): return len(c.get("logs", [])) + sum(n(k) for k in c.get("calls", []))
slow = max(json.load(open(sys.argv[3]))["requests"], key=lambda r: r["root"]["duration_ns"])
want = n(slow["root"])
print(("ok" if rows and len(rows) == want else "not ok") +
      " - logs: docs/sqlite.md's logs-of-slowest gives the slowest request's %d lines (%d rows)" % (want, len(rows)))
PY
else
	skip "logs: sqlite's logs table" "sqlite3 not installed"
fi
"$VPATH_ANALYZE" otlp "$d/run/rec.vpr" 2>/dev/null >"$d/run/otlp.json"
otlp_n=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for rs in d["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]
          for e in s.get("events", []) if e["name"] == "log"))' "$d/run/otlp.json")
check "logs: OTLP has the JSON's $json_n lines as span events ($otlp_n)" test "$otlp_n" = "$json_n"
