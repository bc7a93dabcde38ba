#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx in the foreground for tests/h2/run.sh's nginx variants: the config
# made from nginx_grpc.conf.in into DIR, then "listening on" once nginx
# listens (what run.sh's server start waits for).  Ends with nginx.
#
#   nginx_run.sh DIR LISTEN_IP:PORT BACKEND_IP:PORT keepalive|close
set -u
dir=$1 listen=$2 backend=$3 keep=
# More idle connections kept than calls are ever in flight: nginx closes
# none for lack of room (README.md: the back end counts calls per client
# port, and a port freed by a reset may be taken by the next connect).
[ "$4" != keepalive ] || keep='keepalive 256; keepalive_requests 1000000; keepalive_timeout 300s;'
mkdir -p "$dir" || exit 1
sed -e "s|@DIR@|$dir|g" -e "s|@LISTEN@|$listen|g" -e "s|@BACKEND@|$backend|g" \
	-e "s|@KEEPALIVE@|$keep|" "$(dirname "$0")/nginx_grpc.conf.in" >"$dir/nginx.conf" || exit 1
/usr/sbin/nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" -g 'daemon off;' &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM INT
for _ in $(seq 200); do
	if ss -Htln "src ${listen%:*} and sport = :${listen##*:}" | grep -q .; then
		echo "nginx_run.sh: listening on $listen"
		wait $pid
		exit
	fi
	kill -0 $pid 2>/dev/null || exit 1
	sleep 0.05
done
echo "nginx_run.sh: nginx does not listen on $listen" >&2
kill -TERM $pid
exit 1
