// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the recorder's redaction (user/redact.c), checked for
 * its contracts, not only memory safety.  Every input is redacted as it is
 * (in a buffer of exactly its size), then used to plant a secret: byte 0
 * picks a message shape (HTTP Authorization/Cookie header, Redis AUTH in
 * RESP and inline, PostgreSQL 'p'), byte 1 a capture length, the next bytes
 * (up to 40) are the secret value and the rest follows the message.  After
 * redaction no byte of the secret within the captured prefix survives, and
 * nothing outside the buffer is touched (ASan).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../user/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SECRET_MAX 40

/* The message with the secret in it; *at and the return value say where the secret is. */
static size_t plant(uint8_t shape, const uint8_t *sec, size_t n, uint8_t *out, size_t *at)
{
	static const char *const http[] = { "Authorization: Bearer ", "cookie: ",
					    "Proxy-Authorization:", "Set-Cookie:  " };
	size_t len = 0;

	switch (shape % 4) {
	case 0:
		len = (size_t)sprintf((char *)out, "GET /x HTTP/1.1\r\nHost: h\r\n%s", http[(shape >> 2) & 3]);
		break;
	case 1:
		len = (size_t)sprintf((char *)out, "*2\r\n$4\r\nAUTH\r\n$%zu\r\n", n);
		break;
	case 2:
		len = (size_t)sprintf((char *)out, "PING\r\nauth ");
		break;
	case 3:
		out[len++] = 'p';
		out[len++] = 0;
		out[len++] = 0;
		out[len++] = 0;
		out[len++] = (uint8_t)(4 + n);
		break;
	}
	*at = len;
	memcpy(out + len, sec, n);
	/* Where the shape needs it, a value of token characters, never white space. */
	if (shape % 4 == 0 || shape % 4 == 2)
		for (size_t i = 0; i < n; i++)
			out[len + i] = (uint8_t)(33 + sec[i] % 94);
	return len + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1), *msg;
	size_t n, at, len, total, cap;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	redact_payload(buf, size, (uint32_t)size + (size ? data[0] : 0));
	redact_continued(buf, size, (uint32_t)size);
	free(buf);
	if (size < 3)
		return 0;
	n = size - 2 < SECRET_MAX ? size - 2 : SECRET_MAX;
	if (n == 0)
		return 0;
	msg = malloc(64 + n + size);
	if (!msg)
		return 0;
	len = plant(data[0], data + 2, n, msg, &at);
	memcpy(msg + len, data + 2 + n, size - 2 - n);
	total = len + size - 2 - n;
	/* A capture length anywhere from inside the secret's start to the whole message. */
	cap = at + 1 + data[1] % (total - at);
	buf = malloc(cap);
	if (!buf)
		abort();
	memcpy(buf, msg, cap);
	redact_payload(buf, cap, (uint32_t)total);
	for (size_t i = at; i < at + n && i < cap; i++)
		if (buf[i] != REDACT_MASK && buf[i] == msg[i]) {
			fprintf(stderr, "secret byte %zu of shape %u survived (capture %zu)\n", i - at,
				data[0] % 4, cap);
			abort();
		}
	free(buf);
	free(msg);
	return 0;
}
