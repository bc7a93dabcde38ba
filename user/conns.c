// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sock_diag gives, per socket, the same cookie that bpf_get_socket_cookie()
 * returns (and generates it if needed), so records of connections that
 * were open before the recorder started can be tied to their 4-tuple.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>

#include "conns.h"
#include "clock.h"
#include "output.h"

#define STATE_BIT(s) (1u << (s))
/* Connections that still carry (or may carry) data. */
#define OPEN_STATES                                                                         \
	(STATE_BIT(TCP_ESTABLISHED) | STATE_BIT(TCP_FIN_WAIT1) | STATE_BIT(TCP_FIN_WAIT2) | \
	 STATE_BIT(TCP_CLOSE_WAIT) | STATE_BIT(TCP_LAST_ACK) | STATE_BIT(TCP_CLOSING))

typedef int (*diag_fn)(const struct inet_diag_msg *msg, void *ctx);

/* Dump the TCP sockets of one family in the given states, one callback each. */
static int diag_dump(int family, uint32_t states, diag_fn fn, void *ctx)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nlh = {.nlmsg_len = sizeof(msg),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		.req = {.sdiag_family = (__u8)family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = states},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	size_t buflen = 32768;
	char *buf = malloc(buflen);
	int fd, err = 0;
	bool done = false;

	if (!buf)
		return -ENOMEM;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		err = -errno;
		goto cleanup;
	}
	while (!done && !err) {
		ssize_t n = recv(fd, buf, buflen, 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n) && !err;
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				err = e->error ? e->error : -EIO;
				break;
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
				err = fn(NLMSG_DATA(h), ctx);
		}
	}
cleanup:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

struct conns_ctx {
	struct output *out;
	unsigned ephemeral_lo, ephemeral_hi; /* ip_local_port_range */
	uint32_t netns;
	const uint16_t *ports;
	unsigned nports;
	uint8_t *listening; /* bitmap of listening local ports */
	uint64_t ts;
};

static int note_listener(const struct inet_diag_msg *m, void *arg)
{
	struct conns_ctx *c = arg;
	uint16_t port = ntohs(m->id.idiag_sport);

	c->listening[port / 8] |= (uint8_t)(1u << (port % 8));
	return 0;
}

static bool ports_wanted(const struct conns_ctx *c, uint16_t a, uint16_t b)
{
	if (!c->nports)
		return true;
	for (unsigned i = 0; i < c->nports; i++)
		if (c->ports[i] == a || c->ports[i] == b)
			return true;
	return false;
}

static bool ephemeral(const struct conns_ctx *c, uint16_t port)
{
	return port >= c->ephemeral_lo && port <= c->ephemeral_hi;
}

static bool listening(const struct conns_ctx *c, uint16_t port)
{
	return c->listening[port / 8] & (1u << (port % 8));
}

/*
 * The end whose local port is listening was accepted; one facing a port
 * that listens here (a local server) connected.  Without a listener (closed
 * since), an ephemeral local port facing a non-ephemeral remote one is the
 * client, and the reverse the server.
 */
static uint8_t role_of(const struct conns_ctx *c, uint16_t sport, uint16_t dport)
{
	if (listening(c, sport))
		return VPR_ROLE_ACCEPTED;
	if (listening(c, dport))
		return VPR_ROLE_CONNECTED;
	if (ephemeral(c, sport) && !ephemeral(c, dport))
		return VPR_ROLE_CONNECTED;
	if (!ephemeral(c, sport) && ephemeral(c, dport))
		return VPR_ROLE_ACCEPTED;
	return VPR_ROLE_UNKNOWN;
}

static void read_port_range(struct conns_ctx *c)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");

	c->ephemeral_lo = 32768;
	c->ephemeral_hi = 60999;
	if (!f)
		return;
	if (fscanf(f, "%u %u", &c->ephemeral_lo, &c->ephemeral_hi) != 2) {
		c->ephemeral_lo = 32768;
		c->ephemeral_hi = 60999;
	}
	fclose(f);
}

/* ::ffff:a.b.c.d, how an IPv6 socket holds an IPv4 peer. */
static bool v4_mapped(const __be32 *a)
{
	return a[0] == 0 && a[1] == 0 && a[2] == htonl(0xffff);
}

static int write_conn(const struct inet_diag_msg *m, void *arg)
{
	struct conns_ctx *c = arg;
	uint16_t sport = ntohs(m->id.idiag_sport), dport = ntohs(m->id.idiag_dport);
	struct vpr_conn rec;

	if (!ports_wanted(c, sport, dport))
		return 0;
	memset(&rec, 0, sizeof(rec));
	rec.h.type = VPR_CONN;
	rec.h.size = sizeof(rec);
	rec.h.ts_ns = c->ts;
	rec.cookie = (uint64_t)m->id.idiag_cookie[0] | (uint64_t)m->id.idiag_cookie[1] << 32;
	rec.netns = c->netns;
	rec.newstate = m->idiag_state;
	rec.origin = VPR_CONN_PREEXISTING;
	rec.role = role_of(c, sport, dport);
	rec.sport = sport;
	rec.dport = dport;
	/* Same normalization as the BPF side: a v4-mapped peer is IPv4. */
	if (m->idiag_family == AF_INET6 && !v4_mapped(m->id.idiag_dst)) {
		rec.family = AF_INET6;
		memcpy(rec.saddr, m->id.idiag_src, 16);
		memcpy(rec.daddr, m->id.idiag_dst, 16);
	} else {
		unsigned v4 = m->idiag_family == AF_INET6 ? 3 : 0; /* where the IPv4 word is */

		rec.family = AF_INET;
		memcpy(rec.saddr, &m->id.idiag_src[v4], 4);
		memcpy(rec.daddr, &m->id.idiag_dst[v4], 4);
	}
	return output__append(c->out, &rec);
}

int conns_write_preexisting(struct output *out, uint32_t netns, const uint16_t *ports,
			    unsigned nports, uint64_t ts)
{
	struct conns_ctx c = {.out = out,
			      .netns = netns,
			      .ports = ports,
			      .nports = nports,
			      .ts = ts ? ts : mono_ns()};
	static const int families[] = {AF_INET, AF_INET6};
	int err = 0;

	read_port_range(&c);
	c.listening = calloc(65536 / 8, 1);
	if (!c.listening)
		return -ENOMEM;
	for (unsigned i = 0; i < 2 && !err; i++)
		err = diag_dump(families[i], STATE_BIT(TCP_LISTEN), note_listener, &c);
	for (unsigned i = 0; i < 2 && !err; i++)
		err = diag_dump(families[i], OPEN_STATES, write_conn, &c);
	free(c.listening);
	return err;
}
