/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 2b, connections across hosts: which recorded host owns an address,
 * so that an end whose peer is not recorded is known at once (external) and
 * one whose peer is recorded waits for it (docs/analyzer.md, pairing).
 *
 * A host's own addresses are what its recorder listed (VPR_ADDR) for the
 * namespace it ran in.  A recorder without --netns (header netns 0) records
 * every namespace of its machine, but lists the addresses of one: the local
 * addresses of its sockets in the other namespaces are learned here from
 * their connection records, and once such a socket is seen, an address no
 * host is known to own may still be one of this machine's namespaces whose
 * sockets have not shown up yet, so nobody's peer is external by address
 * alone any more (vp_owners__where says PEER_UNKNOWN: wait for it).
 */
#ifndef VPATH_OWNERS_H
#define VPATH_OWNERS_H

#include <stdbool.h>
#include <stddef.h>

#include "endpoint.h"
#include "hashmap.h"
#include "host.h"
#include "vpath/record.h"

/* Learned addresses are few (one or two per namespace); a damaged file could invent more. */
#define VP_OWNERS_LEARN_MAX 65536

enum vp_peer_where {
	VP_PEER_EXTERNAL,
	VP_PEER_RECORDED,
	VP_PEER_UNKNOWN, /* the owner may be recorded without being known: wait and see */
};

struct vp_owner_addr {
	struct vp_endpoint addr; /* port 0 */
	int host;
	struct vp_owner_addr *next; /* same hash */
};

struct vp_owners {
	const struct vp_host **hosts;
	size_t nhosts;
	bool listed;	       /* every host listed its own addresses */
	bool spanning;	       /* a host records namespaces whose addresses it did not list */
	struct u64map learned; /* hash of the address -> chain of vp_owner_addr */
	size_t nlearned;
};

/* hosts[i] for host i (the hosts must outlive o; the array is copied).  0 or -ENOMEM. */
int vp_owners__init(struct vp_owners *o, const struct vp_host *const *hosts, size_t nhosts);
/* A connection record of host (seen ahead of the analysis): learn its local address if it is new. */
void vp_owners__see_conn(struct vp_owners *o, int host, const struct vpr_conn *c);
/* The recorded host that owns addr (the port is ignored), -1 when none is known to. */
int vp_owners__of(const struct vp_owners *o, const struct vp_endpoint *addr);
/* Whether a -1 from vp_owners__of is final (no address can be learned later). */
static inline bool vp_owners__settled(const struct vp_owners *o)
{
	return !o->spanning;
}
/* Where the peer of an end with this remote is, given its owner (vp_owners__of). */
enum vp_peer_where vp_owners__where(const struct vp_owners *o, int owner,
				    const struct vp_endpoint *remote);
void vp_owners__free(struct vp_owners *o);

#endif
