#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The cross-host join in ClickHouse (docs/clickhouse.md): the hosts' local
# files loaded into two shards started here (tests/clickhouse/cluster.sh),
# each host's call ends on one shard, paired in SQL over the Distributed
# table (tools/clickhouse/), and the pairs read back by vpath-analyze
# --pairs give the paths the single-machine run gives, byte for byte, on a
# vApp recording (tests/tools/vapp_recording.sh), with every host and with
# one host's file left out (its peers' calls to it unpaired), and on the PHP
# stack (tests/phpstack) when it can run.  Prints what it
# cost: start-up, memory, load and pairing times.
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/vapp_recording.sh
. tests/clickhouse/cluster.sh
A=$VPATH_ANALYZE
VC=tools/clickhouse/vpath-clickhouse
d=$(scratch_dir)

[ -x "$A" ] || { not_ok "clickhouse: build $A first (make)"; exit 1; }
why=$(ch_unavailable)
if [ -n "$why" ]; then
	# CI installs ClickHouse (make deps): there, its absence is a failure.
	if [ "${CI:-}" = true ]; then not_ok "clickhouse: $why"; else skip "clickhouse" "$why"; fi
	exit 0
fi
export VPATH_ANALYZE=$PWD/$A
ms() { echo $(($(date +%s%N) / 1000000)); }

vapp_recording "$d/rec" || { not_ok "clickhouse: a recording to read"; exit 1; }
echo "# $REC_KIND recording: ${#REC_FILES[@]} hosts"
# local_files DIR: vpls, the local files of REC_FILES (one each) in DIR.
local_files() {
	local f v
	mkdir -p "$1"
	vpls=()
	for f in "${REC_FILES[@]}"; do
		v=$1/$(basename "$f" .vpr).vpl
		"$A" local -o "$v" "$f" >/dev/null 2>"$d/local.err" || { not_ok "clickhouse: local $f: $(head -1 "$d/local.err")"; return 1; }
		vpls+=("$v")
	done
}
local_files "$d/vpl" || exit 1

t0=$(ms)
ch_cluster_start "$d/ch" || { not_ok "clickhouse: two shards start"; exit 1; }
t_start=$(($(ms) - t0))
C1="$CH_CLIENT --host 127.0.0.1 --port ${CH_PORTS[0]}"
C2="$CH_CLIENT --host 127.0.0.1 --port ${CH_PORTS[1]}"
"$VC" --client "$C1" schema && "$VC" --client "$C2" schema
check "clickhouse: the schema on both shards (vpath_ends_local, vpath_ends over cluster vpath)" [ $? -eq 0 ]

# join ROUND N: load the first N hosts' local files, pair them, compare with the single-machine run.
join() {
	local round=$1 t1 t_load t_pair rows hosts1 hosts2 both bad=
	local recs=("${REC_FILES[@]:0:$2}")
	set -- "${vpls[@]:0:$2}"

	"$VC" --client "$C1" drop && "$VC" --client "$C2" drop && "$VC" --client "$C1" schema &&
		"$VC" --client "$C2" schema || bad+=" schema"
	t1=$(ms)
	"$VC" --client "$C1" load "$@" 2>"$d/load.err" || bad+=" load($(head -1 "$d/load.err"))"
	t_load=$(($(ms) - t1))
	rows=$("$A" calls "$@" | wc -l)
	hosts1=$(ch 1 -q "SELECT DISTINCT host FROM vpath_ends_local ORDER BY host")
	hosts2=$(ch 2 -q "SELECT DISTINCT host FROM vpath_ends_local ORDER BY host")
	both=$(comm -12 <(echo "$hosts1") <(echo "$hosts2") | grep -c .)
	# Hosts go by a hash of their boot id and namespace: a run may put them all on one shard.
	check "clickhouse: $round: $rows call ends loaded, each host's on one shard ($(echo "$hosts1" | grep -c .) and $(echo "$hosts2" | grep -c .) hosts)" \
		[ "$(ch 1 -q "SELECT count() FROM vpath_ends")" = "$rows" -a "$rows" -gt 0 -a "$both" = 0 ]

	t1=$(ms)
	"$VC" --client "$C1" pair -o "$d/pairs.tsv" 2>"$d/pair.err" || bad+=" pair($(head -1 "$d/pair.err"))"
	t_pair=$(($(ms) - t1))
	sed 's/^/# /' "$d/pair.err"
	"$A" paths --json "${recs[@]}" >"$d/ref.json" 2>/dev/null
	"$A" table "${recs[@]}" >"$d/ref.tsv" 2>/dev/null
	"$A" paths --json --pairs "$d/pairs.tsv" "$@" >"$d/got.json" 2>"$d/got.err" || bad+=" paths($(head -1 "$d/got.err"))"
	"$A" table --pairs "$d/pairs.tsv" "$@" >"$d/got.tsv" 2>/dev/null || bad+=" table"
	cmp -s "$d/ref.json" "$d/got.json" || bad+=" json"
	cmp -s "$d/ref.tsv" "$d/got.tsv" || bad+=" table"
	local n
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["requests"]))' "$d/ref.json" 2>/dev/null)
	[ "${n:-0}" -gt 0 ] || bad+=" no-requests"
	echo "# $round: $(($(wc -l <"$d/pairs.tsv") - 1)) pairs; load ${t_load} ms, pairing ${t_pair} ms"
	check "clickhouse: $round: paths --json and table from the pairs ClickHouse made equal the single-machine run's, byte for byte (${n:-0} requests)${bad:+ (differ:$bad)}" [ -z "$bad" ]
}

join "every host" "${#vpls[@]}"
# A pairs file missing calls must show: the test could not pass with --pairs ignored.
{ head -n -5 "$d/pairs.tsv"; } >"$d/fewer.tsv"
"$A" paths --json --pairs "$d/fewer.tsv" "${vpls[@]}" >"$d/fewer.json" 2>/dev/null
differ() { ! cmp -s "$1" "$2"; }
check "clickhouse: five pairs fewer give other paths (--pairs decides the pairing)" differ "$d/fewer.json" "$d/got.json"
rss=$(ch_cluster_rss_kb "$d/ch")
# The last host's file left out: calls to and from it have no other end recorded.
join "without ${vpls[-1]##*/}" $((${#vpls[@]} - 1))
# The pairing rule itself, on ends written here (pair.sql): which pair and which do not.
# Hosts A/1 and B/0 hash to different shards (shard 1, shard 2).
# end HOST SIDE COOKIE HAVE_TUPLE LOCAL REMOTE REQ_SEQ HAS_REP REP_SEQ: one row of vpath_ends.
end() {
	printf '%s\t%s\t1\t%s\t%s\t0\t%s\t%s\t%s\t0\t%s\t%s\t1\t2\t10\t%s\t%s\t%s\t3\t4\t10\t1\tp\tt\t0\t0\t\t0\t0\n' \
		"$1" "${1%/*}" "$2" "$3" "$4" "$5" "$6" "$7" $(($7 + 10)) "$8" "$9" $(($9 + 10))
}
{
	end A/1 0 1 1 10.0.0.1:5000 10.0.0.2:80 100 1 500 # a call
	end B/0 1 2 1 10.0.0.2:80 10.0.0.1:5000 100 1 500
	end A/1 0 3 1 10.0.0.1:5001 10.0.0.2:80 200 0 0 # 4-tuples not each other's reverse
	end B/0 1 4 1 10.0.0.2:80 10.0.0.1:5999 200 0 0
	end A/1 0 5 1 10.0.0.1:5003 10.0.0.2:80 300 1 600 # replies begin apart
	end B/0 1 6 1 10.0.0.2:80 10.0.0.1:5003 300 1 601
	end A/1 0 7 1 127.0.0.1:5002 127.0.0.1:80 400 0 0 # loopback, two hosts
	end B/0 1 8 1 127.0.0.1:80 127.0.0.1:5002 400 0 0
	end A/1 0 9 1 127.0.0.1:5004 127.0.0.1:81 450 0 0 # loopback, one host: a call
	end A/1 1 10 1 127.0.0.1:81 127.0.0.1:5004 450 0 0
	end A/1 0 11 0 '?' '?' 700 0 0 # the client's 4-tuple not recorded: a call
	end B/0 1 12 1 10.0.0.2:80 10.0.0.1:5005 700 0 0
	end A/1 0 13 0 '?' '?' 800 0 0 # two server ends it could be: neither
	end B/0 1 14 1 10.0.0.2:80 10.0.0.1:6000 800 0 0
	end C/0 1 15 1 10.0.0.3:80 10.0.0.1:6001 800 0 0
	end A/1 0 16 1 10.0.0.1:5006 10.0.0.9:80 900 0 0 # its server not recorded
	end A/1 0 17 1 10.0.0.1:5007 10.0.0.2:80 1000 1 2000 # the server's request begun earlier (a tail before): a call
	end B/0 1 18 1 10.0.0.2:80 10.0.0.1:5007 992 1 2000
	end A/1 0 19 1 10.0.0.1:5008 10.0.0.2:80 1100 1 2100 # the same, replies apart: not
	end B/0 1 20 1 10.0.0.2:80 10.0.0.1:5008 1092 1 2101
} >"$d/rule.tsv"
"$VC" --client "$C1" drop && "$VC" --client "$C1" schema && "$VC" --client "$C2" drop && "$VC" --client "$C2" schema &&
	ch 1 --insert_distributed_sync 1 -q "INSERT INTO vpath_ends FORMAT TabSeparated" <"$d/rule.tsv" &&
	"$VC" --client "$C1" pair -o "$d/rule.pairs" 2>"$d/rule.err"
printf '# vpath pairs 1\nA/1\t1\tB/0\t2\t100\nA/1\t11\tB/0\t12\t700\nA/1\t9\tA/1\t10\t450\nA/1\t17\tB/0\t18\t1000\n' >"$d/rule.want"
sed 's/^/# /' "$d/rule.err"
check "clickhouse: the pairing rule: a call, a loopback call in one host, one without the client's 4-tuple and one whose server end began earlier pair; reversed 4-tuples, replies, loopback across hosts, two candidates and an unrecorded server keep apart" \
	cmp -s <(sort "$d/rule.pairs") <(sort "$d/rule.want")
check "clickhouse: the summary counts the end with two candidates" grep -q "ambiguous_client_ends=1 " "$d/rule.err"
# Two pair runs at once on one database: each joins into a table of its own.
# A client that waits 2 s before each statement staggers them so that the
# first run's clean-up falls between the second's join and its read.
printf '#!/bin/sh\nsleep 2\nexec %s "$@"\n' "$C1" >"$d/slow-client"
chmod +x "$d/slow-client"
"$VC" --client "$d/slow-client" pair -o "$d/rule.pairs.a" 2>"$d/rule.err.a" &
pa=$!
sleep 5
"$VC" --client "$d/slow-client" pair -o "$d/rule.pairs.b" 2>"$d/rule.err.b"
rb=$?
wait "$pa"
ra=$?
sed 's/^/# /' "$d/rule.err.a" "$d/rule.err.b" | grep -v "pairs=" | head -4
both=no
[ "$ra" = 0 ] && [ "$rb" = 0 ] && cmp -s "$d/rule.pairs.a" "$d/rule.pairs" && cmp -s "$d/rule.pairs.b" "$d/rule.pairs" && both=yes
check "clickhouse: two pair runs at once both give the pairs one run gives" [ "$both" = yes ]
check "clickhouse: a pair run leaves no table of its own behind" \
	[ -z "$(ch 1 -q "SHOW TABLES LIKE 'vpath_candidates%'")" ]
check "clickhouse: the pairing rule: the calls between A and B crossed shards" \
	[ "$(ch 1 -q "SELECT count() FROM vpath_ends_local WHERE host = 'A/1'")" -gt 0 -a \
	"$(ch 2 -q "SELECT count() FROM vpath_ends_local WHERE host = 'B/0'")" -gt 0 ]
# The PHP stack (tests/phpstack): PHP-FPM reads the tail of a FastCGI request after
# its reply, so its host's own stages begin the next request 8 bytes early; only
# nginx's recording says so.  The pairs must still name the ends the join makes.
. tests/e2e/harness.sh
. tests/phpstack/stack.sh
ps_recording clickhouse "$d" && local_files "$d/phpvpl" && join "PHP stack" "${#REC_FILES[@]}"
echo "# cost: two shards answered ${t_start} ms after start; $((rss / 1024)) MB resident together after the first join"
