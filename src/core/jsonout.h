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
void jo_raw(jo_buf *b, const char *s);
void jo_rawn(jo_buf *b, const char *s, size_t n);
void jo_int(jo_buf *b, long v);
void jo_bool(jo_buf *b, int v);
void jo_str(jo_buf *b, const char *s);   /* "s", escaped */
void jo_key(jo_buf *b, const char *key); /* "key": */
/* A member: ,"key":v (the comma unless first is set, which it clears). */
void jo_kint(jo_buf *b, int *first, const char *key, long v);
void jo_kstr(jo_buf *b, int *first, const char *key, const char *s);
void jo_kbool(jo_buf *b, int *first, const char *key, int v);
/* ,"key": (a comma unless first), for a value written after it. */
void jo_kopen(jo_buf *b, int *first, const char *key);
void jo_ints(jo_buf *b, const int *v, int n); /* [1,2,3] */

#endif
