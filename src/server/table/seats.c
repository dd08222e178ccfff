/*
 * seats.c - the seats of a table (see tables.h): the seat a token holds,
 * taking a seat (tables_join and its store write), names, a seat's new
 * token being stored, and starting the game once every seat is taken.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"

int tables_seat_of(const srv_table *t, const char *token)
{
	if (!token || !*token)
		return -1;
	char h[STORE_TOKEN_HASH_SIZE];
	srv_token_hash(token, h);
	int seat = -1;
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_HUMAN && !t->seat[i].pending &&
		    srv_token_eq(t->seat[i].token_hash, h) && seat < 0)
			seat = i;
	return seat;
}

/* ---- seats --------------------------------------------------------------------------------- */

/* Code points a name may not hold: controls (C0, DEL, C1 with U+0085),
 * line and paragraph separators, and the format characters that make a
 * name read as another one or break the line it is shown on (issue 21;
 * srv_cp_format: the soft hyphen, the zero-width space, the marks and
 * bidirectional embeddings, overrides and isolates, the BOM, the tags),
 * but not the joiners U+200C-U+200D, which emoji such as a family, and
 * Persian and Indic names, are written with. */
static int name_refused_cp(unsigned c)
{
	return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
	       (srv_cp_format(c) && c != 0x200C && c != 0x200D);
}

int tables_name_ok(const char *name, size_t max_bytes)
{
	size_t n = strlen(name);
	if (n == 0 || n > max_bytes)
		return 0;
	for (size_t i = 0; i < n;) {
		uint32_t c;
		size_t k = srv_utf8_next(name + i, n - i, &c);
		if (!k || name_refused_cp(c))
			return 0; /* not UTF-8, or a refused character */
		i += k;
	}
	return 1;
}

int valid_name(const char *name) { return tables_name_ok(name, STORE_NAME_SIZE - 1); }

/* ASCII letters without case, the rest as it is: names that read the same
 * in the seat list. */
static int same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return *a == *b;
}

int tables_seat_reserved(const srv_seat *s)
{
	return s->kind == STORE_SEAT_HUMAN &&
	       !strncmp(s->token_hash, SRV_RESERVED_PREFIX, strlen(SRV_RESERVED_PREFIX));
}

int table_full(const srv_table *t)
{
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_OPEN || t->seat[i].pending ||
		    tables_seat_reserved(&t->seat[i]))
			return 0;
	return 1;
}

void start_if_full(srv_table *t)
{
	if (t->status != STORE_OPEN || !table_full(t))
		return;
	t->status = STORE_PLAYING;
	t->updated_ms = srv_now_ms();
	wjob *j = job_for(t, WJ_STATUS, status_done, NULL);
	j->status = STORE_PLAYING;
	j->at_ms = t->updated_ms;
	writer_submit(j);
	srv_event("table=%s event=started players=%d", t->id, t->nseats);
	bot_kick(t);
}

static void join_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	srv_seat *se = &t->seat[j->seatno];
	if (j->conflict) {
		/* cluster hook: another process gave the seat away first */
		int colour = se->colour;
		memset(se, 0, sizeof *se);
		se->colour = colour;
		char msg[96];
		snprintf(msg, sizeof msg, "seat %d was taken by someone else first", j->seatno);
		box->join_done(&o, t, -1, NULL, SE_SEAT_TAKEN, msg);
		tables_sync(t);
		return;
	}
	if (j->failed) {
		char msg[256];
		storage_msg(msg, sizeof msg, j, "the seat was not taken");
		int colour = se->colour;
		memset(se, 0, sizeof *se);
		se->colour = colour;
		box->join_done(&o, t, -1, NULL, SE_STORAGE, msg);
		announce_table(t);
		return;
	}
	se->pending = 0;
	srv_event("table=%s event=join seat=%d name=\"%s\"", t->id, j->seatno, se->name);
	start_if_full(t);
	announce_table(t);
	box->join_done(&o, t, j->seatno, j->token, SE_OK, NULL);
}

/* Takes a seat for `name` in memory (kind human, a new token): the token
 * goes to `token` (STORE_TOKEN_SIZE bytes) for the client, the seat keeps
 * its hash. */
srv_err take_seat(srv_table *t, const char *name, int want, int64_t account, int *seat,
                  char *token, char *err, size_t errsize)
{
	if (t->status != STORE_OPEN) {
		snprintf(err, errsize, "%s", t->status == STORE_VIEW ? "an uploaded record has no seats"
		                                                     : "the game has started: no seat is open");
		return t->status == STORE_VIEW ? SE_READ_ONLY : SE_TABLE_FULL;
	}
	if (!name || !valid_name(name)) {
		snprintf(err, errsize, "a name of 1 to %d bytes without control, format or "
		         "line-separator characters (bidirectional overrides, zero-width characters, "
		         "U+2028, U+0085, BOM) is needed", STORE_NAME_SIZE - 1);
		return SE_MALFORMED;
	}
	for (int i = 0; i < t->nseats && !account; i++)
		if (t->seat[i].kind == STORE_SEAT_HUMAN && t->seat[i].account &&
		    same_name(t->seat[i].name, name)) {
			snprintf(err, errsize, "the name '%s' belongs to the account at seat %d of this "
			         "table: a guest takes another name", t->seat[i].name, i);
			return SE_NAME_TAKEN;
		}
	int s = -1;
	if (want >= 0) {
		if (want >= t->nseats) {
			snprintf(err, errsize, "no seat %d: seats are 0..%d", want, t->nseats - 1);
			return SE_MALFORMED;
		}
		if (t->seat[want].kind != STORE_SEAT_OPEN) {
			snprintf(err, errsize, tables_seat_reserved(&t->seat[want])
			         ? "seat %d is kept for a player of the last game (a rematch)"
			         : "seat %d is taken", want);
			return SE_SEAT_TAKEN;
		}
		s = want;
	} else {
		for (int i = 0; i < t->nseats && s < 0; i++)
			if (t->seat[i].kind == STORE_SEAT_OPEN)
				s = i;
		if (s < 0) {
			snprintf(err, errsize, "no seat is open");
			return SE_TABLE_FULL;
		}
	}
	/* the account gets its token again (accounts.h), under its epoch now */
	if (account && accounts_seat_token(t->id, s, account, token)) {
		snprintf(err, errsize, "the game database is unavailable: the seat was not taken");
		return SE_STORAGE;
	}
	if (!account)
		srv_random_hex(token, 16);
	srv_seat *se = &t->seat[s];
	se->kind = STORE_SEAT_HUMAN;
	snprintf(se->name, sizeof se->name, "%s", name);
	se->account = account;
	srv_token_hash(token, se->token_hash);
	*seat = s;
	return SE_OK;
}

srv_err tables_join(srv_table *t, const char *name, int want, const srv_origin *o, char *err,
                    size_t errsize)
{
	if (!t->stored) {
		snprintf(err, errsize, "the table is being created");
		return SE_BUSY;
	}
	int s;
	char token[STORE_TOKEN_SIZE];
	srv_err e = take_seat(t, name, want, o ? o->account : 0, &s, token, err, errsize);
	if (e != SE_OK)
		return e;
	t->seat[s].pending = 1;
	wjob *j = job_for(t, WJ_SEAT, join_done, o);
	memcpy(j->token, token, sizeof j->token);
	explicit_bzero(token, sizeof token);
	to_store_seat(t, s, &j->seat);
	j->seatno = s;
	writer_submit(j);
	return SE_PENDING;
}

static void seat_changed_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
	(void)t;
}

void tables_seat_changed(srv_table *t, int seat, const char *token, void (*done)(wjob *),
                         const srv_origin *o)
{
	wjob *j = job_for(t, WJ_SEAT, done ? done : seat_changed_done, o);
	snprintf(j->token, sizeof j->token, "%s", token);
	to_store_seat(t, seat, &j->seat);
	j->seatno = seat;
	writer_submit(j);
}

void tables_seat_stored(srv_table *t)
{
	start_if_full(t);
	announce_table(t);
}
