/*
 * jsonout.h - a small JSON text writer for the engine's views (not part of
 * the API): text appended to a growable buffer, no trees, so that the
 * views a server sends with every move cost one allocation that grows, not
 * one per value. Strings are escaped as JSON requires (the engine's own
 * names need none, but a caller's text might).
 *
 * Out of memory: the buffer remembers it, further writes do nothing and
 * jo_take returns NULL.
 */
#ifndef CARC_JSONOUT_H
#define CARC_JSONOUT_H

#include <stddef.h>
#include <string.h>

typedef struct jo_buf {
	char *s;
	size_t len, cap;
	int oom;
} jo_buf;

void jo_init(jo_buf *b);
void jo_free(jo_buf *b);
/* The text (malloc'd, NUL-terminated; the caller frees), or NULL when out
 * of memory. The buffer is empty afterwards. */
char *jo_take(jo_buf *b);
/* Appends n bytes. Inline: a view is written a few bytes at a time, and a
 * call per piece was a sixth of what a server spends on a move. */
void jo_grow(jo_buf *b, const char *s, size_t n);
static inline void jo_rawn(jo_buf *b, const char *s, size_t n)
{
	if (b->s && n < b->cap - b->len) {
		memcpy(b->s + b->len, s, n);
		b->len += n;
		b->s[b->len] = 0;
		return;
	}
	jo_grow(b, s, n);
}
static inline void jo_raw(jo_buf *b, const char *s) { jo_rawn(b, s, strlen(s)); }
void jo_int(jo_buf *b, long v);
void jo_bool(jo_buf *b, int v);
void jo_str(jo_buf *b, const char *s);   /* "s", escaped */
/* ,"key": with the comma when `comma` -- keys are the engine's own words,
 * written as they are (no character of theirs needs escaping; the
 * checking build asserts it). Inline, with the members below, so that a
 * key written as a literal costs no strlen and no call. */
void jo_key_grow(jo_buf *b, const char *key, size_t n, int comma);
void jo_key_check(const char *key, size_t n); /* the checking build's assert */
static inline void jo_keyn(jo_buf *b, const char *key, size_t n, int comma)
{
#ifdef CARC_DEBUG_CHECK
	jo_key_check(key, n);
#endif
	if (b->s && n + 4 < b->cap - b->len) {
		char *d = b->s + b->len;
		if (comma)
			*d++ = ',';
		d[0] = '"';
		memcpy(d + 1, key, n);
		d[n + 1] = '"';
		d[n + 2] = ':';
		d[n + 3] = 0;
		b->len += n + 3 + (comma != 0);
		return;
	}
	jo_key_grow(b, key, n, comma);
}
/* "key": */
static inline void jo_key(jo_buf *b, const char *key) { jo_keyn(b, key, strlen(key), 0); }
/* ,"key": (a comma unless first is set, which it clears), for a value
 * written after it. */
static inline void jo_kopen(jo_buf *b, int *first, const char *key)
{
	jo_keyn(b, key, strlen(key), !*first);
	*first = 0;
}
/* A member: ,"key":v (the comma unless first is set, which it clears). */
static inline void jo_kint(jo_buf *b, int *first, const char *key, long v)
{
	jo_kopen(b, first, key);
	jo_int(b, v);
}
static inline void jo_kstr(jo_buf *b, int *first, const char *key, const char *s)
{
	jo_kopen(b, first, key);
	jo_str(b, s);
}
static inline void jo_kbool(jo_buf *b, int *first, const char *key, int v)
{
	jo_kopen(b, first, key);
	jo_bool(b, v);
}
void jo_ints(jo_buf *b, const int *v, int n); /* [1,2,3] */

#endif
