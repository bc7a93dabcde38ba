#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of the Redis-list job queue (README.md here): client.py (SESSIONS
# keep-alive connections) -> web.py (a thread per connection, LPUSH of a
# job per request) -> Redis <- WORKERS worker.py processes (BRPOP, then the
# job's calls) -> back.py, each on its own network-namespace host with its
# own vpath-record (--capture 256 on Redis's port unless --no-capture);
# then vpath-analyze and score.py against the client's and the workers'
# truth.  Exit status: 0 when the gates pass, 1 when not, 2 when the run
# itself failed.  Needs root.
# --broker rabbitmq: the same through RabbitMQ (web_amqp.py publishes,
# worker_amqp.py consumes; --capture 256 on port 5672; the workers start
# after the recorders, so that their whole conversation is recorded).
#
#   tests/queue/run.sh [--requests N] [--sessions S] [--workers W] [--seed X]
#                      [--broker redis|rabbitmq] [--min-accuracy P]
#                      [--no-capture] [--capture-back] [--keep DIR]
#                      [--mode list|blmove|stream|pubsub]
# --mode: how jobs are queued and taken on Redis (README.md): LPUSH/BRPOP
# (list, the default), LPUSH/BLMOVE onto a processing list (blmove), XADD
# and XREADGROUP of a consumer group (stream), PUBLISH to workers SUBSCRIBEd
# to a channel, each doing every job (pubsub: the fan-out; workers start
# after the recorders, the web front waits for their answers).
# --capture-back: --capture-port 8100 too, the back end's port: the
# workers' calls carry their job's id, which decides which job of a read
# of several pub/sub pushes each call is for (README.md).
# --keep DIR: the recordings, truth files, found.json, failures.jsonl and
# every log are copied to DIR.
# --fanout (rabbitmq): each job published to a fanout exchange bound to
# two queues, jobs.1 and jobs.2, each consumed by half the workers: every
# job runs twice, and both copies' work belongs under its publish.
# --relay haproxy: haproxy in TCP mode (tests/pgbouncer/servers.sh) between
# Redis and its clients, the web front and the workers, on a host of its
# own at 10.211.0.5:6379 (the same port: --capture 256 on both its sides).
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/queue/rabbitmq.sh
source tests/pgbouncer/servers.sh

Q_SRC=tests/queue
Q_NET=10.211.0
Q_CLIENT_IP=$Q_NET.10
Q_WEB=$Q_NET.1:8000
Q_REDIS=$Q_NET.2:6379
Q_WORKERS_IP=$Q_NET.3
Q_BACK=$Q_NET.4:8100
Q_PY=/usr/bin/python3 # Debian's, where python3-redis lives
Q_RELAY=$Q_NET.5:6379 relay=none fanout=0
requests=2000 sessions=8 workers=2 seed=$((RANDOM)) keep=${KEEP:-} min_accuracy=0 capture=1
capture_back=0
mode=list
broker=redis
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift ;;
	--sessions) sessions=$2; shift ;;
	--workers) workers=$2; shift ;;
	--seed) seed=$2; shift ;;
	--keep) keep=$2; shift ;;
	--min-accuracy) min_accuracy=$2; shift ;;
	--no-capture) capture=0 ;;
	--capture-back) capture_back=1 ;;
	--mode) mode=$2; shift ;;
	--broker) broker=$2; shift ;;
	--relay) relay=$2; shift ;;
	--fanout) fanout=2 ;;
	-h|--help) sed -n '3,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
case $mode in
list | blmove | stream | pubsub) ;;
*) echo "run.sh: unknown mode $mode (list, blmove, stream, pubsub)" >&2; exit 2 ;;
esac

case $broker in
redis) ;;
rabbitmq) Q_REDIS=$Q_NET.2:5672 ;; # the broker's address, whichever it is
*) echo "run.sh: unknown broker $broker" >&2; exit 2 ;;
esac
case $broker/$relay in
*/none) Q_VIA=$Q_REDIS ;; # where the web front and the workers send Redis's commands
redis/haproxy) Q_VIA=$Q_RELAY ;;
*) echo "run.sh: --relay haproxy (in front of Redis) or none" >&2; exit 2 ;;
esac
[ "$fanout" = 0 ] || [ "$broker" = rabbitmq ] || { echo "run.sh: --fanout is RabbitMQ's" >&2; exit 2; }

q_missing() {
	if [ "$broker" = rabbitmq ]; then
		[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || echo rabbitmq-server
		"$Q_PY" -c 'import pika' 2>/dev/null || echo python3-pika
		return
	fi
	[ -x /usr/bin/redis-server ] || echo redis-server
	"$Q_PY" -c 'import redis' 2>/dev/null || echo python3-redis
	[ "$relay" = none ] || [ -x /usr/sbin/haproxy ] || echo haproxy
}

q_servers_start() {
	if [ "$broker" = rabbitmq ]; then
		q_rabbitmq_start "$Q_REDIS" || return 1
	else
		e2e_spawn redis broker "$Q_REDIS" /usr/bin/redis-server --bind "${Q_REDIS%:*}" \
			--port "${Q_REDIS#*:}" --protected-mode no --save '' --appendonly no \
			--dir "$E2E_DIR" || return 1
	fi
	if [ "$relay" = haproxy ]; then
		relay_haproxy_cfg "$Q_RELAY" "$Q_REDIS" >"$E2E_DIR/haproxy.cfg"
		e2e_spawn haproxy relay "$Q_RELAY" /usr/sbin/haproxy -db -f "$E2E_DIR/haproxy.cfg" ||
			return 1
	fi
	e2e_spawn back back "$Q_BACK" "$Q_PY" "$Q_SRC/back.py" --listen "$Q_BACK" || return 1
	if [ "$broker" = rabbitmq ]; then
		e2e_spawn web web "$Q_WEB" "$Q_PY" "$Q_SRC/web_amqp.py" --listen "$Q_WEB" \
			--amqp "$Q_REDIS" --fanout "$fanout" || return 1
	else
		e2e_spawn web web "$Q_WEB" "$Q_PY" "$Q_SRC/web.py" --listen "$Q_WEB" --redis "$Q_VIA" \
			--mode "$mode" || return 1
		[ "$mode" = pubsub ] || q_workers_start || return 1
	fi
}

q_workers_start() {
	local i
	for ((i = 1; i <= workers; i++)); do
		if [ "$broker" = rabbitmq ]; then
			e2e_spawn "worker$i" workers "" "$Q_PY" "$Q_SRC/worker_amqp.py" --amqp "$Q_REDIS" \
				--back "$Q_BACK" --out "$E2E_DIR/jobs.jsonl" \
				--queue "$([ "$fanout" = 0 ] && echo jobs || echo "jobs.$(((i - 1) % fanout + 1))")" ||
				return 1
		else
			e2e_spawn "worker$i" workers "" "$Q_PY" "$Q_SRC/worker.py" --redis "$Q_VIA" \
				--back "$Q_BACK" --out "$E2E_DIR/jobs.jsonl" --mode "$mode" || return 1
		fi
	done
}

# Waits until the workers ran every job the client queued (their truth lines).
q_jobs_wait() {
	local n i
	n=$(($(wc -l <"$E2E_DIR/truth.jsonl") * (fanout ? fanout : 1)))
	[ "$mode" != pubsub ] || n=$((n * workers)) # every worker does every job
	for ((i = 0; i < 600; i++)); do
		[ "$(cat "$E2E_DIR/jobs.jsonl" 2>/dev/null | wc -l)" -ge "$n" ] && return 0
		sleep 0.1
	done
	e2e_log "the workers ran $(wc -l <"$E2E_DIR/jobs.jsonl") of $n jobs"
	return 1
}

why=$(e2e_servers_unavailable q_missing)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
e2e_hosts_setup client:$Q_CLIENT_IP web:${Q_WEB%:*} broker:${Q_REDIS%:*} workers:$Q_WORKERS_IP \
	back:${Q_BACK%:*} $([ "$relay" = none ] || echo relay:${Q_RELAY%:*}) || exit 2
on_exit 'e2e_keep_results "$keep"'
e2e_log "queue ($broker, $mode, relay $relay): seed $seed, $requests requests on $sessions sessions, $workers workers, capture $capture"
rec=()
[ $capture -eq 0 ] || rec=(--capture 256 --capture-port "${Q_REDIS#*:}")
[ $capture -eq 0 ] || [ $capture_back -eq 0 ] || rec+=(--capture-port "${Q_BACK#*:}")
# The servers and workers first (their connections open), then the
# recorders: the client's connections and ordinals are recorded from their
# start.  The workers' connections are recorded from their first call.
q_servers_start || exit 2
e2e_recorders_start "${rec[@]}" || exit 2
[ "$broker" = redis ] && [ "$mode" != pubsub ] || q_workers_start || exit 2
setsid ip netns exec "$(e2e_ns client)" python3 tests/pgbouncer/client.py --target "$Q_WEB" \
	--sessions "$sessions" --requests "$requests" --seed "$seed" --out "$E2E_DIR/truth.jsonl" \
	>"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" </dev/null &
E2E_CLIENT_PID=$!
e2e_client_wait client.py || exit 2
e2e_log "client: $(cat "$E2E_DIR/client.json")"
q_jobs_wait || exit 2
e2e_recorders_stop || { e2e_log "a recorder failed"; exit 2; }
e2e_servers_stop
e2e_analyze || exit 2
python3 "$Q_SRC/score.py" --truth "$E2E_DIR/truth.jsonl" --jobs "$E2E_DIR/jobs.jsonl" \
	--found "$E2E_DIR/found.json" --web "$Q_WEB" --redis "$Q_REDIS" --back "$Q_BACK" \
	--min-accuracy "$min_accuracy" --failures "$E2E_DIR/failures.jsonl"
