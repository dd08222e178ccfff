/*
 * rematch.c - the rematch of a finished game (see rematch.h).
 *
 * Invariants:
 *  - a finished table has at most one rematch: chat_of(old)->rematch is
 *    set in memory before its creation is submitted, and the store takes
 *    the link only when the old game has none (create_rematch); the old
 *    table stays in memory until that is stored (tables_hold), so the id
 *    is never read back from the store before it is there.
 *  - while the rematch's creation is being stored (ct->creating), claims
 *    wait in ct->wait and are made once it is stored (or answered with
 *    the failure); a seat is claimed once: a claimed seat is no longer
 *    reserved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "chat.h"
#include "outbox.h"
#include "ratelimit.h"
#include "rematch.h"
#include "writer.h"

/* The new seat of the person who held old seat i (old seat i + 1 is the
 * new seat i: the first player rotates). */
static int new_seat_of(int i, int n)
{
	return (i + n - 1) % n;
}

/* What a reserved seat holds: the prefix and the first 62 hex digits of
 * the old seat's token hash (64 characters, as a token hash has). */
static void reserved_hash(const char *old_hash, char out[STORE_TOKEN_HASH_SIZE])
{
	size_t p = strlen(SRV_RESERVED_PREFIX), keep = STORE_TOKEN_HASH_SIZE - 1 - p;
	memset(out, 0, STORE_TOKEN_HASH_SIZE);
	memcpy(out, SRV_RESERVED_PREFIX, p);
	size_t n = strlen(old_hash);
	memcpy(out + p, old_hash, n < keep ? n : keep);
}

/* Tells everyone at the old table about the rematch and who has taken
 * their seat in it (the invitation the others accept). */
static void invite(srv_table *old, srv_table *nt)
{
	if (!old)
		return;
	json_t *seats = json_array();
	int n = nt->nseats;
	for (int j = 0; j < n; j++) {
		const srv_seat *s = &nt->seat[j];
		json_array_append_new(seats, json_pack("{s:i, s:i, s:s, s:s, s:b}", "seat", j, "from",
		                                       (j + 1) % n, "kind",
		                                       s->kind == STORE_SEAT_BOT ? "bot" : "human", "name",
		                                       s->name, "taken",
		                                       !tables_seat_reserved(s) && !s->pending));
	}
	tables_broadcast(old, json_pack("{s:s, s:s, s:s, s:o}", "type", "rematch", "table", old->id,
	                                "rematch", nt->id, "seats", seats));
}

static void answer(uint64_t conn, int http, json_t *ref, srv_table *nt, int seat,
                   const char *token, srv_err e, const char *err)
{
	srv_origin o = {conn, http, ref, 0};
	srv_table *old = NULL;
	if (nt && nt->chat && nt->chat->rematch_of[0])
		old = tables_find(nt->chat->rematch_of);
	tables_outbox()->rematch_done(&o, old, nt, seat, token, e, err);
}

static void claimed(wjob *j)
{
	srv_table *nt = j->tag;
	tables_job_done(nt);
	chat_table *ct = chat_of(nt);
	srv_seat *s = &nt->seat[j->seatno];
	srv_origin o;
	o.conn = j->origin;
	o.http = j->origin_http;
	o.ref = j->ref;
	if (j->conflict && s->account) {
		/* another process gave the seat to its account first: the account's
		 * token is the same whoever asked, so the seat is theirs all the same */
		s->pending = 0;
		answer(o.conn, o.http, o.ref, nt, j->seatno, j->token, SE_OK, NULL);
		tables_sync(nt);
		return;
	}
	if (j->conflict) {
		memcpy(s->token_hash, ct->reserved[j->seatno], sizeof s->token_hash);
		s->pending = 0;
		answer(o.conn, o.http, o.ref, nt, -1, NULL, SE_SEAT_TAKEN,
		       "the seat of the rematch was taken in another window first");
		tables_sync(nt);
		return;
	}
	if (j->failed) {
		/* kept for them again: they may ask once more */
		memcpy(s->token_hash, ct->reserved[j->seatno], sizeof s->token_hash);
		s->pending = 0;
		char msg[256];
		snprintf(msg, sizeof msg, "the game database is unavailable: %s; the seat was not taken",
		         store_fault_text(j->fault));
		answer(o.conn, o.http, o.ref, nt, -1, NULL, SE_STORAGE, msg);
		return;
	}
	s->pending = 0;
	srv_event("table=%s event=join seat=%d name=\"%s\" (rematch)", nt->id, j->seatno, s->name);
	tables_seat_stored(nt);
	answer(o.conn, o.http, o.ref, nt, j->seatno, j->token, SE_OK, NULL);
	invite(ct->rematch_of[0] ? tables_find(ct->rematch_of) : NULL, nt);
}

/* Gives reserved seat `seat` of the stored rematch nt a fresh token and
 * stores it: a guest's is random, an account's the one derived for the
 * account (accounts.h), so that its other browsers can claim it too. */
static void claim(srv_table *nt, int seat, uint64_t conn, int http, json_t *ref)
{
	char token[STORE_TOKEN_SIZE];
	srv_seat *s = &nt->seat[seat];
	chat_table *ct = chat_of(nt);
	memcpy(ct->reserved[seat], s->token_hash, sizeof s->token_hash);
	/* an account's epoch that cannot be read: a random token, which this
	 * browser holds and the account's others cannot claim */
	if (!s->account || accounts_seat_token(nt->id, seat, s->account, token))
		srv_random_hex(token, 16);
	srv_token_hash(token, s->token_hash);
	s->pending = 1;
	srv_origin o = {conn, http, ref, 0};
	tables_seat_changed(nt, seat, token, claimed, &o);
	explicit_bzero(token, sizeof token);
}

static void created(wjob *j)
{
	srv_table *nt = j->tag;
	tables_job_done(nt);
	chat_table *ct = chat_of(nt);
	ct->creating = 0;
	/* the old table was held in memory while this was stored, so that its
	 * state (the rematch's id) cannot be lost and read again too early */
	srv_table *old = ct->old;
	ct->old = NULL;
	tables_job_done(old);
	if (old && !j->failed)
		tables_seq_written(old, j->old_seq); /* its rematch link is a change of its own */
	if (j->failed) {
		char msg[256];
		snprintf(msg, sizeof msg, "the game database is unavailable: %s; the rematch was not "
		         "made", store_fault_text(j->fault));
		answer(j->origin, j->origin_http, j->ref, NULL, -1, NULL, SE_STORAGE, msg);
		for (int i = 0; i < ct->nwait; i++) {
			answer(ct->wait[i].conn, ct->wait[i].http, ct->wait[i].ref, NULL, -1, NULL,
			       SE_STORAGE, msg);
			json_decref(ct->wait[i].ref);
		}
		ct->nwait = 0;
		if (old && old->chat && !strcmp(old->chat->rematch, nt->id))
			old->chat->rematch[0] = 0;
		tables_created(nt, 0);
		return;
	}
	tables_created(nt, 1);
	srv_event("table=%s event=rematch of=%s", nt->id, j->old_id);
	answer(j->origin, j->origin_http, j->ref, nt, j->seatno, j->token, SE_OK, NULL);
	for (int i = 0; i < ct->nwait; i++) {
		claim(nt, ct->wait[i].seat, ct->wait[i].conn, ct->wait[i].http, ct->wait[i].ref);
		json_decref(ct->wait[i].ref);
	}
	ct->nwait = 0;
	invite(old, nt);
}

/* Claims the seat of old seat i at the rematch nt (made or being made). */
static srv_err claim_or_wait(srv_table *old, int i, srv_table *nt, const srv_origin *o,
                             char *err, size_t errsize)
{
	if (nt->nseats != old->nseats) {
		snprintf(err, errsize, "the rematch has other seats");
		return SE_BAD_TOKEN;
	}
	int j = new_seat_of(i, nt->nseats);
	chat_table *ct = chat_of(nt);
	char want[STORE_TOKEN_HASH_SIZE];
	reserved_hash(old->seat[i].token_hash, want);
	srv_seat *s = &nt->seat[j];
	int waiting = 0;
	for (int k = 0; k < ct->nwait; k++)
		waiting |= ct->wait[k].seat == j;
	if (!tables_seat_reserved(s) || s->pending || waiting) {
		snprintf(err, errsize, "seat %d of the rematch %s is taken: the player of seat %d has "
		         "taken it already", j, nt->id, i);
		return SE_SEAT_TAKEN;
	}
	/* an account's seat is kept for the account: its token of the old
	 * game under the account's epoch now claims it, though the seat was
	 * kept with the prefix of one that a password change replaced (a
	 * guest's seat: the prefix only) */
	int own = s->account && s->account == old->seat[i].account;
	if (!own && !srv_token_eq(s->token_hash, want)) {
		snprintf(err, errsize, "this token does not hold the seat the rematch keeps");
		return SE_BAD_TOKEN;
	}
	if (ct->creating) {
		ct->wait[ct->nwait].seat = j;
		ct->wait[ct->nwait].conn = o->conn;
		ct->wait[ct->nwait].http = o->http;
		ct->wait[ct->nwait].ref = o->ref ? json_incref(o->ref) : NULL;
		ct->nwait++;
		return SE_PENDING;
	}
	claim(nt, j, o->conn, o->http, o->ref);
	return SE_PENDING;
}

srv_err rematch_request(srv_table *t, const char *token, const char *addr,
                        const srv_origin *o, char *err, size_t errsize, int *wait_s)
{
	*wait_s = 0;
	if (t->status == STORE_VIEW) {
		snprintf(err, errsize, "this table shows an uploaded record; it has no rematch");
		return SE_READ_ONLY;
	}
	int i = tables_seat_of(t, token);
	if (i < 0) {
		snprintf(err, errsize, "%s", token && *token ? "this token holds no seat at this table"
		                                             : "a rematch needs the seat's token");
		return SE_BAD_TOKEN;
	}
	if (t->status != STORE_OVER) {
		snprintf(err, errsize, "the game has not ended: a rematch comes after the final scores");
		return SE_NOT_OVER;
	}
	chat_table *ct = chat_rematch_of(t);
	if (ct->rematch[0]) {
		srv_table *nt = tables_find(ct->rematch);
		if (nt)
			return claim_or_wait(t, i, nt, o, err, errsize);
		ct->rematch[0] = 0; /* an open rematch that expired: a new one may be made */
	}
	char lerr[256];
	char owner[LIM_KEY_SIZE];
	lim_key(addr, owner);
	/* a rematch is an open table of its maker's address like any other
	 * (issue 21: rematches held 7 open tables past a cap of 3) */
	int w = tables_open_full(owner, lerr, sizeof lerr);
	if (!w)
		w = lim_take(addr, LIM_TABLES, lerr, sizeof lerr);
	if (w) {
		*wait_s = w;
		snprintf(err, errsize, "%s", lerr);
		return SE_RATE_LIMITED;
	}
	int n = t->nseats;
	srv_table_opts opts = t->opts;
	opts.seed = srv_random_u64() >> 12;
	opts.match[0] = 0; /* a rematch is no quick match (its first moves, no-shows: match.c) */
	srv_seat seats[CARC_MAX_PLAYERS];
	memset(seats, 0, sizeof seats);
	for (int j = 0; j < n; j++) {
		int from = (j + 1) % n;
		opts.seat[j] = t->opts.seat[from];
		const srv_seat *os = &t->seat[from];
		srv_seat *s = &seats[j];
		s->kind = os->kind;
		memcpy(s->name, os->name, sizeof s->name);
		memcpy(s->level, os->level, sizeof s->level);
		memcpy(s->spec, os->spec, sizeof s->spec);
		s->colour = os->colour;
		s->account = os->account; /* the seat follows the account (issue 22) */
		opts.seat[j].colour = os->colour;
		if (os->kind == STORE_SEAT_HUMAN) {
			reserved_hash(os->token_hash, s->token_hash);
		}
	}
	/* the one asking sits down at once */
	int mine = new_seat_of(i, n);
	char tok[STORE_TOKEN_SIZE];
	srv_random_hex(tok, 16);
	srv_token_hash(tok, seats[mine].token_hash);
	srv_err code;
	srv_table *nt = tables_new(&opts, seats, owner, &code, err, errsize);
	if (!nt) {
		explicit_bzero(tok, sizeof tok);
		return code;
	}
	char own[STORE_TOKEN_SIZE];
	if (nt->seat[mine].account && !accounts_seat_token(nt->id, mine, nt->seat[mine].account, own)) {
		/* the account's own token for its seat at the new table (else the
		 * random one: its epoch could not be read) */
		memcpy(tok, own, sizeof tok);
		srv_token_hash(tok, nt->seat[mine].token_hash);
	}
	explicit_bzero(own, sizeof own);
	chat_table *nc = chat_of(nt);
	nc->creating = 1;
	nc->old = t;
	tables_hold(t);
	snprintf(nc->rematch_of, sizeof nc->rematch_of, "%s", t->id);
	snprintf(ct->rematch, sizeof ct->rematch, "%s", nt->id);
	ct->rematch_known = 1;
	wjob *j = tables_create_job(nt, WJ_REMATCH, created, o);
	snprintf(j->old_id, sizeof j->old_id, "%s", t->id);
	j->seatno = mine;
	memcpy(j->token, tok, sizeof j->token);
	explicit_bzero(tok, sizeof tok);
	writer_submit(j);
	return SE_PENDING;
}

srv_err rematch_claim_account(srv_table *nt, int64_t account, const srv_origin *o, char *err,
                              size_t errsize)
{
	int j = tables_seat_of_account(nt, account);
	if (j < 0 || !tables_seat_reserved(&nt->seat[j]))
		return SE_OK; /* not a seat kept for it: the caller answers as for any seat */
	chat_table *ct = chat_of(nt);
	for (int k = 0; k < ct->nwait; k++)
		if (ct->wait[k].seat == j) {
			snprintf(err, errsize, "the seat is being taken in another window; ask again");
			return SE_BUSY;
		}
	if (nt->status != STORE_OPEN) {
		snprintf(err, errsize, "the rematch has started without this seat");
		return SE_SEAT_TAKEN;
	}
	if (ct->creating) {
		if (ct->nwait >= CARC_MAX_PLAYERS) {
			snprintf(err, errsize, "the rematch is being made; ask again");
			return SE_BUSY;
		}
		ct->wait[ct->nwait].seat = j;
		ct->wait[ct->nwait].conn = o->conn;
		ct->wait[ct->nwait].http = o->http;
		ct->wait[ct->nwait].ref = o->ref ? json_incref(o->ref) : NULL;
		ct->nwait++;
		return SE_PENDING;
	}
	claim(nt, j, o->conn, o->http, o->ref);
	return SE_PENDING;
}
