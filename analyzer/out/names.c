// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* How the outputs name things: durations, sizes, and the two ends of a call. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

char *vp_fmt_duration(int64_t ns, char *buf, size_t len)
{
	int64_t a = ns < 0 ? -ns : ns;

	if (a < 1000)
		snprintf(buf, len, "%" PRId64 "ns", ns);
	else if (a < 1000000)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (a < 1000000000)
		snprintf(buf, len, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	return buf;
}

char *vp_fmt_bytes(uint64_t n, char *buf, size_t len)
{
	if (n < 10000)
		snprintf(buf, len, "%" PRIu64 "B", n);
	else if (n < 10000000)
		snprintf(buf, len, "%.1fkB", (double)n / 1e3);
	else if (n < 10000000000ull)
		snprintf(buf, len, "%.1fMB", (double)n / 1e6);
	else
		snprintf(buf, len, "%.1fGB", (double)n / 1e9);
	return buf;
}

char *vp_call_end__name(const struct vp_analysis *a, const struct vp_call_end *e,
			enum vp_name_style style, char *buf, size_t len)
{
	const char *host, *proc, *thread;
	char ad[VP_ADDRSTRLEN];

	if (!e->recorded) {
		if (style == VP_NAME_PROCESS)
			snprintf(buf, len, "external");
		else
			snprintf(buf, len, "%s", vp_endpoint__format(&e->addr, ad, sizeof(ad)));
		return buf;
	}
	host = vp_analysis__host(a, (size_t)e->host)->name;
	proc = e->proc[0] ? e->proc : "?";
	thread = e->comm[0] ? e->comm : "?";
	switch (style) {
	case VP_NAME_PROCESS:
		snprintf(buf, len, "%s %s", host, proc);
		break;
	case VP_NAME_SERVICE:
		snprintf(buf, len, "%s %s :%u", host, proc, e->addr.port);
		break;
	case VP_NAME_THREAD:
		/* The main thread, or a thread named like its process, needs no second name. */
		if (e->tid == e->pid)
			snprintf(buf, len, "%s %s(%u)", host, proc, e->pid);
		else if (!strcmp(thread, proc))
			snprintf(buf, len, "%s %s(%u)/%u", host, proc, e->pid, e->tid);
		else
			snprintf(buf, len, "%s %s(%u)/%s(%u)", host, proc, e->pid, thread, e->tid);
		break;
	}
	return buf;
}
