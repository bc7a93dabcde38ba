// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Node.js gateway of the HTTP/2 workloads (README.md here): the server of
// tests/evloop/gateway_http.js (HTTP/1.1 for the client, one event loop,
// stages, fan-out, 1 ms timers, the trace id forwarded), whose back-end
// calls are streams of ONE shared http2.connect() session, as a service
// with an HTTP/2 or gRPC client keeps one connection per upstream.  Without
// --tls the session is h2c with prior knowledge (no upgrade, the client
// preface first); with --tls CA_FILE it is TLS with ALPN h2, trusting the
// back end's self-signed certificate in CA_FILE.
//
//   node gateway_h2.js LISTEN_IP:PORT BACKEND_IP:PORT [--no-forward] [--tls CA_FILE]
'use strict';
const fs = require('fs');
const http2 = require('http2');
const { main, callMessage, readReply, fail } = require('../evloop/gateway_http.js');

function h2Calls(backend, opts) {
	let url = 'http://' + backend.host + ':' + backend.port;
	const options = {};
	if (opts[0] === '--tls' && opts.length === 2) {
		url = 'https://' + backend.host + ':' + backend.port;
		options.ca = fs.readFileSync(opts[1]);
	} else if (opts.length) {
		fail('unknown option ' + opts[0]);
	}
	const session = http2.connect(url, options);
	// The session lives for the whole run: its loss ends the gateway, so a
	// run never goes on over a second connection the truth does not expect.
	session.on('error', (e) => fail('back-end session: ' + e.message));
	session.on('close', () => fail('back-end session closed'));
	session.on('connect', (s, socket) => socket.setNoDelay(true));
	// The back end's SETTINGS: the connection's setup is over (run.sh's
	// preexisting variant starts the recorders after this line).
	session.once('remoteSettings', () => {
		process.stderr.write('gateway: back-end session ready\n');
	});
	return (traceId, call) => new Promise((resolve, reject) => {
		const { headers, body } = callMessage(traceId, call);
		const stream = session.request(Object.assign({ ':method': 'POST', ':path': '/call' },
			headers));
		stream.on('error', reject);
		readReply(stream, resolve, reject);
		stream.end(body);
	});
}

main(h2Calls,
	'usage: node gateway_h2.js LISTEN_IP:PORT BACKEND_IP:PORT [--no-forward] [--tls CA_FILE]');
