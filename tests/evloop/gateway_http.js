// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Node.js gateway of the HTTP event-loop workload, in the habits of a real
// service: an `http` server, and an `http.Agent({keepAlive: true,
// maxSockets: 3})` for the back end, whose own FIFO queue holds the calls
// waiting for one of its 3 sockets.  A request is POST /plan whose body's
// first line is the plan (tests/handoff/client.py plan_text): stages
// separated by '|', run one after the other; the calls of a stage, separated
// by ',', run together (Promise.all); a call d.w.q.r first waits 1 ms when d
// is 1 (setTimeout), asks the back end for w microseconds of work and r
// reply bytes, and sends q bytes.  Each call carries the request's trace id
// in `traceparent` with a new parent id, as a tracing library forwards it;
// with --no-forward each call starts a trace of its own instead (a service
// whose tracing does not read the incoming header).  The reply lists the
// true (back-end client port, ordinal) of every call, in plan order.
// tests/h2/gateway_h2.js runs the same server with its calls sent as
// HTTP/2 streams instead (main's makeCall).
//
//   node gateway_http.js LISTEN_IP:PORT BACKEND_IP:PORT [--no-forward]
'use strict';
const http = require('http');
const crypto = require('crypto');

function splitAddr(addr) {
	const i = addr.lastIndexOf(':');
	return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

function fail(why) {
	process.stderr.write('gateway_http.js: ' + why + '\n');
	process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (bytes) => crypto.randomBytes(bytes).toString('hex');

// "d.w.q.r,d.w.q.r|..." -> [[{d, w, q, r}, ...], ...]
function parsePlan(text) {
	if (!text) {
		return [];
	}
	return text.split('|').map((stage) => stage.split(',').map((c) => {
		const [d, w, q, r] = c.split('.').map(Number);
		return { d, w, q, r };
	}));
}

// The trace id of an incoming traceparent, or null.
function traceIdOf(header) {
	const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(header || '');
	return m ? m[1] : null;
}

// What a call sends: its headers (a new parent id under the request's
// trace) and its JSON body.
function callMessage(traceId, call) {
	const body = JSON.stringify({ w: call.w, r: call.r, pad: 'q'.repeat(call.q) });
	const headers = {
		traceparent: '00-' + (traceId || hex(16)) + '-' + hex(8) + '-01',
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(body),
	};
	return { headers, body };
}

// Reads a reply body {"port", "ord", ...} from RES (a stream of chunks):
// resolves with the call's true [client port, ordinal]; from an HTTP/2
// back end (tests/h2) {"port", "stream", ...}: [client port, stream id].
function readReply(res, resolve, reject) {
	let data = '';
	res.setEncoding('utf8');
	res.on('data', (chunk) => { data += chunk; });
	res.on('end', () => {
		try {
			const reply = JSON.parse(data);
			resolve([reply.port, 'stream' in reply ? reply.stream : reply.ord]);
		} catch (e) {
			reject(new Error('back-end reply: ' + e.message));
		}
	});
}

// Calls over HTTP/1.1 through a keep-alive agent of 3 sockets.
function http1Calls(backend) {
	const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
	return (traceId, call) => new Promise((resolve, reject) => {
		const { headers, body } = callMessage(traceId, call);
		const req = http.request({
			host: backend.host, port: backend.port, method: 'POST', path: '/call', agent,
			headers,
		}, (res) => readReply(res, resolve, reject));
		req.on('error', reject);
		req.end(body);
	});
}

async function serveRequest(backendCall, forward, req, body) {
	const plan = parsePlan(body.split('\n', 1)[0]);
	const traceId = forward ? traceIdOf(req.headers.traceparent) : null;
	const calls = [];
	for (const stage of plan) {
		const done = await Promise.all(stage.map(async (call) => {
			if (call.d) {
				await sleep(1);
			}
			return backendCall(traceId, call);
		}));
		calls.push(...done);
	}
	return { id: Number(req.headers['x-request-id']), calls };
}

// MAKECALL(backend {host, port}, the options after the two addresses)
// returns the function that makes one back-end call.
function main(makeCall, usage) {
	const [listen, backendAddr, ...opts] = process.argv.slice(2);
	const forward = opts[0] !== '--no-forward';
	if (!forward) {
		opts.shift();
	}
	if (!listen || !backendAddr) {
		fail(usage);
	}
	const backendCall = makeCall(splitAddr(backendAddr), opts);
	const server = http.createServer((req, res) => {
		let body = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => { body += chunk; });
		req.on('end', () => {
			serveRequest(backendCall, forward, req, body).then((reply) => {
				const out = JSON.stringify(reply);
				res.writeHead(200, {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(out),
				});
				res.end(out);
			}, (e) => fail('request: ' + e.message));
		});
	});
	// Client connections stay open between requests as long as the client wants.
	server.keepAliveTimeout = 0;
	server.headersTimeout = 0;
	server.requestTimeout = 0;
	const at = splitAddr(listen);
	server.listen(at.port, at.host, () => {
		process.stderr.write('gateway: listening on ' + listen + '\n');
	});
	process.on('SIGTERM', () => process.exit(0));
}

module.exports = { main, callMessage, readReply, fail };

if (require.main === module) {
	main((backend, opts) => {
		if (opts.length) {
			fail('unknown option ' + opts[0]);
		}
		return http1Calls(backend);
	}, 'usage: node gateway_http.js LISTEN_IP:PORT BACKEND_IP:PORT [--no-forward]');
}
