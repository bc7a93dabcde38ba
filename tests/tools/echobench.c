// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * echobench: the vPath paper's worst case for a send/recv tracer (§4.2).
 *
 * A 1-byte echo server (one thread per connection) and N client threads,
 * each with its own persistent TCP_NODELAY connection over loopback, doing
 * blocking send + recv round trips as fast as they can.  The application
 * does almost nothing per network operation, so whatever a tracer adds per
 * operation shows up undiluted in the throughput.  Each round trip is four
 * socket operations (client send, server recv, server send, client recv).
 *
 * With --rate the clients are paced to a total offered load instead, which
 * lets a benchmark find the highest event rate a recorder sustains.
 *
 * With --workers N the server hands every message it receives to a pool of
 * N worker threads over a condition variable and waits until one has taken
 * it (the executor habit, issue 10): two futex wake-ups between threads of
 * the process per round trip, what `vpath-record --wakeups` records.
 *
 * Prints one line of key=value pairs on stdout, e.g.
 *   echobench threads=50 size=1 rate=0 seconds=5.000 roundtrips=812345
 *     rt_per_s=162469.0 ops_per_s=649876.0 thread_min=3001.2 thread_max=3500.4
 *     thread_cv=0.041 cpu_us_per_rt=12.310 pid=1234 port=40000
 * (one line).  thread_min/max are per-thread round trips per second and
 * thread_cv their coefficient of variation: fairness between the threads.
 * cpu_us_per_rt is the process's CPU time (user + system, all threads) per
 * round trip in the measured window: unlike throughput it hardly moves when
 * other work shares the machine, so a tracer's cost per operation shows in
 * it even on a busy machine.  Loopback delivery runs in the sender's system
 * call, so nearly all the work of a round trip is charged here.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096
#define MAX_MSG 65536

struct bench_opts {
	int threads;
	double seconds;
	double rate;	 /* total round trips per second, 0 = as fast as possible */
	int size;	 /* message bytes */
	int port;	 /* 0 = any free port */
	double warmup;	 /* seconds of traffic before counting starts */
	int workers;	 /* hand-off pool size, 0 = the connection's thread echoes itself */
};

/* One client thread's state; padded so counters do not share cache lines. */
struct client {
	pthread_t thread;
	int fd;
	struct bench_opts *opts;
	_Atomic unsigned long long roundtrips;
	int err; /* errno of the failure that stopped this client, 0 if none */
	char pad[64];
};

struct server {
	int listen_fd;
	int expected; /* connections to accept */
	int accepted;
	pthread_t *echo_threads;
	int err;
};

static atomic_bool stop;
static pthread_barrier_t start_barrier;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: echobench [-t THREADS] [-d SECONDS] [-r RATE] [-s BYTES] [-P PORT] [-w SECONDS]\n"
		"                 [-W WORKERS]\n"
		"Loopback echo benchmark: THREADS clients doing blocking BYTES-sized round trips.\n"
		"  -t, --threads N    client threads and connections (default 50)\n"
		"  -d, --duration S   measured seconds, may be fractional (default 5)\n"
		"  -r, --rate R       pace all clients to R round trips/s in total (default 0: flat out)\n"
		"  -s, --size B       message bytes (default 1)\n"
		"  -P, --port P       listen on 127.0.0.1:P (default 0: any free port)\n"
		"  -w, --warmup S     seconds of traffic before counting (default 0.5)\n"
		"  -W, --workers N    hand each message to a pool of N threads (default 0: none)\n"
		"Prints one line: echobench threads=.. rt_per_s=.. ops_per_s=.. thread_min=.. ...\n"
		"Example: echobench -t 50 -d 5\n");
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'P' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "workers", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	double v;
	int c;

	*o = (struct bench_opts){ .threads = 50, .seconds = 5, .size = 1, .warmup = 0.5 };
	while ((c = getopt_long(argc, argv, "t:d:r:s:P:w:W:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_double(optarg, 1, MAX_THREADS, &v))
				goto bad;
			o->threads = (int)v;
			break;
		case 'd':
			if (parse_double(optarg, 0.01, 86400, &o->seconds))
				goto bad;
			break;
		case 'r':
			if (parse_double(optarg, 0, 1e9, &o->rate))
				goto bad;
			break;
		case 's':
			if (parse_double(optarg, 1, MAX_MSG, &v))
				goto bad;
			o->size = (int)v;
			break;
		case 'P':
			if (parse_double(optarg, 0, 65535, &v))
				goto bad;
			o->port = (int)v;
			break;
		case 'w':
			if (parse_double(optarg, 0, 3600, &o->warmup))
				goto bad;
			break;
		case 'W':
			if (parse_double(optarg, 0, MAX_THREADS, &v))
				goto bad;
			o->workers = (int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "echobench: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
bad:
	fprintf(stderr, "echobench: invalid value '%s' for -%c (see --help)\n", optarg, c);
	return -EINVAL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sends or receives exactly len bytes; -errno on failure, -EPIPE on EOF. */
static int xfer_all(int fd, char *buf, int len, bool send_dir)
{
	int done = 0;

	while (done < len) {
		ssize_t n = send_dir ? send(fd, buf + done, len - done, MSG_NOSIGNAL)
				     : recv(fd, buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		done += (int)n;
	}
	return 0;
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * --workers: messages wait in one queue under one lock; a worker takes one,
 * marks it handled and wakes the connection's thread waiting for it.
 */
struct job {
	struct job *next;
	bool done;
	pthread_cond_t done_cv;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t queued;
	struct job *head, *tail;
	bool closing;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .queued = PTHREAD_COND_INITIALIZER };

/* Hands j to the pool and waits until a worker has handled it. */
static void pool_run(struct job *j)
{
	pthread_mutex_lock(&pool.lock);
	j->done = false;
	j->next = NULL;
	if (pool.tail)
		pool.tail->next = j;
	else
		pool.head = j;
	pool.tail = j;
	pthread_cond_signal(&pool.queued);
	while (!j->done)
		pthread_cond_wait(&j->done_cv, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
}

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		struct job *j;

		while (!pool.head && !pool.closing)
			pthread_cond_wait(&pool.queued, &pool.lock);
		if (!pool.head)
			break;
		j = pool.head;
		pool.head = j->next;
		if (!pool.head)
			pool.tail = NULL;
		j->done = true;
		pthread_cond_signal(&j->done_cv);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

static void pool_close(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.closing = true;
	pthread_cond_broadcast(&pool.queued);
	pthread_mutex_unlock(&pool.lock);
}

static bool use_pool;

/* Echoes until the client closes; the fd is owned by this thread. */
static void *echo_main(void *arg)
{
	int fd = (int)(long)arg;
	char buf[MAX_MSG];
	struct job job = { .done_cv = PTHREAD_COND_INITIALIZER };

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && use_pool)
			pool_run(&job);
		if (n <= 0 || xfer_all(fd, buf, (int)n, true))
			break;
	}
	pthread_cond_destroy(&job.done_cv);
	close(fd);
	return NULL;
}

static void *acceptor_main(void *arg)
{
	struct server *s = arg;

	while (s->accepted < s->expected) {
		int fd = accept(s->listen_fd, NULL, NULL);
		int err;

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0) {
			s->err = errno;
			break;
		}
		set_nodelay(fd);
		err = pthread_create(&s->echo_threads[s->accepted], NULL, echo_main,
				     (void *)(long)fd);
		if (err) {
			close(fd);
			s->err = err;
			break;
		}
		s->accepted++;
	}
	return NULL;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	const struct bench_opts *o = c->opts;
	char buf[MAX_MSG];
	/* Each thread carries rate/threads of the offered load. */
	double interval = o->rate > 0 ? o->threads / o->rate : 0;
	double next;

	memset(buf, 'x', (size_t)o->size);
	pthread_barrier_wait(&start_barrier);
	next = now_s();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int err;

		if (interval > 0) {
			double late = now_s() - next;

			if (late < 0) {
				struct timespec ts = { .tv_sec = (time_t)-late,
						       .tv_nsec = (long)((-late - (time_t)-late) * 1e9) };
				nanosleep(&ts, NULL);
			} else if (late > 10 * interval) {
				/* Fell far behind (saturated): do not burst to catch up. */
				next = now_s();
			}
			next += interval;
		}
		err = xfer_all(c->fd, buf, o->size, true);
		if (!err)
			err = xfer_all(c->fd, buf, o->size, false);
		if (err) {
			c->err = -err;
			break;
		}
		atomic_fetch_add_explicit(&c->roundtrips, 1, memory_order_relaxed);
	}
	return NULL;
}

static int listen_loopback(int port, int backlog, int *bound_port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(sa);
	int one = 1, fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	*bound_port = ntohs(sa.sin_port);
	return fd;
}

static int connect_loopback(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	set_nodelay(fd);
	return fd;
}

static void snapshot(struct client *clients, int n, unsigned long long *out)
{
	for (int i = 0; i < n; i++)
		out[i] = atomic_load_explicit(&clients[i].roundtrips, memory_order_relaxed);
}

/* CPU seconds (user + system) of the whole process so far. */
static double process_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static void report(const struct bench_opts *o, const unsigned long long *before,
		   const unsigned long long *after, double seconds, double cpu_s, int port)
{
	double total = 0, min = INFINITY, max = 0, sum_sq = 0, mean, cv;

	for (int i = 0; i < o->threads; i++) {
		double r = (after[i] - before[i]) / seconds;

		total += after[i] - before[i];
		min = r < min ? r : min;
		max = r > max ? r : max;
		sum_sq += r * r;
	}
	mean = total / seconds / o->threads;
	cv = mean > 0 ? sqrt(fmax(sum_sq / o->threads - mean * mean, 0)) / mean : 0;
	printf("echobench threads=%d size=%d rate=%.0f seconds=%.3f roundtrips=%.0f "
	       "rt_per_s=%.1f ops_per_s=%.1f thread_min=%.1f thread_max=%.1f thread_cv=%.3f "
	       "cpu_us_per_rt=%.3f pid=%d port=%d\n",
	       o->threads, o->size, o->rate, seconds, total, total / seconds, 4 * total / seconds,
	       min, max, cv, total > 0 ? cpu_s * 1e6 / total : 0, (int)getpid(), port);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct bench_opts opts;
	struct server srv = { .listen_fd = -1 };
	struct client *clients = NULL;
	unsigned long long *before = NULL, *after = NULL;
	pthread_t acceptor, *workers = NULL;
	bool acceptor_started = false, barrier_ready = false;
	int started = 0, nworkers = 0, port = 0, err = 0, ret = 1;
	double t0, t1, cpu0, cpu1;

	if (parse_opts(argc, argv, &opts))
		return 2;

	clients = calloc((size_t)opts.threads, sizeof(*clients));
	before = calloc((size_t)opts.threads, sizeof(*before));
	after = calloc((size_t)opts.threads, sizeof(*after));
	srv.echo_threads = calloc((size_t)opts.threads, sizeof(*srv.echo_threads));
	if (!clients || !before || !after || !srv.echo_threads) {
		fprintf(stderr, "echobench: out of memory\n");
		goto cleanup;
	}

	use_pool = opts.workers > 0;
	workers = calloc((size_t)opts.workers + 1, sizeof(*workers));
	if (!workers) {
		fprintf(stderr, "echobench: out of memory\n");
		goto cleanup;
	}
	for (; nworkers < opts.workers; nworkers++) {
		err = pthread_create(&workers[nworkers], NULL, worker_main, NULL);
		if (err) {
			fprintf(stderr, "echobench: cannot start worker #%d: %s\n", nworkers,
				strerror(err));
			goto cleanup;
		}
	}

	srv.listen_fd = listen_loopback(opts.port, opts.threads, &port);
	if (srv.listen_fd < 0) {
		err = srv.listen_fd;
		fprintf(stderr, "echobench: listen on 127.0.0.1:%d: %s\n", opts.port, strerror(-err));
		goto cleanup;
	}
	srv.expected = opts.threads;
	err = pthread_create(&acceptor, NULL, acceptor_main, &srv);
	if (err) {
		fprintf(stderr, "echobench: cannot start the acceptor: %s\n", strerror(err));
		goto cleanup;
	}
	acceptor_started = true;

	/* Connect everything first: connection setup is not what is measured. */
	for (int i = 0; i < opts.threads; i++) {
		clients[i].fd = connect_loopback(port);
		clients[i].opts = &opts;
		if (clients[i].fd < 0) {
			err = clients[i].fd;
			fprintf(stderr, "echobench: connect #%d: %s\n", i, strerror(-err));
			for (int j = 0; j < i; j++)
				close(clients[j].fd);
			shutdown(srv.listen_fd, SHUT_RDWR);
			goto cleanup;
		}
	}

	pthread_barrier_init(&start_barrier, NULL, (unsigned)opts.threads + 1);
	barrier_ready = true;
	for (; started < opts.threads; started++) {
		err = pthread_create(&clients[started].thread, NULL, client_main, &clients[started]);
		if (err) {
			/* Without every thread the barrier cannot open: stop here. */
			fprintf(stderr, "echobench: cannot start client thread #%d: %s\n", started,
				strerror(err));
			exit(1);
		}
	}
	pthread_barrier_wait(&start_barrier);

	if (opts.warmup > 0)
		usleep((useconds_t)(opts.warmup * 1e6));
	snapshot(clients, opts.threads, before);
	cpu0 = process_cpu_s();
	t0 = now_s();
	usleep((useconds_t)(opts.seconds * 1e6));
	snapshot(clients, opts.threads, after);
	cpu1 = process_cpu_s();
	t1 = now_s();
	atomic_store(&stop, true);

	err = 0;
	for (int i = 0; i < started; i++) {
		pthread_join(clients[i].thread, NULL);
		/* Closing the client end lets its echo thread see EOF and exit. */
		close(clients[i].fd);
		if (clients[i].err && !err)
			err = clients[i].err;
	}
	if (err) {
		fprintf(stderr, "echobench: a client failed: %s\n", strerror(err));
		goto cleanup;
	}
	report(&opts, before, after, t1 - t0, cpu1 - cpu0, port);
	ret = 0;

cleanup:
	if (acceptor_started) {
		pthread_join(acceptor, NULL);
		for (int i = 0; i < srv.accepted; i++)
			pthread_join(srv.echo_threads[i], NULL);
		if (srv.err) {
			fprintf(stderr, "echobench: accept: %s\n", strerror(srv.err));
			ret = 1;
		}
	}
	pool_close();
	for (int i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	free(workers);
	if (barrier_ready)
		pthread_barrier_destroy(&start_barrier);
	if (srv.listen_fd >= 0)
		close(srv.listen_fd);
	free(srv.echo_threads);
	free(after);
	free(before);
	free(clients);
	return ret;
}
