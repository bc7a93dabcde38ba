// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include "tree.h"

#define MAX_NESTING 64

struct cursor {
	const char *p;
	struct vapp_buf *path;
};

/* Copies characters up to one of stops into out; the stop stays unread. */
static int take_until(struct cursor *c, const char *stops, char *out, size_t size)
{
	size_t n = strcspn(c->p, stops);

	if (n == 0 || n >= size || c->p[n] == '\0')
		return -1;
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p += n;
	return 0;
}

static cJSON *parse_call(struct cursor *c, int nesting);

static int parse_calls(struct cursor *c, cJSON *calls, int nesting)
{
	if (*c->p == ']')
		return 0;
	if (vapp_buf__append(c->path, "(", 1))
		return -1;
	for (;;) {
		cJSON *call = parse_call(c, nesting + 1);

		if (!call)
			return -1;
		cJSON_AddItemToArray(calls, call);
		if (*c->p != ',')
			break;
		c->p++;
		if (vapp_buf__append(c->path, ",", 1))
			return -1;
	}
	return vapp_buf__append(c->path, ")", 1) ? -1 : 0;
}

static cJSON *parse_call(struct cursor *c, int nesting)
{
	char name[64], addr[64], ord[24], rt[24], *end;
	cJSON *obj, *calls;

	if (nesting > MAX_NESTING || take_until(c, "@", name, sizeof(name)) || *c->p++ != '@' ||
	    take_until(c, "#", addr, sizeof(addr)) || *c->p++ != '#' ||
	    take_until(c, "~", ord, sizeof(ord)) || *c->p++ != '~' ||
	    take_until(c, "[", rt, sizeof(rt)) || *c->p++ != '[')
		return NULL;
	obj = cJSON_CreateObject();
	if (!obj)
		return NULL;
	cJSON_AddStringToObject(obj, "server", name);
	cJSON_AddStringToObject(obj, "client", addr);
	cJSON_AddNumberToObject(obj, "conn_index", (double)strtoull(ord, &end, 10));
	cJSON_AddNumberToObject(obj, "rt_ns", (double)strtoull(rt, &end, 10));
	calls = cJSON_AddArrayToObject(obj, "calls");
	if (!calls || vapp_buf__append(c->path, name, strlen(name)) ||
	    parse_calls(c, calls, nesting) || *c->p++ != ']') {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *vapp_tree__parse(const char *text, struct vapp_buf *path)
{
	struct cursor c = {.p = text, .path = path};
	cJSON *root = parse_call(&c, 0);

	if (root && *c.p != '\0') {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}
