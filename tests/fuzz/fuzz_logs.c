// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: log lines, recorder to analyzer (vpath-record --logs).
 * The input is a series of writes: per write a header byte (bits 0-1: the
 * thread, bit 2: the file, bit 3: recorded shorter than written, bit 4: the
 * previous write of the pair ended inside a secret), a length byte, then
 * that many bytes.  Each write is redacted as the recorder does
 * (user/redact_log.c) and cut into lines as the analyzer does
 * (analyzer/loglines.c).  Contracts checked, not only memory safety:
 * redaction only ever writes '*' and keeps the length; a line holds no
 * newline, is NUL-terminated at its length, is at most VP_LOGLINE_MAX, and
 * carries the thread and file it was cut for; the lines' bytes are never
 * more than the writes'; every unfinished line comes out at the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loglines.h"
#include "../../user/redact_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	uint64_t bytes_in, bytes_out;
};

static void take(void *ctx, struct vp_logline *l)
{
	struct seen *s = ctx;

	if (l->len > VP_LOGLINE_MAX || l->text[l->len] || memchr(l->text, '\n', l->len) ||
	    l->tid < 1 || l->tid > 4 || l->pid != 100 + l->tid)
		abort();
	s->bytes_out += l->len;
	free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_loglines ll = {0};
	struct seen s = {0};
	struct vpr_log rec;
	size_t at = 0;
	uint64_t ts = 1;

	while (at + 2 <= size) {
		uint8_t h = data[at], n = data[at + 1];
		uint8_t before[VPR_LOG_MAX];
		unsigned res;

		at += 2;
		if (n > size - at)
			n = (uint8_t)(size - at);
		memset(&rec, 0, sizeof(rec));
		rec.h.type = VPR_LOG;
		rec.h.size = VPR_LOG_SIZE(n);
		rec.h.tid = 1 + (h & 3);
		rec.h.ts_ns = ts++;
		rec.pid = 100 + rec.h.tid;
		rec.ino = 1 + ((h >> 2) & 1);
		rec.len = n;
		rec.bytes = n + ((h & 8) ? 10 : 0);
		rec.kind = VPR_LOG_FILE;
		memcpy(rec.data, data + at, n);
		memcpy(before, rec.data, n);
		at += n;
		res = redact_log(rec.data, rec.len, rec.bytes, (h >> 4) & 1);
		for (unsigned i = 0; i < n; i++)
			if (rec.data[i] != before[i] && rec.data[i] != REDACT_MASK)
				abort();
		if (!(res & REDACT_DONE) && memcmp(rec.data, before, n))
			abort();
		if (n == 0)
			continue;
		s.bytes_in += n;
		if (vp_loglines__write(&ll, &rec, rec.h.tid, 0, take, &s))
			abort();
	}
	vp_loglines__flush(&ll, take, &s);
	if (ll.partial.len || s.bytes_out > s.bytes_in)
		abort();
	vp_loglines__free(&ll);
	return 0;
}
