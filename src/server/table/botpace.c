/*
 * botpace.c - the bots' pacing at the tables: the pause before a bot
 * moves (bot_timer, bot_kick), a bot that waits for the storage thread or
 * tries again, a step's clock running out (clock_due), and the moves the
 * bot threads hand back (tables_bots_drain), applied like anyone's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"

/* ---- bots ---------------------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void bot_timer(lws_sorted_usec_list_t *sul)
{
	srv_table *t = lws_container_of(sul, srv_table, bot_sul);
	if (t->bot_state != 1 || tables_step(t) != t->bot_step || carc_game_over(t->game) || t->pm) {
		t->bot_state = 0;
		return;
	}
	int p = carc_to_move(t->game);
	t->bot_state = 2;
	uint64_t seed = mix64(t->opts.seed ^ mix64(((uint64_t)p << 32) | (uint64_t)t->bot_step));
	int people = 0;
	for (int i = 0; i < t->nseats; i++)
		people |= t->seat[i].kind == STORE_SEAT_HUMAN && !t->seat[i].forfeited;
	bots_submit(t, t->owner, people, t->game, clock_bot_spec(t, p), seed, t->bot_step,
	            cfg->bot_max_time);
}

/* A bot seat's spec as stored: a game of an older version may hold any
 * spec a client sent then. It is held to today's ceilings like a level's
 * (in memory; the store keeps what it has). */
void bot_spec_loaded(srv_table *t, int seat)
{
	srv_seat *s = &t->seat[seat];
	char out[STORE_SPEC_SIZE], why[256], err[256];
	int rc = bots_clamp(cfg, s->spec, out, sizeof out, why, sizeof why, err, sizeof err);
	if (rc < 0) {
		srv_error("table=%s seat=%d bot '%s': %s (its moves will be the first legal ones)",
		          t->id, seat, s->spec, err);
	} else if (rc == 1) {
		srv_event("table=%s seat=%d bot %s is held to the ceilings as %s (%s)", t->id, seat,
		          s->spec, out, why);
		memcpy(s->spec, out, sizeof s->spec);
	}
}

/* If a bot is to move, schedules it after the table's pause. */
void bot_kick(srv_table *t)
{
	clock_turn(t); /* a new step's deadline (clock.c) */
	if (t->status != STORE_PLAYING || carc_game_over(t->game) || t->bot_state || t->pm ||
	    timers_stopped || t->clock.busy || t->undo_busy)
		return;
	int p = carc_to_move(t->game);
	if (!clock_bot_plays(t, p))
		return;
	if (!cluster_bots_mine(t->id))
		return; /* cluster hook: another process plays this table's bots */
	t->bot_state = 1;
	t->bot_step = tables_step(t);
	/* a move whose time ran out is played at once, without the pause */
	int delay = clock_timeout_move(t) ? 0 : t->opts.bot_delay_ms;
	lws_sul_schedule(lctx, 0, &t->bot_sul, bot_timer, (lws_usec_t)delay * LWS_US_PER_MS);
}

/* clock.c: the deadline passed; the takeover bot plays the move now. */
void clock_due(srv_table *t) { bot_kick(t); }

/* The bot's pause after a failed store: it thinks again only once writes
 * work (a bot that thinks for seconds would burn them on a move that
 * cannot be stored), checking every WRITER_PROBE_MS. */
static void bot_wait_storage(lws_sorted_usec_list_t *sul)
{
	srv_table *t = lws_container_of(sul, srv_table, bot_sul);
	if (t->bot_state == 1 && !writer_ok() && !timers_stopped) {
		lws_sul_schedule(lctx, 0, &t->bot_sul, bot_wait_storage,
		                 (lws_usec_t)WRITER_PROBE_MS * LWS_US_PER_MS);
		return;
	}
	bot_timer(sul);
}

/* After a failed store: the bot tries again after its pause, at least
 * WRITER_PROBE_MS, and not before writes work again. */
void bot_retry(srv_table *t)
{
	bot_kick(t);
	if (t->bot_state == 1) {
		int ms = t->opts.bot_delay_ms > WRITER_PROBE_MS ? t->opts.bot_delay_ms : WRITER_PROBE_MS;
		lws_sul_schedule(lctx, 0, &t->bot_sul, bot_wait_storage, (lws_usec_t)ms * LWS_US_PER_MS);
	}
}

void tables_bots_drain(void)
{
	void *tag;
	int step;
	carc_move m;
	while (bots_poll(&tag, &step, &m)) {
		srv_table *t = tag;
		t->bot_state = 0;
		if (t->bot_discard) {
			/* thought about a position that was taken back (undo.c) */
			t->bot_discard = 0;
			bot_kick(t);
			continue;
		}
		if (t->status != STORE_PLAYING || step != tables_step(t) || carc_game_over(t->game) ||
		    t->pm || !cluster_bots_have(t->id)) /* cluster hook: its lock was lost meanwhile */
			continue;
		char err[256];
		srv_err e = m == CARC_MOVE_NONE ? SE_ILLEGAL : apply_move(t, m, NULL, 1, err, sizeof err);
		if (e == SE_ILLEGAL) {
			/* a bot bug must not stall the game: play the first legal move */
			srv_error("table=%s step=%d bot '%s' gave an illegal move; playing the first legal one",
			          t->id, step, t->seat[carc_to_move(t->game)].spec);
			static carc_move buf[CARC_MAX_MOVES];
			if (carc_legal_moves(t->game, buf, CARC_MAX_MOVES) > 0)
				e = apply_move(t, buf[0], NULL, 1, err, sizeof err);
		}
		if (e != SE_PENDING)
			srv_error("table=%s step=%d bot move failed: %s", t->id, step, err);
	}
	analysis_drain(); /* the analyses' moves come back from the same pool */
}
