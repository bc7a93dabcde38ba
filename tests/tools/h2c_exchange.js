#!/usr/bin/env node
// An h2c (HTTP/2 without TLS, prior knowledge) exchange on loopback for the
// recorder's tests: one connection, STREAMS concurrent POST requests, each
// answered with a small body; or the same requests over HTTP/1.1 keep-alive
// ("h1"), whose connections must carry no HTTP/2 marks; or the same HTTP/2
// inside TLS with ALPN h2 ("h2tls": KEY and CERT, a certificate for
// 127.0.0.1, name the PEM files).
// usage: h2c_exchange.js h2|h1 PORT [STREAMS]
//        h2c_exchange.js h2tls PORT STREAMS KEY CERT
// Prints "conn client_port=N" for every connection the client opened.
'use strict';
const mode = process.argv[2];
const port = Number(process.argv[3]);
const streams = Number(process.argv[4] || 3);

function body(i) { return 'request ' + i + ' ' + 'x'.repeat(10 * i); }

if (mode === 'h2' || mode === 'h2tls') {
	const http2 = require('http2');
	const fs = require('fs');
	const tls = mode === 'h2tls';
	const cert = tls ? fs.readFileSync(process.argv[6]) : null;
	const server = tls ? http2.createSecureServer({ key: fs.readFileSync(process.argv[5]), cert })
		: http2.createServer();
	server.on('stream', (stream) => {
		let got = '';
		stream.on('data', (d) => { got += d; });
		stream.on('end', () => {
			stream.respond({ ':status': 200, 'content-type': 'text/plain' });
			stream.end('reply to ' + got);
		});
	});
	server.listen(port, '127.0.0.1', () => {
		const client = http2.connect((tls ? 'https' : 'http') + '://127.0.0.1:' + port,
			tls ? { ca: cert } : {});
		client.on('connect', () => console.log('conn client_port=' + client.socket.localPort));
		let left = streams;
		for (let i = 1; i <= streams; i++) {
			const req = client.request({ ':method': 'POST', ':path': '/s' + i });
			req.setEncoding('utf8');
			let reply = '';
			req.on('data', (d) => { reply += d; });
			req.on('end', () => {
				if (reply !== 'reply to ' + body(i)) {
					console.error('stream ' + i + ': wrong reply ' + JSON.stringify(reply));
					process.exitCode = 1;
				}
				if (--left === 0) {
					client.close(() => server.close());
				}
			});
			req.end(body(i));
		}
	});
} else {
	const http = require('http');
	const server = http.createServer((req, res) => {
		let got = '';
		req.on('data', (d) => { got += d; });
		req.on('end', () => res.end('reply to ' + got));
	});
	server.listen(port, '127.0.0.1', async () => {
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
		const seen = new Set();
		for (let i = 1; i <= streams; i++) {
			await new Promise((resolve, reject) => {
				const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/s' + i, agent }, (res) => {
					let reply = '';
					res.setEncoding('utf8');
					res.on('data', (d) => { reply += d; });
					res.on('end', () => {
						if (reply !== 'reply to ' + body(i)) {
							console.error('request ' + i + ': wrong reply');
							process.exitCode = 1;
						}
						resolve();
					});
				});
				req.on('socket', (s) => s.on('connect', () => {
					if (!seen.has(s.localPort)) { seen.add(s.localPort); console.log('conn client_port=' + s.localPort); }
				}));
				req.on('error', reject);
				req.end(body(i));
			});
		}
		agent.destroy();
		server.close();
	});
}
