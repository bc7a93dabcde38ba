# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# RabbitMQ for tests/queue/run.sh --broker rabbitmq (sourced): a node of
# its own in the broker's network namespace, every file of it in
# $E2E_DIR/rabbitmq, and its own epmd there in the foreground (erl would
# start one as a daemon, outside the process groups the harness stops).
# The node runs as root from /usr/lib/rabbitmq/bin (Debian's
# /usr/sbin/rabbitmq-server switches to the rabbitmq user).

q_rabbitmq_start() { # addr (ip:port)
	local d=$E2E_DIR/rabbitmq
	mkdir -p "$d/mnesia" "$d/log" || return 1
	# guest may log in from the test network; nothing but the AMQP listener
	printf 'loopback_users = none\nlisteners.tcp.default = %s\n' "$1" >"$d/rabbitmq.conf"
	: >"$d/enabled_plugins"
	: >"$d/rabbitmq-env.conf"
	e2e_spawn epmd broker "0.0.0.0:4369" /usr/bin/epmd -port 4369 || return 1
	# Startup takes 5-60 s on a loaded machine.
	E2E_SPAWN_WAIT=1800 e2e_spawn rabbitmq broker "$1" env HOME="$d" RABBITMQ_NODENAME=rabbit@localhost \
		RABBITMQ_NODE_IP_ADDRESS="${1%:*}" RABBITMQ_NODE_PORT="${1#*:}" \
		RABBITMQ_DIST_PORT=25672 ERL_EPMD_PORT=4369 RABBITMQ_MNESIA_BASE="$d/mnesia" \
		RABBITMQ_LOG_BASE="$d/log" RABBITMQ_LOGS=- RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf" \
		RABBITMQ_ADVANCED_CONFIG_FILE="$d/advanced.config" \
		RABBITMQ_CONF_ENV_FILE="$d/rabbitmq-env.conf" \
		RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins" RABBITMQ_PID_FILE="$d/pid" \
		/usr/lib/rabbitmq/bin/rabbitmq-server
}
