// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// tests/logs' Node.js service: one event loop, console.log to stdout (a
// pipe in servers.sh).  GET /r?rid=N logs "start rid=N", answers after a
// timer of 0-2 ms, then logs "end rid=N"; a housekeeping line every 5 ms.
//
//   node service.js ADDR PORT
'use strict';
const http = require('http');

const [addr, port] = process.argv.slice(2);
let ticks = 0;
setInterval(() => console.log(`housekeeping tick ${++ticks}`), 5);
const server = http.createServer((req, res) => {
  const rid = new URL(req.url, 'http://x').searchParams.get('rid');
  console.log(`start rid=${rid}`);
  setTimeout(() => {
    res.end(`rid=${rid}\n`);
    console.log(`end rid=${rid}`);
  }, Math.floor(Math.random() * 3));
});
server.keepAliveTimeout = 300000;
server.listen(Number(port), addr);
