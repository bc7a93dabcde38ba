<?php
// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The PHP application of the PHP stack (tests/phpstack), run by PHP-FPM's
// workers behind nginx.  Per request: a NEW MariaDB connection over TLS
// (mysqli), ?q=N queries (N drawn by the client, 0..5) whose ranges come from
// the seed ?s=S, then close (COM_QUIT).  The reply tells the ground truth in
// headers, so that nothing is taken from vpath:
//
//   X-Rid      the client's request id (its X-Rid header), echoed
//   X-Queries  queries made
//   X-Fcgi     "NGINX_IP:PORT ORDINAL INODE": the FastCGI connection this
//              request came on (nginx's end; the socket's inode tells apart two
//              connections on one port) and its 0-based ordinal on it
//   X-Db       "PHP_IP:PORT ID": this request's MariaDB connection (PHP's end)
//              and MariaDB's connection id, the one in its general log
//   X-Worker   the PHP-FPM worker's pid
//
// The two connections are found in /proc: the worker's socket descriptors
// and the namespace's TCP table.  Every query carries the request id in a
// comment, so MariaDB's general log confirms all of it.
$rid = $_SERVER['HTTP_X_RID'] ?? '';
$want = (int)($_GET['q'] ?? 0);
mt_srand((int)($_GET['s'] ?? 0));

// inode => [local "ip:port", remote "ip:port", state] of this process's TCP sockets
function own_tcp_sockets(): array
{
	$mine = [];
	foreach (scandir('/proc/self/fd') as $fd) {
		$target = @readlink("/proc/self/fd/$fd");
		if ($target && preg_match('/^socket:\[(\d+)\]$/', $target, $m)) {
			$mine[$m[1]] = true;
		}
	}
	// one regex over the whole table: after a while it holds a TIME_WAIT
	// line for every request's MariaDB connection
	preg_match_all('/^\s*\d+: (\S+) (\S+) (\S+)(?:\s+\S+){5}\s+(\d+)/m',
		file_get_contents('/proc/self/net/tcp'), $rows, PREG_SET_ORDER);
	$found = [];
	foreach ($rows as [, $local, $remote, $state, $inode]) {
		if (isset($mine[$inode])) {
			$found[$inode] = [hex_addr($local), hex_addr($remote), $state];
		}
	}
	return $found;
}

// "0100007F:1F90" -> "127.0.0.1:8080"
function hex_addr(string $hex): string
{
	[$ip, $port] = explode(':', $hex);
	$bytes = array_reverse(str_split($ip, 2));
	return implode('.', array_map('hexdec', $bytes)) . ':' . hexdec($port);
}

function fail(string $why): void
{
	http_response_code(500);
	header('Content-Type: text/plain');
	echo "app.php: $why\n";
	exit;
}

try {
	$db = mysqli_init();
	$db->options(MYSQLI_OPT_SSL_VERIFY_SERVER_CERT, true);
	$db->ssl_set(null, null, getenv('PS_CA'), null, null);
	$db->real_connect(getenv('PS_DB_HOST'), 'vpath', getenv('PS_DB_PASSWORD'), 'vpath',
		(int)getenv('PS_DB_PORT'), null, MYSQLI_CLIENT_SSL);
	$fcgi = $db_addr = null;
	foreach (own_tcp_sockets() as $inode => [$local, $remote, $state]) {
		if ($state !== '01') { // ESTABLISHED only: not the listening socket
			continue;
		}
		if (str_ends_with($remote, ':' . getenv('PS_DB_PORT'))) {
			$db_addr = $local;
		} elseif (str_ends_with($local, ':' . getenv('PS_FCGI_PORT'))) {
			$fcgi = [$remote, $inode];
		}
	}
	if ($fcgi === null || $db_addr === null) {
		fail('cannot find my FastCGI or MariaDB connection in /proc');
	}
	// Exchanges on this FastCGI connection so far: a worker serves one
	// connection at a time, so a file per socket is enough.
	$count_file = getenv('PS_STATE') . '/fcgi-' . $fcgi[1];
	$ordinal = (int)@file_get_contents($count_file);
	file_put_contents($count_file, (string)($ordinal + 1));

	$rows = 0;
	for ($i = 0; $i < $want; $i++) {
		$from = mt_rand(0, 999);
		$to = $from + mt_rand(0, 60);
		$res = $db->query("SELECT /* rid=$rid q=$i */ id, val FROM items " .
			"WHERE id BETWEEN $from AND $to");
		$rows += count($res->fetch_all());
		$res->free();
	}
	$id = $db->thread_id;
	$db->close();
} catch (mysqli_sql_exception $e) {
	fail('MariaDB: ' . $e->getMessage());
}
header('Content-Type: text/plain');
header("X-Rid: $rid");
header("X-Queries: $want");
header("X-Fcgi: $fcgi[0] $ordinal $fcgi[1]");
header("X-Db: $db_addr $id");
header('X-Worker: ' . getmypid());
echo "request $rid: $want queries, $rows rows\n";
