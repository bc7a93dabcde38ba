// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 5c: forwarded bytes (forward.h). */
#include <string.h>

#include "fnv.h"
#include "forward.h"

/* A common prefix of 24 bytes (vpr_payload_hash.hash_24) is enough to decide. */
_Static_assert(VP_FWD_MIN <= 24, "hash_24 covers the bytes a decision needs");

/*
 * The hashes of the longest prefix both were hashed over (forward.h): *n
 * its bytes; false when there is none to compare (fewer than 8 bytes, or
 * bytes and hashes, whose key the analyzer does not know).
 */
static bool hashed_prefix(const struct vp_wit_req *c, const struct vp_wit_req *r, uint64_t *hc,
			  uint64_t *hr, size_t *n)
{
	if (!c->hashed || !r->hashed)
		return false;
	if (c->len == r->len) {
		*hc = c->hash, *hr = r->hash, *n = c->len;
	} else if (c->len >= 24 && r->len >= 24) {
		*hc = c->hash_24, *hr = r->hash_24, *n = 24;
	} else if (c->len >= 8 && r->len >= 8) {
		*hc = c->hash_8, *hr = r->hash_8, *n = 8;
	} else {
		return false;
	}
	return true;
}

/* Whether the first n bytes of c and r differ: by their bytes, or by their hashes. */
static enum vp_fwd_fit prefix_fit(const struct vp_wit_req *c, const struct vp_wit_req *r, size_t *n)
{
	uint64_t hc, hr;

	if (!c->hashed && !r->hashed) {
		*n = c->len < r->len ? c->len : r->len;
		return memcmp(c->data, r->data, *n) ? VP_FWD_DIFFER : VP_FWD_AGREE;
	}
	if (!hashed_prefix(c, r, &hc, &hr, n))
		return VP_FWD_UNKNOWN;
	return hc != hr ? VP_FWD_DIFFER : VP_FWD_AGREE;
}

enum vp_fwd_fit vp_fwd__fit(const struct vp_wit_req *c, const struct vp_wit_req *r, size_t *k)
{
	enum vp_fwd_fit f;
	size_t n;

	*k = 0;
	if (!r)
		return VP_FWD_UNKNOWN;
	f = prefix_fit(c, r, &n);
	if (f != VP_FWD_AGREE)
		return f;
	/*
	 * The call sent more than the whole operation the request came in: its
	 * bytes may hold another request's message after this one's, so it is
	 * not this request's message (a relay that joins one client's pieces
	 * into one send is not linked by its bytes).
	 */
	if (c->len == c->total && r->len == r->total && c->total > r->total)
		return VP_FWD_DIFFER;
	*k = n;
	return VP_FWD_AGREE;
}

struct vp_xchg *vp_fwd__source(struct vp_xchg *head, const struct vp_xchg *c)
{
	struct vp_xchg *m = NULL;
	unsigned n = 0;

	if (!c->content)
		return NULL;
	for (struct vp_xchg *x = head->list_next; x != head; x = x->list_next) {
		enum vp_fwd_fit f;
		size_t k;

		if (x->req.first_ts > c->req.first_ts)
			break; /* by request time: the rest came later */
		/*
		 * On a connection carrying several exchanges at once its bytes are
		 * the connection's, not its own message's: what it carries is unknown.
		 */
		if (++n > VP_FWD_SCAN_MAX || x->muxed)
			return NULL;
		/* A stream whose message has not come yet has nothing to forward (h2data.h). */
		if (x->h2_stream && !x->h2_data)
			continue;
		f = vp_fwd__fit(c->content, x->content, &k);
		if (f == VP_FWD_DIFFER)
			continue;
		/* One that may carry it, or carries too little of it to tell: nothing is decided. */
		if (f == VP_FWD_UNKNOWN || k < VP_FWD_MIN || m)
			return NULL;
		m = x;
	}
	return m;
}

/* FNV-1a over the size and the captured bytes (or the length hashed and their hash). */
uint64_t vp_fwd__hash(const struct vp_wit_req *w)
{
	uint64_t h = VP_FNV_BASIS ^ w->total;

	if (w->hashed)
		return ((h ^ w->hash) * VP_FNV_PRIME ^ w->len) * VP_FNV_PRIME;
	return vp_fnv1a(h, w->data, w->len);
}
