/*
 * jsonout.c - the engine's JSON text writer (see jsonout.h).
 */
#include <assert.h>
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

/* jo_rawn's way when the bytes do not fit (or after running out of
 * memory, when they are dropped) */
void jo_grow(jo_buf *b, const char *s, size_t n)
{
	if (!room(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void jo_int(jo_buf *b, long v)
{
	if (v >= 0 && v < 10 && b->s && b->cap - b->len > 2) { /* most numbers of a view */
		b->s[b->len++] = (char)('0' + v);
		b->s[b->len] = 0;
		return;
	}
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

/* 1 if s needs no escaping */
static int plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == '"' || c == '\\')
			return 0;
	}
	return 1;
}

void jo_str(jo_buf *b, const char *s)
{
	size_t n = strlen(s);
	if (plain(s, n)) { /* the engine's own names, nearly always */
		if (!room(b, n + 2))
			return;
		char *d = b->s + b->len;
		d[0] = '"';
		memcpy(d + 1, s, n);
		d[n + 1] = '"';
		b->len += n + 2;
		b->s[b->len] = 0;
		return;
	}
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

void jo_key_check(const char *key, size_t n)
{
	assert(plain(key, n));
	(void)key, (void)n;
}

void jo_key_grow(jo_buf *b, const char *key, size_t n, int comma)
{
	if (room(b, n + 4))
		jo_keyn(b, key, n, comma); /* it fits now */
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
