// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where OTLP spans go.  A file gets one ExportTraceServiceRequest, streamed
 * a request at a time (ResourceSpans may repeat a resource, so nothing
 * needs to be held back).  A receiver gets one request body per batch of
 * requests, so that memory stays bounded and a receiver's size limit
 * (often 4 MiB) is not reached.
 */
#include <stdlib.h>
#include <string.h>

#include "otlp.h"

#define BATCH_REQUESTS 256
#define BATCH_BYTES (2u << 20)

struct vp_otlp_sink {
	FILE *f;
	uint64_t written; /* ResourceSpans written to f */
	struct vp_otlp_post *post;
	char *body; /* the batch being made: {"resourceSpans":[ ... */
	size_t len, cap;
	size_t batched; /* requests in it */
	bool failed;	/* a post failed: the rest is not sent */
	char err[512];
};

static void append(struct vp_otlp_sink *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 1 << 16;

		while (cap < s->len + n + 1)
			cap *= 2;
		s->body = realloc(s->body, cap);
		if (!s->body)
			abort();
		s->cap = cap;
	}
	memcpy(s->body + s->len, p, n);
	s->len += n;
	s->body[s->len] = '\0';
}

static const char head[] = "{\"resourceSpans\":[";
static const char tail[] = "]}\n";

struct vp_otlp_sink *vp_otlp_sink__new(FILE *f, const char *url, char *err, size_t errlen)
{
	struct vp_otlp_sink *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (url) {
		s->post = vp_otlp_post__new(url, err, errlen);
		if (!s->post) {
			free(s);
			return NULL;
		}
		append(s, head, strlen(head));
	} else {
		s->f = f;
		fputs(head, f);
	}
	return s;
}

static void flush_batch(struct vp_otlp_sink *s)
{
	if (!s->batched || s->failed)
		return;
	append(s, tail, strlen(tail));
	if (vp_otlp_post__send(s->post, s->body, s->len, s->err, sizeof(s->err)))
		s->failed = true;
	s->len = 0;
	s->batched = 0;
	append(s, head, strlen(head));
}

void vp_otlp_sink__add(struct vp_otlp_sink *s, const struct vp_analysis *a,
		       const struct vp_request *r)
{
	cJSON *arr = cJSON_CreateArray(), *rs;

	if (s->failed) {
		cJSON_Delete(arr);
		return;
	}
	vp_otlp_request(a, r, arr);
	cJSON_ArrayForEach(rs, arr)
	{
		char *text = cJSON_PrintUnformatted(rs);

		if (!text)
			abort();
		if (s->post) {
			if (s->body[s->len - 1] != '[')
				append(s, ",", 1);
			append(s, text, strlen(text));
		} else {
			fprintf(s->f, "%s\n%s", s->written++ ? "," : "", text);
		}
		free(text);
	}
	cJSON_Delete(arr);
	if (s->post && (++s->batched >= BATCH_REQUESTS || s->len >= BATCH_BYTES))
		flush_batch(s);
}

int vp_otlp_sink__finish(struct vp_otlp_sink *s)
{
	if (!s->post) {
		fputs(tail, s->f);
		return 0;
	}
	flush_batch(s);
	if (s->failed) {
		fprintf(stderr, "error: %s\n", s->err);
		return -1;
	}
	return 0;
}

void vp_otlp_sink__free(struct vp_otlp_sink *s)
{
	if (!s)
		return;
	vp_otlp_post__free(s->post);
	free(s->body);
	free(s);
}
