/*
 * jsonout.c - the engine's JSON text writer (see jsonout.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

void jo_init(jo_buf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

void jo_free(jo_buf *b)
{
	free(b->s);
	jo_init(b);
}

char *jo_take(jo_buf *b)
{
	char *s = NULL;
	if (!b->oom) {
		if (!b->s)
			jo_rawn(b, "", 0);
		s = b->oom ? NULL : b->s;
	}
	if (!s)
		free(b->s);
	jo_init(b);
	return s;
}

static int room(jo_buf *b, size_t n)
{
	if (b->oom)
		return 0;
	if (b->len + n + 1 <= b->cap)
		return 1;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = 1;
		return 0;
	}
	b->s = s;
	b->cap = cap;
	return 1;
}

void jo_rawn(jo_buf *b, const char *s, size_t n)
{
	if (!room(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void jo_raw(jo_buf *b, const char *s)
{
	jo_rawn(b, s, strlen(s));
}

void jo_int(jo_buf *b, long v)
{
	char buf[24], *p = buf + sizeof buf;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	jo_rawn(b, p, (size_t)(buf + sizeof buf - p));
}

void jo_bool(jo_buf *b, int v)
{
	jo_raw(b, v ? "true" : "false");
}

void jo_str(jo_buf *b, const char *s)
{
	jo_rawn(b, "\"", 1);
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		jo_rawn(b, run, (size_t)(s - run));
		char esc[8];
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else
			snprintf(esc, sizeof esc, "\\u%04x", c);
		jo_raw(b, esc);
		run = s + 1;
	}
	jo_rawn(b, run, (size_t)(s - run));
	jo_rawn(b, "\"", 1);
}

void jo_key(jo_buf *b, const char *key)
{
	jo_str(b, key);
	jo_rawn(b, ":", 1);
}

void jo_kopen(jo_buf *b, int *first, const char *key)
{
	if (!*first)
		jo_rawn(b, ",", 1);
	*first = 0;
	jo_key(b, key);
}

void jo_kint(jo_buf *b, int *first, const char *key, long v)
{
	jo_kopen(b, first, key);
	jo_int(b, v);
}

void jo_kstr(jo_buf *b, int *first, const char *key, const char *s)
{
	jo_kopen(b, first, key);
	jo_str(b, s);
}

void jo_kbool(jo_buf *b, int *first, const char *key, int v)
{
	jo_kopen(b, first, key);
	jo_bool(b, v);
}

void jo_ints(jo_buf *b, const int *v, int n)
{
	jo_rawn(b, "[", 1);
	for (int i = 0; i < n; i++) {
		if (i)
			jo_rawn(b, ",", 1);
		jo_int(b, v[i]);
	}
	jo_rawn(b, "]", 1);
}
