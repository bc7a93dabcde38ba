// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// HTTP/2 back end of the Node.js HTTP/2 workloads (README.md here):
// http2.createServer (h2c, prior knowledge) or, with --tls KEY CERT,
// http2.createSecureServer (ALPN h2).  POST /call with the body {"w":
// microseconds of work, "r": reply padding bytes, "pad": ...}; the reply
// {"port": P, "stream": S, "pad": "..."} names the call: the client port of
// its connection and its stream id; the scorer turns stream ids into
// ordinals (README.md here).  Work is a timer of
// at least 1 ms (setTimeout's grain) so that several streams' replies are
// pending at once, as on a busy server.
//
//   node backend_h2.js --listen IP:PORT [--tls KEY_FILE CERT_FILE]
'use strict';
const fs = require('fs');
const http2 = require('http2');

function fail(why) {
	process.stderr.write('backend_h2.js: ' + why + '\n');
	process.exit(1);
}

function answer(stream) {
	let data = '';
	stream.setEncoding('utf8');
	stream.on('data', (chunk) => { data += chunk; });
	stream.on('end', () => {
		let call;
		try {
			call = JSON.parse(data);
		} catch (e) {
			stream.respond({ ':status': 400 });
			stream.end();
			return;
		}
		const reply = () => {
			const out = JSON.stringify({
				port: stream.session.socket.remotePort, stream: stream.id,
				pad: 'r'.repeat(call.r || 0),
			});
			stream.respond({
				':status': 200, 'content-type': 'application/json',
				'content-length': Buffer.byteLength(out),
			});
			stream.end(out);
		};
		if (call.w) {
			setTimeout(reply, call.w / 1000);
		} else {
			setImmediate(reply);
		}
	});
}

function main() {
	const args = process.argv.slice(2);
	if (args[0] !== '--listen' || !args[1] ||
	    !(args.length === 2 || (args.length === 5 && args[2] === '--tls'))) {
		fail('usage: node backend_h2.js --listen IP:PORT [--tls KEY_FILE CERT_FILE]');
	}
	const listen = args[1];
	const server = args.length === 5 ?
		http2.createSecureServer({ key: fs.readFileSync(args[3]), cert: fs.readFileSync(args[4]) }) :
		http2.createServer();
	server.on('stream', answer);
	// the TCP socket, before TLS or HTTP/2 wrap it: a reply's frames go out at once
	server.on('connection', (socket) => socket.setNoDelay(true));
	// one session for the whole run: no idle timeout
	server.on('session', (session) => session.setTimeout(0));
	server.setTimeout(0);
	const i = listen.lastIndexOf(':');
	server.listen(Number(listen.slice(i + 1)), listen.slice(0, i), () => {
		process.stderr.write('backend_h2.js: listening on ' + listen + '\n');
	});
	process.on('SIGTERM', () => process.exit(0));
}

main();
