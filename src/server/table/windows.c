/*
 * windows.c - which browser window holds a seat's controls (see
 * windows.h).
 *
 * Invariants:
 *  - t->seat[i].window is the holder as this process last knew it, valid
 *    when win_known; a take here sets it before its store write, so the
 *    clients here hear of it at once; the write's failure is logged only
 *    (the next take writes again; the windows still work here).
 *  - the store write announces itself to the other processes, which read
 *    the holder back (windows_heard): the last write wins everywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"
#include "windows.h"

static int window_ok(const char *w)
{
	if (!w || strlen(w) != WINDOW_ID_LEN)
		return 0;
	for (const char *p = w; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

static char *holder_text(const srv_table *t, int seat)
{
	json_t *o = json_pack("{s:s, s:i, s:s}", "type", "seat_window", "seat", seat, "window",
	                      t->seat[seat].window);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static void tell_all(srv_table *t, int seat)
{
	if (!t->conns)
		return;
	char *s = holder_text(t, seat);
	if (s)
		box->broadcast(t, s, strlen(s));
	free(s);
}

/* ---- the store ------------------------------------------------------------------------------ */

typedef struct win_write {
	char id[STORE_ID_SIZE];
	int seat;
	char window[STORE_WINDOW_SIZE];
} win_write;

static int call_set(store *st, wjob *j)
{
	const win_write *w = j->data;
	return st->ops->window_set(st, w->id, w->seat, w->window, j->err);
}

static void set_done(wjob *j)
{
	if (j->failed)
		srv_error("table=%s the window of seat %d was not stored: %s", j->id, j->seatno,
		          j->err);
}

static void store_holder(const srv_table *t, int seat)
{
	win_write *w = srv_xcalloc(1, sizeof *w);
	snprintf(w->id, sizeof w->id, "%s", t->id);
	w->seat = seat;
	memcpy(w->window, t->seat[seat].window, sizeof w->window);
	wjob *j = writer_job(WJ_CALL, t->id);
	j->call = call_set;
	j->data = w;
	j->seatno = seat;
	j->done = set_done;
	writer_submit(j);
}

/* Reads the stored holder of seat `seat`: 0, or -1 (logged; unknown). */
static int read_holder(srv_table *t, int seat)
{
	char err[STORE_ERR_SIZE], w[STORE_WINDOW_SIZE];
	if (db->ops->window_get(db, t->id, seat, w, err)) {
		srv_error("table=%s reading the window of seat %d: %s", t->id, seat, err);
		return -1;
	}
	memcpy(t->seat[seat].window, w, sizeof w);
	t->seat[seat].win_known = 1;
	return 0;
}

/* ---- the rules ------------------------------------------------------------------------------ */

/* The seat's takes: WINDOW_TAKE_BURST at once, WINDOW_TAKE_PER_S after.
 * 0, or the seconds to wait. */
static int take_budget(srv_seat *s)
{
	int64_t now = srv_mono_us();
	if (!s->win_us)
		s->win_tokens = WINDOW_TAKE_BURST;
	else
		s->win_tokens += (double)(now - s->win_us) / 1e6 * WINDOW_TAKE_PER_S;
	if (s->win_tokens > WINDOW_TAKE_BURST)
		s->win_tokens = WINDOW_TAKE_BURST;
	s->win_us = now;
	if (s->win_tokens < 1.0)
		return (int)((1.0 - s->win_tokens) / WINDOW_TAKE_PER_S) + 1;
	s->win_tokens -= 1.0;
	return 0;
}

srv_err windows_hello(srv_table *t, const srv_client *c, uint64_t conn, const char *window,
                      int take, char *err, size_t errsize, int *wait_s)
{
	*wait_s = 0;
	int seat = c->seat;
	if (seat < 0 || seat >= t->nseats || t->status == STORE_VIEW) {
		snprintf(err, errsize, "this connection holds no seat at this table");
		return SE_BAD_TOKEN;
	}
	if (!window_ok(window)) {
		snprintf(err, errsize, "\"window\" must be %d hex digits (0-9, a-f)", WINDOW_ID_LEN);
		return SE_MALFORMED;
	}
	srv_seat *s = &t->seat[seat];
	if (!s->win_known && read_holder(t, seat)) {
		snprintf(err, errsize, "the game database is unavailable");
		return SE_STORAGE;
	}
	/* asking, or taking what it holds already: the asker alone is told who
	 * holds the seat (the others were told when it changed hands; telling
	 * them again made one message of a client cost one to every watcher,
	 * with no budget: it does not change hands, so take_budget is not
	 * asked) */
	if ((!take && s->window[0]) || !strcmp(s->window, window)) {
		char *txt = holder_text(t, seat);
		if (txt)
			box->send_text(conn, txt);
		free(txt);
		return SE_OK;
	}
	int w = take_budget(s);
	if (w) {
		*wait_s = w;
		snprintf(err, errsize, "seat %d's controls moved between windows too often: at most %d "
		         "at once and one every %.0f s", seat, WINDOW_TAKE_BURST, 1.0 / WINDOW_TAKE_PER_S);
		return SE_RATE_LIMITED;
	}
	memcpy(s->window, window, WINDOW_ID_LEN + 1);
	store_holder(t, seat);
	tell_all(t, seat);
	return SE_OK;
}

void windows_heard(srv_table *t, int seat)
{
	if (seat < 0 || seat >= t->nseats)
		return;
	srv_seat *s = &t->seat[seat];
	if (!t->conns) {
		s->win_known = 0; /* read when a client asks */
		return;
	}
	char was[STORE_WINDOW_SIZE];
	memcpy(was, s->window, sizeof was);
	int known = s->win_known;
	if (read_holder(t, seat)) {
		s->win_known = 0;
		return;
	}
	if (!known || strcmp(was, s->window))
		tell_all(t, seat);
}

void windows_forget(srv_table *t)
{
	for (int i = 0; i < t->nseats; i++)
		t->seat[i].win_known = 0;
}
