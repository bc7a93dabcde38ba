// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Node.js gateway of the event-loop workloads: one event loop, the `net`
// module only.  Clients send one JSON line per request:
//   {"id": N, "stages": [[call, ...], ...], "pad": "..."}
// Stages run one after the other; the calls of a stage run together
// (Promise.all).  A call {"d": 1, ...} first waits on a 1 ms timer.  Every
// call borrows one of POOL_SIZE persistent back-end connections; when all are
// busy the caller waits in a FIFO queue, and the connection is handed to the
// next waiter from the continuation of the callback that read the previous
// call's reply, so one request's call is often sent while the loop is
// handling another request's reply.  The reply to the client lists the true
// (back-end client port, ordinal) of every call, in plan order.
//
//   node gateway.js LISTEN_IP:PORT BACKEND_IP:PORT
'use strict';
const net = require('net');

const POOL_SIZE = 3;

function splitAddr(addr) {
	const i = addr.lastIndexOf(':');
	return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

// Calls `onLine` for every complete line that arrives on `sock`.
function readLines(sock, onLine) {
	let buf = '';
	sock.setEncoding('utf8');
	sock.on('data', (chunk) => {
		buf += chunk;
		let nl;
		while ((nl = buf.indexOf('\n')) >= 0) {
			const line = buf.slice(0, nl);
			buf = buf.slice(nl + 1);
			onLine(line);
		}
	});
}

// One persistent back-end connection carrying one call at a time.
class BackendConn {
	constructor(sock) {
		this.sock = sock;
		this.onReply = null;
		readLines(sock, (line) => {
			const done = this.onReply;
			this.onReply = null;
			if (!done) {
				fail('back end sent a reply nobody waits for');
			}
			done(JSON.parse(line));
		});
		sock.on('error', (e) => fail('back-end connection: ' + e.message));
		sock.on('close', () => fail('back end closed a pooled connection'));
	}

	call(msg) {
		return new Promise((resolve) => {
			this.onReply = resolve;
			this.sock.write(JSON.stringify(msg) + '\n');
		});
	}
}

// Idle connections and a FIFO queue of callers waiting for one.
class Pool {
	constructor(conns) {
		this.idle = conns.slice();
		this.waiters = [];
	}

	acquire() {
		if (this.idle.length > 0) {
			return Promise.resolve(this.idle.pop());
		}
		return new Promise((resolve) => this.waiters.push(resolve));
	}

	release(conn) {
		const next = this.waiters.shift();
		if (next) {
			next(conn);
		} else {
			this.idle.push(conn);
		}
	}
}

function fail(why) {
	process.stderr.write('gateway.js: ' + why + '\n');
	process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function backendCall(pool, call) {
	if (call.d) {
		await sleep(1);
	}
	const conn = await pool.acquire();
	try {
		const reply = await conn.call({ w: call.w, r: call.r, pad: 'q'.repeat(call.q) });
		return [reply.port, reply.ord];
	} finally {
		pool.release(conn);
	}
}

async function serveRequest(pool, sock, line) {
	const req = JSON.parse(line);
	const calls = [];
	for (const stage of req.stages) {
		const done = await Promise.all(stage.map((call) => backendCall(pool, call)));
		calls.push(...done);
	}
	sock.write(JSON.stringify({ id: req.id, calls }) + '\n');
}

function connectBackend(addr) {
	return new Promise((resolve, reject) => {
		const sock = net.connect(splitAddr(addr), () => resolve(sock));
		sock.setNoDelay(true);
		sock.once('error', reject);
	});
}

async function main() {
	const [listen, backend] = process.argv.slice(2);
	if (!listen || !backend) {
		fail('usage: node gateway.js LISTEN_IP:PORT BACKEND_IP:PORT');
	}
	const socks = [];
	for (let i = 0; i < POOL_SIZE; i++) {
		socks.push(await connectBackend(backend));
	}
	const pool = new Pool(socks.map((s) => new BackendConn(s)));
	const server = net.createServer((sock) => {
		sock.setNoDelay(true);
		sock.on('error', () => sock.destroy());
		readLines(sock, (line) => {
			serveRequest(pool, sock, line).catch((e) => fail('request: ' + e.message));
		});
	});
	const at = splitAddr(listen);
	server.listen(at.port, at.host, () => {
		process.stderr.write('gateway.js: listening on ' + listen + '\n');
	});
	process.on('SIGTERM', () => process.exit(0));
}

main().catch((e) => fail(e.message));
