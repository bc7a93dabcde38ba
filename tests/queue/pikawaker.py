# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""pika's select loop wakes itself through a socket pair that pika makes
over TCP on 127.0.0.1 (pika.compat._nonblocking_socketpair, for Windows);
the 3 bytes a worker's loop sends itself there open a request that is
never answered, and every call the thread makes afterwards hangs under it
(the vPath rule: a thread's sends belong to the request it reads and has
not answered).  tests/queue's RabbitMQ clients take a Unix socket pair
instead (not TCP: not recorded); docs/analyzer.md "Queues as hops" says so."""
import socket

import pika.compat


def _unix_socketpair(*args, **kwargs):
    a, b = socket.socketpair()
    a.setblocking(False)
    b.setblocking(False)
    return a, b


pika.compat._nonblocking_socketpair = _unix_socketpair
