// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A read of several queue messages: which one each call of its work was for (qread.h). */
#include <stdint.h>
#include <string.h>

#include "proto/fields.h"
#include "qread.h"

size_t vp_qread__fields(const struct vp_call *c, uint64_t *f)
{
	size_t nf;

	/* A text cut by the capture may hold another message's field unseen. */
	if (c->wit.proto == VP_PROTO_NONE || (c->wit.flags & VP_WIT_CUT) || !c->wit.text[0])
		return SIZE_MAX;
	nf = vp_fields((const uint8_t *)c->wit.text, strnlen(c->wit.text, sizeof(c->wit.text)), f,
		       VP_QREAD_FIELDS_MAX);
	return nf > VP_QREAD_FIELDS_MAX ? SIZE_MAX : nf;
}

bool vp_qread__holds(const struct vp_witness *w, uint64_t f)
{
	for (size_t k = 0; w->nqkeys != VP_WIT_QKEYS_UNKNOWN && k < w->nqkeys; k++)
		if (w->qkeys[k] == f)
			return true;
	return false;
}

/* The message whose distinctive fields call c carries, alone; -1 when none or several. */
static int content_owner(const struct vp_witness *w, const struct vp_call *c)
{
	uint64_t f[VP_QREAD_FIELDS_MAX];
	size_t nf = vp_qread__fields(c, f);
	int who = -1;

	if (w->nqkeys == VP_WIT_QKEYS_UNKNOWN || nf == SIZE_MAX)
		return -1;
	for (size_t k = 0; k < w->nqkeys; k++)
		for (size_t i = 0; i < nf; i++) {
			if (f[i] != w->qkeys[k])
				continue;
			if (who >= 0 && who != w->qkey_of[k])
				return -1;
			who = w->qkey_of[k];
		}
	return who;
}

bool vp_qread__place(const struct vp_witness *w, const struct vp_call *const *calls, size_t n,
		     int *owner, bool *sure)
{
	bool any = false, in_order = true, more = w->flags & VP_WIT_MORE;
	int last = -1;

	for (size_t k = 0; k < n; k++) {
		owner[k] = content_owner(w, calls[k]);
		if (owner[k] < 0 || owner[k] >= w->nqmsgs) {
			owner[k] = -1;
			continue;
		}
		any = true;
		in_order &= owner[k] >= last;
		last = owner[k];
	}
	if (!any)
		return false;
	last = 0;
	for (size_t k = 0; k < n; k++) {
		sure[k] = owner[k] >= 0 && in_order && !more;
		if (owner[k] >= 0)
			last = owner[k];
		else if (!more)
			owner[k] = last;
	}
	return true;
}
