// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"

struct vp_local_reader {
	struct vpl_reader *r;
	struct vp_local_host host;
	uint32_t kind; /* of the block being read, 0: none */
	struct vp_calldec calls;
	struct vp_recdec *dec;
	enum vpl_status status;
	char err[400];
};

struct vp_local_reader *vp_local__open(const char *path, char *err, size_t errlen)
{
	struct vp_local_reader *l = calloc(1, sizeof(*l));
	const uint8_t *raw;
	size_t len;
	uint32_t kind, count;

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!(l->r = vpl_reader__open(path, err, errlen)))
		goto fail;
	if (vpl_reader__next(l->r, &kind, &raw, &len, &count) != 1) {
		snprintf(err, errlen, "%s", vpl_reader__error(l->r));
		goto fail;
	}
	if (kind != VPL_HOST || vp_local_host__decode(&l->host, raw, len)) {
		snprintf(err, errlen, "damaged local file: its first block is not a host");
		goto fail;
	}
	return l;
fail:
	vp_local__close(l);
	return NULL;
}

const struct vp_local_host *vp_local__host(const struct vp_local_reader *l)
{
	return &l->host;
}

/* Damage inside a block whose CRC held: corrupt from there on. */
static int bad_block(struct vp_local_reader *l, const char *what)
{
	l->status = VPL_CORRUPT;
	snprintf(l->err, sizeof(l->err), "corrupt at offset %llu: %s",
		 (unsigned long long)vpl_reader__offset(l->r), what);
	return -1;
}

/* The next block of the wanted kind; 1, 0 at the end, -1 on damage. */
static int next_block(struct vp_local_reader *l, uint32_t want, const uint8_t **raw, size_t *len,
		      uint32_t *count)
{
	uint32_t kind;

	if (l->status != VPL_OK)
		return -1;
	vpl_reader__want(l->r, 1u << want);
	while (vpl_reader__next(l->r, &kind, raw, len, count) == 1) {
		if (kind == want)
			return 1;
		if (kind == VPL_HOST)
			return bad_block(l, "a second host block");
	}
	if (vpl_reader__status(l->r) == VPL_OK)
		return 0;
	l->status = vpl_reader__status(l->r);
	snprintf(l->err, sizeof(l->err), "%s", vpl_reader__error(l->r));
	return -1;
}

int vp_local__next_call(struct vp_local_reader *l, struct vp_local_call *c)
{
	for (;;) {
		int k = l->kind == VPL_CALLS ? vp_calldec__next(&l->calls, c) : 0;
		const uint8_t *raw;
		size_t len;
		uint32_t count;

		if (k == 1)
			return 1;
		if (k < 0)
			return bad_block(l, "a call that does not decode");
		if ((k = next_block(l, VPL_CALLS, &raw, &len, &count)) != 1)
			return k;
		l->kind = VPL_CALLS;
		vp_calldec__block(&l->calls, raw, len, count);
	}
}

int vp_local__next_record(struct vp_local_reader *l, const struct vpr_hdr **rec, uint8_t *status,
			  const char **error)
{
	if (!l->dec && !(l->dec = calloc(1, sizeof(*l->dec))))
		return bad_block(l, "out of memory");
	for (;;) {
		int k = l->kind ? vp_recdec__next(l->dec) : 0;
		const uint8_t *raw;
		size_t len;
		uint32_t count;

		if (k == VP_ITEM_RECORD) {
			*rec = (const struct vpr_hdr *)l->dec->rec;
			return k;
		}
		if (k == VP_ITEM_FILE_END) {
			*status = l->dec->status;
			*error = l->dec->error;
			return k;
		}
		if (k < 0)
			return bad_block(l, "records that do not decode");
		if ((k = next_block(l, VPL_RECS, &raw, &len, &count)) != 1)
			return k;
		l->kind = VPL_RECS;
		vp_recdec__block(l->dec, raw, len, count);
	}
}

enum vpl_status vp_local__status(const struct vp_local_reader *l)
{
	return l->status;
}

const char *vp_local__error(const struct vp_local_reader *l)
{
	return l->err;
}

uint64_t vp_local__offset(const struct vp_local_reader *l)
{
	return vpl_reader__offset(l->r);
}

void vp_local__close(struct vp_local_reader *l)
{
	if (!l)
		return;
	vpl_reader__close(l->r);
	vp_local_host__free(&l->host);
	vp_calldec__free(&l->calls);
	if (l->dec) {
		vp_recdec__free(l->dec);
		free(l->dec);
	}
	free(l);
}
