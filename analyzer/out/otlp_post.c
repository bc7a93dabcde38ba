// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * OTLP/HTTP with JSON bodies (the OTLP specification's "OTLP/HTTP"):
 * POST to <endpoint>/v1/traces with Content-Type application/json.  A
 * receiver that is unreachable or answers 429, 502, 503 or 504 may take the
 * batch later, so it is tried again after a growing pause (the receiver's
 * Retry-After when it gives one); any other refusal is final.
 */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otlp.h"

#define ATTEMPTS 5
#define FIRST_PAUSE_MS 250
#define MAX_PAUSE_MS 10000

/*
 * libcurl is opened when an export to a receiver begins, not linked: it
 * and the libraries it loads (two TLS stacks, Kerberos, LDAP, SSH: some 30)
 * cost every run of vpath-analyze (and of vpath-record) about 30 ms of CPU
 * time in relocations at start, and only --endpoint uses it.
 */
#define CURL_SONAME "libcurl.so.4"
static struct {
	void *dl;
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode code);
	void (*easy_cleanup)(CURL *curl);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
} lib;

/* 0, or -1 with why in err. */
static int load_curl(char *err, size_t errlen)
{
	const char *missing = NULL;
	void *dl;

	if (lib.dl)
		return 0;
	if (!(dl = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(err, errlen, "--endpoint needs libcurl (Debian: libcurl4): %s", dlerror());
		return -1;
	}
#define LOAD(field, name)                                          \
	if (!missing && !(*(void **)&lib.field = dlsym(dl, name))) \
		missing = name;
	LOAD(global_init, "curl_global_init")
	LOAD(global_cleanup, "curl_global_cleanup")
	LOAD(easy_init, "curl_easy_init")
	LOAD(easy_setopt, "curl_easy_setopt")
	LOAD(easy_perform, "curl_easy_perform")
	LOAD(easy_getinfo, "curl_easy_getinfo")
	LOAD(easy_strerror, "curl_easy_strerror")
	LOAD(easy_cleanup, "curl_easy_cleanup")
	LOAD(slist_append, "curl_slist_append")
	LOAD(slist_free_all, "curl_slist_free_all")
#undef LOAD
	if (missing) {
		snprintf(err, errlen, "%s has no %s", CURL_SONAME, missing);
		dlclose(dl);
		return -1;
	}
	lib.dl = dl;
	return 0;
}

struct vp_otlp_post {
	CURL *curl;
	struct curl_slist *headers;
	char *url;
	char reply[1024]; /* start of the receiver's answer, for messages */
	size_t reply_len;
};

static size_t keep_reply(char *data, size_t size, size_t n, void *ctx)
{
	struct vp_otlp_post *p = ctx;
	size_t len = size * n, room = sizeof(p->reply) - 1 - p->reply_len;

	memcpy(p->reply + p->reply_len, data, len < room ? len : room);
	p->reply_len += len < room ? len : room;
	p->reply[p->reply_len] = '\0';
	return len;
}

/* The endpoint as given, or with /v1/traces added when it names only the receiver. */
static char *traces_url(const char *endpoint)
{
	size_t n = strlen(endpoint);
	const char *path = strstr(endpoint, "://");
	char *url;

	while (n && endpoint[n - 1] == '/')
		n--;
	path = path ? strchr(path + 3, '/') : NULL;
	if (path && (size_t)(path - endpoint) < n && n >= 10 &&
	    !strncmp(endpoint + n - 10, "/v1/traces", 10))
		return strndup(endpoint, n);
	url = malloc(n + 11);
	if (url)
		snprintf(url, n + 11, "%.*s/v1/traces", (int)n, endpoint);
	return url;
}

struct vp_otlp_post *vp_otlp_post__new(const char *endpoint, char *err, size_t errlen)
{
	struct vp_otlp_post *p;

	if (strncmp(endpoint, "http://", 7) && strncmp(endpoint, "https://", 8)) {
		snprintf(err, errlen, "--endpoint %s: not an http:// or https:// URL", endpoint);
		return NULL;
	}
	if (load_curl(err, errlen))
		return NULL;
	if (lib.global_init(CURL_GLOBAL_DEFAULT)) {
		snprintf(err, errlen, "libcurl failed to initialize");
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->url = traces_url(endpoint)) || !(p->curl = lib.easy_init())) {
		snprintf(err, errlen, "out of memory");
		vp_otlp_post__free(p);
		return NULL;
	}
	p->headers = lib.slist_append(NULL, "Content-Type: application/json");
	lib.easy_setopt(p->curl, CURLOPT_URL, p->url);
	lib.easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers);
	lib.easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, keep_reply);
	lib.easy_setopt(p->curl, CURLOPT_WRITEDATA, p);
	lib.easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	lib.easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, 30000L);
	lib.easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	lib.easy_setopt(p->curl, CURLOPT_USERAGENT, "vpath-analyze");
	return p;
}

const char *vp_otlp_post__url(const struct vp_otlp_post *p)
{
	return p->url;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts))
		;
}

/* What the receiver said, on one line: a google.rpc.Status message, or its first line. */
static void reason(const struct vp_otlp_post *p, char *buf, size_t len)
{
	const char *m = strstr(p->reply, "\"message\"");
	size_t n;

	if (m && (m = strchr(m + 9, '"'))) {
		m++;
		n = strcspn(m, "\"");
	} else {
		m = p->reply;
		n = strcspn(m, "\r\n");
	}
	snprintf(buf, len, "%.*s", (int)(n > 200 ? 200 : n), m);
}

/* A 2xx may still say some spans were refused (partialSuccess): a warning. */
static void warn_partial(const struct vp_otlp_post *p)
{
	cJSON *j = cJSON_Parse(p->reply), *ps, *n, *m;

	ps = cJSON_GetObjectItemCaseSensitive(j, "partialSuccess");
	n = cJSON_GetObjectItemCaseSensitive(ps, "rejectedSpans");
	m = cJSON_GetObjectItemCaseSensitive(ps, "errorMessage");
	if ((cJSON_IsString(n) && strcmp(n->valuestring, "0")) ||
	    (cJSON_IsNumber(n) && n->valuedouble > 0))
		fprintf(stderr, "warning: %s rejected %s spans: %s\n", p->url,
			cJSON_IsString(n) ? n->valuestring : "some",
			cJSON_IsString(m) ? m->valuestring : "");
	cJSON_Delete(j);
}

int vp_otlp_post__send(struct vp_otlp_post *p, const char *body, size_t len, char *err,
		       size_t errlen)
{
	long pause = FIRST_PAUSE_MS;

	lib.easy_setopt(p->curl, CURLOPT_POSTFIELDS, body);
	lib.easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	for (int attempt = 1;; attempt++) {
		long status = 0;
		curl_off_t after = -1;
		char why[256];
		CURLcode rc;
		bool again;

		p->reply_len = 0;
		p->reply[0] = '\0';
		rc = lib.easy_perform(p->curl);
		if (rc == CURLE_OK) {
			lib.easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
			if (status >= 200 && status < 300) {
				warn_partial(p);
				return 0;
			}
			lib.easy_getinfo(p->curl, CURLINFO_RETRY_AFTER, &after);
			reason(p, why, sizeof(why));
			again = status == 429 || status == 502 || status == 503 || status == 504;
			snprintf(err, errlen, "OTLP receiver %s refused the spans: HTTP %ld%s%s%s",
				 p->url, status, why[0] ? " (" : "", why, why[0] ? ")" : "");
		} else {
			again = true;
			snprintf(err, errlen, "OTLP receiver %s unreachable: %s", p->url,
				 lib.easy_strerror(rc));
		}
		if (!again)
			return -1;
		if (attempt == ATTEMPTS) {
			size_t n = strlen(err);

			snprintf(err + n, errlen - n, " (after %d attempts)", ATTEMPTS);
			return -1;
		}
		pause_ms(after > 0 && after * 1000 <= MAX_PAUSE_MS ? (long)after * 1000 : pause);
		pause = pause * 2 > MAX_PAUSE_MS ? MAX_PAUSE_MS : pause * 2;
	}
}

void vp_otlp_post__free(struct vp_otlp_post *p)
{
	if (!p)
		return;
	if (p->curl)
		lib.easy_cleanup(p->curl);
	lib.slist_free_all(p->headers);
	free(p->url);
	free(p);
	lib.global_cleanup();
}
