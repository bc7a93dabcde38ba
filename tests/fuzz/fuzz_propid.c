// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the propagated-id reader (analyzer/proto/propid.c).
 * Checked, not only for memory errors: an id has a known kind, its length
 * is its text's, at most VP_PROPID_MAX, printable without spaces; trace ids
 * are 32 lowercase hex digits; fewer bytes captured give no id, the same
 * id, or one of a later kind (a preferred header cut off), never another
 * value of the same kind; fewer bytes that say they decide (a whole header
 * block) give what all of them give.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/propid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_propid: %s\n", what);
		abort();
	}
}

static void check_id(const struct vp_propid *id)
{
	check(id->kind > VP_PROPID_NONE && id->kind <= VP_PROPID_REQUEST_ID, "kind");
	check(id->len > 0 && id->len <= VP_PROPID_MAX && strlen(id->id) == id->len, "length");
	for (size_t i = 0; i < id->len; i++)
		check(id->id[i] > 0x20 && id->id[i] < 0x7f, "not printable");
	if (id->kind == VP_PROPID_TRACE) {
		check(id->len == 32, "trace id length");
		for (size_t i = 0; i < 32; i++)
			check((id->id[i] >= '0' && id->id[i] <= '9') || (id->id[i] >= 'a' && id->id[i] <= 'f'),
			      "trace id not lowercase hex");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_propid whole, part;
	bool ok = vp_propid__read(data, size, &whole);

	if (ok)
		check_id(&whole);
	else
		check(whole.kind == VP_PROPID_NONE, "no id but a kind");
	check(vp_propid__decided(data, size, size), "all bytes do not decide");
	for (size_t cut = size / 2; cut < size; cut += (size - cut + 1) / 2) {
		bool got = vp_propid__read(data, cut, &part);

		if (vp_propid__decided(data, cut, size))
			check(got == ok && (!ok || vp_propid__equal(&part, &whole)),
			      "a prefix that decides gives another id");
		if (!got)
			continue;
		check_id(&part);
		check(ok, "a prefix gives an id the whole bytes refuse");
		check(part.kind >= whole.kind, "a prefix gives a preferred kind");
		/* Several trace headers: the whole may take a preferred one cut off the prefix. */
		if (part.kind == whole.kind && part.kind != VP_PROPID_TRACE)
			check(vp_propid__equal(&part, &whole), "a prefix gives another id");
	}
	return 0;
}
