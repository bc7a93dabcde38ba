// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recorder stage: secrets out of log lines.  A value is replaced when the
 * key in front of it names a secret; every doubt goes to replacing (a key
 * cut off at the start of the bytes is not looked for: its value is the
 * previous write's, see `open`).
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "redact_log.h"

/* Words that make a key a secret's when the key contains them (case-insensitive). */
static const char *const secret_words[] = {
	"passw",     "pwd",	      "secret",	    "token",	  "apikey",	 "api_key",
	"api-key",   "authorization", "cookie",	    "credential", "private_key", "privatekey",
	"sessionid", "session_id",    "session-id", "sessid",	  "access_key",	 "passphrase",
};

static bool key_char(uint8_t c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.';
}

static bool contains_word(const uint8_t *k, size_t n, const char *w)
{
	size_t wn = strlen(w);

	for (size_t i = 0; i + wn <= n; i++)
		if (strncasecmp((const char *)k + i, w, wn) == 0)
			return true;
	return false;
}

static bool secret_key(const uint8_t *k, size_t n)
{
	if (n == 4 && strncasecmp((const char *)k, "auth", 4) == 0)
		return true;
	for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++)
		if (contains_word(k, n, secret_words[i]))
			return true;
	return false;
}

/* The end of a value that begins at `at`: a closing quote, or a blank or separator. */
static size_t value_end(const uint8_t *d, size_t len, size_t at, uint8_t quote, bool to_eol)
{
	size_t i = at;

	for (; i < len; i++) {
		uint8_t c = d[i];

		if (c == '\n' || c == '\r')
			break;
		if (to_eol)
			continue;
		if (quote ? c == quote
			  : (c == ' ' || c == '\t' || c == '&' || c == ',' || c == ';' ||
			     c == '"' || c == '\'' || c == '}' || c == ')' || c == ']'))
			break;
	}
	return i;
}

/* Replaces d[from, to); DONE when a byte was replaced. */
static unsigned hide(uint8_t *d, size_t from, size_t to)
{
	if (from >= to)
		return REDACT_NONE;
	memset(d + from, REDACT_MASK, to - from);
	return REDACT_DONE;
}

/*
 * The key that ends just before separator `sep` (quotes and blanks between
 * them allowed): *start, its length; 0 when there is none.
 */
static size_t key_before(const uint8_t *d, size_t sep, size_t *start)
{
	size_t e = sep;

	while (e > 0 && (d[e - 1] == ' ' || d[e - 1] == '"' || d[e - 1] == '\''))
		e--;
	*start = e;
	while (*start > 0 && key_char(d[*start - 1]))
		(*start)--;
	return e - *start;
}

unsigned redact_log(uint8_t *d, size_t len, uint32_t bytes, int open)
{
	unsigned res = REDACT_NONE;
	size_t i = 0, end;

	if (open) {
		end = value_end(d, len, 0, 0, false);
		res |= hide(d, 0, end);
		if (end == len && len == bytes)
			res |= REDACT_OPEN;
		i = end;
	}
	for (; i < len; i++) {
		size_t kstart, klen, v;
		uint8_t quote = 0;
		bool eol;

		/* "Bearer xyz", "Basic xyz": the word after, wherever it is. */
		if ((d[i] == 'B' || d[i] == 'b') && (i == 0 || !key_char(d[i - 1]))) {
			size_t w = 0;

			if (len - i > 7 && strncasecmp((const char *)d + i, "bearer ", 7) == 0)
				w = 7;
			else if (len - i > 6 && strncasecmp((const char *)d + i, "basic ", 6) == 0)
				w = 6;
			if (w) {
				end = value_end(d, len, i + w, 0, false);
				res |= hide(d, i + w, end);
				if (end == len && len == bytes)
					res |= REDACT_OPEN;
				i = end > i ? end - 1 : i;
				continue;
			}
		}
		if (d[i] != '=' && d[i] != ':')
			continue;
		klen = key_before(d, i, &kstart);
		if (!klen || !secret_key(d + kstart, klen))
			continue;
		eol = contains_word(d + kstart, klen, "authorization") ||
		      contains_word(d + kstart, klen, "cookie");
		for (v = i + 1; v < len && (d[v] == ' ' || d[v] == '\t'); v++)
			;
		if (v < len && (d[v] == '"' || d[v] == '\'')) {
			quote = d[v];
			v++;
		}
		end = value_end(d, len, v, quote, eol && !quote);
		res |= hide(d, v, end);
		if (end == len && len == bytes)
			res |= REDACT_OPEN;
		i = end > i ? end - 1 : i;
	}
	return res;
}
