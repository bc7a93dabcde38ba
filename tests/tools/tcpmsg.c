// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A TCP client and server that exchange messages of known sizes and print
 * who they are (pid, tid, ports), so tests can check a recording against
 * what really happened.
 *
 *   tcpmsg server -p PORT [-a ADDR]
 *   tcpmsg client -a ADDR -p PORT [-n ROUNDS] [-w FILE] [-i USEC]
 *
 * Round r: the client writes req_size(r) bytes in one write(), the server
 * reads exactly that many and answers resp_size(r) bytes in one write().
 * -n 0 repeats until killed.  -w FILE: connect first, then wait until FILE
 * exists before exchanging (a connection opened before a recorder starts).
 * -i USEC: pause between rounds (steady traffic instead of a flood).
 * The server serves one connection, in a thread that renames itself to
 * "tcpmsg-srv" after it started; the client's thread is "tcpmsg-cli".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const unsigned req_sizes[] = { 1, 100, 1000, 3000 };
static const unsigned resp_sizes[] = { 10, 2000, 1, 300 };
#define NSIZES 4
static char buf[4096];

static unsigned req_size(unsigned long r)
{
	return req_sizes[r % NSIZES];
}

static unsigned resp_size(unsigned long r)
{
	return resp_sizes[r % NSIZES];
}

static int gettid_(void)
{
	return (int)syscall(SYS_gettid);
}

static int die(const char *what)
{
	fprintf(stderr, "tcpmsg: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Read exactly n bytes; 0 on success, 1 on EOF before any byte. */
static int read_exactly(int fd, unsigned n)
{
	unsigned got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0 && got == 0)
			return 1;
		if (k <= 0)
			die("read");
		got += (unsigned)k;
	}
	return 0;
}

static void write_once(int fd, unsigned n)
{
	ssize_t k = write(fd, buf, n);

	if (k != (ssize_t)n)
		die("write (short)");
}

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static void make_addr(struct addr *a, const char *host, unsigned port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		a->len = sizeof(*in);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		a->len = sizeof(*in6);
	} else {
		fprintf(stderr, "tcpmsg: bad address '%s'\n", host);
		exit(2);
	}
}

static unsigned port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void print_ends(const char *who, int fd)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);

	if (getsockname(fd, (struct sockaddr *)&l, &ll) ||
	    getpeername(fd, (struct sockaddr *)&r, &rl))
		die("getsockname");
	printf("%s pid=%d tid=%d lport=%u rport=%u\n", who, getpid(), gettid_(), port_of(&l),
	       port_of(&r));
	fflush(stdout);
}

static void *serve(void *arg)
{
	int fd = (int)(long)arg;
	unsigned long r;

	pthread_setname_np(pthread_self(), "tcpmsg-srv");
	print_ends("server", fd);
	for (r = 0; read_exactly(fd, req_size(r)) == 0; r++)
		write_once(fd, resp_size(r));
	printf("server done rounds=%lu\n", r);
	fflush(stdout);
	close(fd);
	return NULL;
}

static int run_server(const char *host, unsigned port)
{
	struct addr a;
	pthread_t t;
	int one = 1, lfd, fd;

	make_addr(&a, host, port);
	lfd = socket(a.ss.ss_family, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a.ss, a.len) || listen(lfd, 8))
		die("bind/listen");
	printf("listening pid=%d port=%u\n", getpid(), port);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	/* Like a real server, keep listening while serving. */
	if (pthread_create(&t, NULL, serve, (void *)(long)fd))
		die("pthread_create");
	pthread_join(t, NULL);
	close(lfd);
	return 0;
}

static int run_client(const char *host, unsigned port, unsigned long rounds, const char *wait,
		      unsigned pause_us)
{
	unsigned long long sent = 0, received = 0;
	struct addr a;
	unsigned long r;
	int fd;

	prctl(PR_SET_NAME, "tcpmsg-cli", 0, 0, 0);
	make_addr(&a, host, port);
	fd = socket(a.ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	for (int tries = 0; connect(fd, (struct sockaddr *)&a.ss, a.len); tries++) {
		if (errno != ECONNREFUSED || tries > 100)
			die("connect");
		usleep(20000);
	}
	print_ends("client", fd);
	while (wait && access(wait, F_OK))
		usleep(10000);
	for (r = 0; rounds == 0 || r < rounds; r++) {
		write_once(fd, req_size(r));
		sent += req_size(r);
		if (read_exactly(fd, resp_size(r)))
			die("server closed early");
		received += resp_size(r);
		if (pause_us)
			usleep(pause_us);
	}
	printf("client done rounds=%lu sent=%llu received=%llu\n", r, sent, received);
	fflush(stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *host = NULL, *wait = NULL;
	unsigned long rounds = 8;
	unsigned port = 0, pause_us = 0;
	int c;

	if (argc < 2) {
		fprintf(stderr, "usage: tcpmsg server|client [-a ADDR] -p PORT [-n ROUNDS] "
				"[-w FILE] [-i USEC]\n");
		return 2;
	}
	while ((c = getopt(argc - 1, argv + 1, "a:p:n:w:i:")) != -1) {
		switch (c) {
		case 'a':
			host = optarg;
			break;
		case 'p':
			port = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			rounds = strtoul(optarg, NULL, 10);
			break;
		case 'w':
			wait = optarg;
			break;
		case 'i':
			pause_us = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	if (!port || port > 65535) {
		fprintf(stderr, "tcpmsg: -p PORT is required\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	if (!strcmp(argv[1], "server"))
		return run_server(host ? host : "0.0.0.0", port);
	if (!strcmp(argv[1], "client") && host)
		return run_client(host, port, rounds, wait, pause_us);
	fprintf(stderr, "tcpmsg: unknown mode '%s' (or client without -a)\n", argv[1]);
	return 2;
}
