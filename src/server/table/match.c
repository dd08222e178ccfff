/*
 * match.c - quick match (see match.h; docs/server.md "Quick match").
 *
 * The queue lives in the store, never only here: every join, poll and
 * leave is a job of the storage thread (a WJ_CALL), so that people queued
 * on different processes of one PostgreSQL database see one queue. A
 * join or a poll of a waiting person also tries to make a table of the
 * person's pool (match_take): the store hands this file's pick() the
 * live waiting entries of the pool, oldest first, and seats the ones it
 * picks in one transaction (PostgreSQL: FOR UPDATE SKIP LOCKED), naming
 * a table id chosen here beforehand. When that committed, this process
 * makes the table with that id through the path of every table
 * (tables_new_as, then tables_create_job: stored, then started, clock and
 * ratings as usual). A poll answers "matched" with "ready" once the
 * table is stored, so a client never goes to a table that is not there.
 *
 * The window: someone who has waited w seconds accepts anyone whose
 * rating differs by at most
 *     window(w) = min(--match-window + --match-widen * w, --match-window-max)
 * and two people fit when their difference is within the wider of their
 * two windows (whoever waited longer decides). A table of n is the
 * longest-waiting person who has n - 1 others who all fit each other,
 * taken closest in rating first; seats are then shuffled.
 *
 * Pools: players "/" rule preset "/" clock preset ("2/base/rt-60"), from
 * the fixed lists below: 3 x 4 x 5 = 60 pools at most.
 *
 * Against abuse (issue 26; docs/server.md "Quick match"):
 *  - a matched table counts against the address key (entry.addr, from the
 *    join) and the account of everyone seated, in --max-tables-share: a
 *    join over it is refused, and make_table looks again (someone over it
 *    then, the table is not made and the entries go back: give_back);
 *  - people who met at a quick-match table within --match-recent fit
 *    each other only after --match-recent-wait (fits);
 *  - the table carries its pool (opts.match): clock.c voids it when a
 *    seat's first move does not come (tables_void), the store holds the
 *    no-show out and gives the others their place back; a join is refused
 *    while a table waits for the account's first move (STORE_PENDING).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "match.h"
#include "ratelimit.h"
#include "reply.h"
#include "tables.h"
#include "writer.h"

_Static_assert(STORE_ADDR_SIZE == LIM_KEY_SIZE, "a queue entry holds an address key");

#define MATCH_PLAYERS_MIN 2
#define MATCH_PLAYERS_MAX 4
/* how often a client polls (told in every answer); a waiting entry's
 * heartbeat. Matched ones poll quicker until their table is stored. */
#define MATCH_POLL_MS 2000
/* a pool is tried at most this often by this process (takes of polls) */
#define MATCH_TAKE_EVERY_MS 250

static const struct {
	const char *id;
	unsigned exp; /* CARC_EXP_* bits, named by the engine (exp_json) */
} RULES[] = {
	{"base", 0},
	{"ic", CARC_EXP_INNS},
	{"ic-tb", CARC_EXP_INNS | CARC_EXP_TRADERS},
	{"all", CARC_EXP_RIVER | CARC_EXP_INNS | CARC_EXP_TRADERS | CARC_EXP_ABBOT},
};
#define NRULES ((int)(sizeof RULES / sizeof RULES[0]))

/* the lobby's clock presets (web/js/clock.js) */
static const struct {
	const char *id;
	const char *mode;
	int move_s, reserve_s;
} CLOCKS[] = {
	{"rt-30", "realtime", 30, 60},
	{"rt-60", "realtime", 60, 120},
	{"rt-120", "realtime", 120, 300},
	{"tb-1d", "turn", 86400, 0},
	{"tb-3d", "turn", 3 * 86400, 0},
};
#define NCLOCKS ((int)(sizeof CLOCKS / sizeof CLOCKS[0]))

/* The people who came to a table voided by a no-show go back to their
 * place in the queue when they join again within this (their page does
 * at once; docs/server.md "Quick match") */
#define MATCH_VOID_KEEP_S 600

/* How long after it was made a table may still wait for someone's first
 * move: the longest first move of a preset (move and reserve) and a day
 * for a server that was down; a join of someone it waits for is refused
 * that long (store.h, match_join's pending_ms) */
static int64_t pending_ms(void)
{
	int64_t most = 0;
	for (int i = 0; i < NCLOCKS; i++)
		if ((int64_t)CLOCKS[i].move_s + CLOCKS[i].reserve_s > most)
			most = (int64_t)CLOCKS[i].move_s + CLOCKS[i].reserve_s;
	return (most + 86400) * 1000;
}
#define NPOOLS ((MATCH_PLAYERS_MAX - MATCH_PLAYERS_MIN + 1) * NRULES * NCLOCKS)

static const srv_config *cfg;
static match_answer_fn answer_fn;

/* The last poll of each account on this process (--match-poll-ms): a
 * fixed table, an account's slot by a hash of its id; another account in
 * the same slot replaces it (and is let through), so the table never
 * grows and never refuses anyone wrongly but a too-quick poller. Loop
 * thread only. */
#define POLL_SLOTS 4096
static struct {
	int64_t account, at_ms;
} polls[POLL_SLOTS];

static int poll_too_soon(int64_t account, int64_t now_ms)
{
	if (cfg->match_poll_ms <= 0)
		return 0;
	size_t i = (size_t)(((uint64_t)account * 0x9E3779B97F4A7C15ull) >> 52) % POLL_SLOTS;
	if (polls[i].account == account && now_ms >= polls[i].at_ms &&
	    now_ms - polls[i].at_ms < cfg->match_poll_ms)
		return 1;
	polls[i].account = account;
	polls[i].at_ms = now_ms;
	return 0;
}
static int64_t last_take_ms[NPOOLS]; /* the storage thread's (take_due) */

void match_setup(match_answer_fn answer)
{
	answer_fn = answer;
}

double match_window(const srv_config *c, int64_t waited_ms)
{
	double w = c->match_window + c->match_widen * (double)(waited_ms > 0 ? waited_ms : 0) / 1000.0;
	return w < c->match_window_max ? w : (c->match_window_max > c->match_window
	                                          ? c->match_window_max
	                                          : c->match_window);
}

/* ---- pools ----------------------------------------------------------------------------------- */

typedef struct pool_t {
	int players, rules, clock; /* indexes into RULES, CLOCKS */
} pool_t;

static int rules_of(const char *id)
{
	for (int i = 0; i < NRULES; i++)
		if (!strcmp(RULES[i].id, id))
			return i;
	return -1;
}

static int clock_of(const char *id)
{
	for (int i = 0; i < NCLOCKS; i++)
		if (!strcmp(CLOCKS[i].id, id))
			return i;
	return -1;
}

static void pool_name(const pool_t *p, char *out, size_t size)
{
	snprintf(out, size, "%d/%s/%s", p->players, RULES[p->rules].id, CLOCKS[p->clock].id);
}

/* A stored pool's name back: 0, or -1 (not one of ours). */
static int pool_parse(const char *name, pool_t *p)
{
	char r[16], c[16];
	if (sscanf(name, "%d/%15[^/]/%15s", &p->players, r, c) != 3)
		return -1;
	p->rules = rules_of(r);
	p->clock = clock_of(c);
	return p->players >= MATCH_PLAYERS_MIN && p->players <= MATCH_PLAYERS_MAX && p->rules >= 0 &&
	               p->clock >= 0
	           ? 0
	           : -1;
}

static int pool_index(const pool_t *p)
{
	return ((p->players - MATCH_PLAYERS_MIN) * NRULES + p->rules) * NCLOCKS + p->clock;
}

/* The expansions of bits `exp` by their names (the engine's), in the
 * engine's order. */
static json_t *exp_json(unsigned exp)
{
	json_t *ex = json_array();
	for (int i = 0; i < carc_name_count(CARC_NAMES_EXPANSION); i++)
		if (exp & (1u << i))
			json_array_append_new(ex, json_string(carc_name(CARC_NAMES_EXPANSION, i)));
	return ex;
}

/* The table options of a pool, as a client would send them to POST
 * /api/tables (opt_parse checks them as it checks theirs). Never "rated":
 * false: a quick match is always rated (its rematch too). */
static json_t *pool_options(const pool_t *p)
{
	json_t *ex = exp_json(RULES[p->rules].exp);
	json_t *clock = json_pack("{s:s, s:i}", "mode", CLOCKS[p->clock].mode, "move_s",
	                          CLOCKS[p->clock].move_s);
	if (!strcmp(CLOCKS[p->clock].mode, "realtime"))
		json_object_set_new(clock, "reserve_s", json_integer(CLOCKS[p->clock].reserve_s));
	json_t *seats = json_array();
	for (int i = 0; i < p->players; i++)
		json_array_append_new(seats, json_object());
	return json_pack("{s:i, s:o, s:o, s:o}", "players", p->players, "expansions", ex, "clock",
	                 clock, "seats", seats);
}

/* What a client may choose (GET /api/match). */
static json_t *choices_json(void)
{
	json_t *players = json_array(), *rules = json_array(), *clocks = json_array();
	for (int n = MATCH_PLAYERS_MIN; n <= MATCH_PLAYERS_MAX; n++)
		json_array_append_new(players, json_integer(n));
	for (int i = 0; i < NRULES; i++) {
		json_t *ex = exp_json(RULES[i].exp);
		json_array_append_new(rules, json_pack("{s:s, s:o}", "id", RULES[i].id, "expansions", ex));
	}
	for (int i = 0; i < NCLOCKS; i++) {
		pool_t p = {2, 0, i};
		json_t *o = pool_options(&p);
		json_array_append_new(clocks, json_pack("{s:s, s:O}", "id", CLOCKS[i].id, "clock",
		                                        json_object_get(o, "clock")));
		json_decref(o);
	}
	return json_pack("{s:o, s:o, s:o}", "players", players, "rules", rules, "clocks", clocks);
}

/* ---- picking a table (the storage thread, inside match_take) --------------------------------- */

typedef struct match_job match_job;

static int met(const store_match *a, const store_match *b)
{
	for (int i = 0; i < a->nrecent; i++)
		if (a->recent[i] == b->account)
			return 1;
	return 0;
}

/* Whether a and b may sit at one table now: their ratings within the
 * wider window, and when they met at a quick-match table within
 * --match-recent, one of them has waited --match-recent-wait (someone new
 * comes first when there is someone). */
static int fits(const store_match *a, const store_match *b, int64_t now_ms)
{
	int64_t wait_a = now_ms - a->joined_ms, wait_b = now_ms - b->joined_ms;
	double wa = match_window(cfg, wait_a), wb = match_window(cfg, wait_b);
	if (fabs(a->rating - b->rating) > (wa > wb ? wa : wb))
		return 0;
	int64_t longest = wait_a > wait_b ? wait_a : wait_b;
	return !(met(a, b) || met(b, a)) || longest >= (int64_t)cfg->match_recent_wait_s * 1000;
}

typedef struct pick_ctx {
	int players;
	int64_t now_ms;
} pick_ctx;

static int pick(void *ctx, const store_match *c, int n, int *chosen)
{
	const pick_ctx *pc = ctx;
	int k = pc->players;
	if (n < k || n > STORE_MATCH_SCAN)
		return 0;
	/* the entries by rating, once (an insertion sort of at most
	 * STORE_MATCH_SCAN); pos[i]: entry i's place in that order */
	int by[STORE_MATCH_SCAN], pos[STORE_MATCH_SCAN];
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && c[by[j - 1]].rating > c[i].rating) {
			by[j] = by[j - 1];
			j--;
		}
		by[j] = i;
	}
	for (int i = 0; i < n; i++)
		pos[by[i]] = i;
	/* anchors in order of waiting (c is oldest first); the others walked
	 * outwards from the anchor's place, the closer side first */
	for (int a = 0; a < n; a++) {
		int got = 0, l = pos[a] - 1, r = pos[a] + 1;
		chosen[got++] = a;
		while (got < k && (l >= 0 || r < n)) {
			int take;
			if (l < 0)
				take = by[r++];
			else if (r >= n)
				take = by[l--];
			else if (c[a].rating - c[by[l]].rating <= c[by[r]].rating - c[a].rating)
				take = by[l--];
			else
				take = by[r++];
			/* one that does not fit the anchor is passed over (one farther
			 * may still: its own window may be wider) */
			if (!fits(&c[take], &c[a], pc->now_ms))
				continue;
			int ok = 1;
			for (int g = 1; g < got && ok; g++)
				ok = fits(&c[take], &c[chosen[g]], pc->now_ms);
			if (ok)
				chosen[got++] = take;
		}
		if (got == k) {
			for (int i = k - 1; i > 0; i--) { /* who sits first: by chance */
				int j = (int)(srv_random_u64() % (uint64_t)(i + 1));
				int x = chosen[i];
				chosen[i] = chosen[j];
				chosen[j] = x;
			}
			return k;
		}
	}
	return 0;
}

/* ---- the jobs ---------------------------------------------------------------------------------- */

enum { MJ_JOIN, MJ_POLL, MJ_LEAVE, MJ_RETURN };

struct match_job {
	int kind;
	uint64_t serial;           /* the request waiting for the answer */
	int64_t account, now_ms;
	store_match me;            /* JOIN: the entry; POLL: as stored */
	int found;                 /* POLL: the account has an entry */
	int join_rc;               /* JOIN: 0, STORE_FULL, STORE_LIMITED, STORE_HELD, STORE_PENDING */
	store_match_args ja;       /* JOIN: its limits and answers */
	int try_take;              /* try to make a table of the pool afterwards */
	char pool[STORE_POOL_SIZE];
	int players;
	char table[STORE_ID_SIZE]; /* the id a table made now gets */
	int ntaken;
	store_match taken[8];
	char notes[8][STORE_NOTE_SIZE]; /* RETURN: why each taken entry was left out ("": not) */
};

/* Whether this process tries pool p now on a poll (and notes it): a
 * pool at most every MATCH_TAKE_EVERY_MS, whoever polls. The storage
 * thread's own (last_take_ms is touched only there). A join always tries. */
static int take_due(const pool_t *p, int64_t now_ms)
{
	int64_t *last = &last_take_ms[pool_index(p)];
	if (now_ms - *last < MATCH_TAKE_EVERY_MS && now_ms >= *last)
		return 0;
	*last = now_ms;
	return 1;
}

/* The storage thread. */
static int call_match(store *st, wjob *j)
{
	match_job *m = j->data;
	int64_t ttl = (int64_t)cfg->match_ttl_s * 1000;
	int rc;
	switch (m->kind) {
	case MJ_JOIN:
		m->ja.now_ms = m->now_ms;
		m->ja.ttl_ms = ttl;
		m->ja.max_queue = cfg->match_max;
		m->ja.rate_account = cfg->rate_match_account;
		m->ja.recent_ms = (int64_t)cfg->match_recent_s * 1000;
		m->ja.pending_ms = pending_ms();
		m->ja.void_ms = (int64_t)MATCH_VOID_KEEP_S * 1000;
		rc = st->ops->match_join(st, &m->me, &m->ja, j->err);
		if (rc == -1)
			return -1;
		m->join_rc = rc;
		if (rc)
			return 0;
		m->me.joined_ms = m->ja.joined_ms;
		m->me.seen_ms = m->now_ms;
		m->me.seat = -1;
		m->found = 1;
		break;
	case MJ_POLL:
		rc = st->ops->match_poll(st, m->account, m->now_ms, ttl, &m->me, j->err);
		if (rc < 0)
			return -1;
		m->found = rc;
		if (!rc || m->me.table[0])
			return 0;
		snprintf(m->pool, sizeof m->pool, "%s", m->me.pool);
		break;
	case MJ_RETURN: {
		int64_t acc[8];
		for (int i = 0; i < m->ntaken; i++)
			acc[i] = m->taken[i].account;
		return st->ops->match_return(st, m->table, acc, (const char(*)[STORE_NOTE_SIZE])m->notes,
		                             m->ntaken, j->err);
	}
	default:
		return st->ops->match_leave(st, m->account, j->err);
	}
	if (!m->try_take)
		return 0;
	pool_t p;
	if (pool_parse(m->pool, &p) || (m->kind == MJ_POLL && !take_due(&p, m->now_ms)))
		return 0;
	pick_ctx pc = {p.players, m->now_ms};
	int64_t keep = (int64_t)cfg->match_recent_s * 1000;
	if (keep < pending_ms())
		keep = pending_ms();
	rc = st->ops->match_take(st, m->pool, m->now_ms, ttl, keep, pick, &pc, m->table, m->taken,
	                         j->err);
	if (rc < 0)
		return -1;
	m->ntaken = rc;
	for (int i = 0; i < rc; i++)
		if (m->taken[i].account == m->account) {
			snprintf(m->me.table, sizeof m->me.table, "%s", m->table);
			m->me.seat = m->taken[i].seat;
		}
	return 0;
}

static void answer(uint64_t serial, int status, json_t *o)
{
	char *body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	answer_fn(serial, status, "application/json", body, body ? strlen(body) : 0, NULL, NULL);
}

static void answer_error(uint64_t serial, srv_err e, const char *msg, int retry_s)
{
	json_t *o = api_error_json(e, msg);
	if (retry_s > 0)
		json_object_set_new(json_object_get(o, "error"), "retry_after_s", json_integer(retry_s));
	answer(serial, srv_err_http_status(e), o);
}

/* The person's state: none, waiting (with the window) or matched. */
static json_t *state_json(const match_job *m)
{
	if (!m->found)
		return json_pack("{s:s, s:o, s:i, s:i}", "state", "none", "choices", choices_json(),
		                 "bot_after_s", cfg->match_bot_after_s, "poll_ms", MATCH_POLL_MS);
	if (m->me.table[0])
		return json_pack("{s:s, s:s, s:i, s:b, s:i}", "state", "matched", "table", m->me.table,
		                 "seat", m->me.seat, "ready", m->me.ready, "poll_ms", MATCH_POLL_MS / 4);
	pool_t p = {2, 0, 0};
	pool_parse(m->me.pool, &p);
	int64_t waited = m->now_ms - m->me.joined_ms;
	return json_pack("{s:s, s:i, s:s, s:s, s:I, s:i, s:i, s:b, s:i, s:i, s:o}", "state",
	                 "waiting", "players", p.players, "rules", RULES[p.rules].id, "clock",
	                 CLOCKS[p.clock].id, "waited_ms", (json_int_t)(waited > 0 ? waited : 0),
	                 "rating", (int)lround(m->me.rating), "window",
	                 (int)lround(match_window(cfg, waited)), "offer_bot",
	                 waited >= (int64_t)cfg->match_bot_after_s * 1000, "bot_after_s",
	                 cfg->match_bot_after_s, "poll_ms", MATCH_POLL_MS, "choices", choices_json());
}

static void table_made(wjob *j)
{
	srv_table *t = j->tag;
	tables_job_done(t);
	if (j->failed)
		srv_error("table=%s event=match_failed: %s", t->id, j->err);
	else
		srv_event("table=%s event=matched players=%d", t->id, t->nseats);
	tables_created(t, !j->failed);
}

static void returned(wjob *j)
{
	if (j->failed) /* the entries expire (--match-ttl): their clients give up */
		srv_error("table=%s event=match_return_failed: %s", j->id, j->err);
}

/* Table m->table is not made: its entries go back to the queue (the ones
 * with a note only to be told why, by their next poll). */
static void give_back(const match_job *m, char (*notes)[STORE_NOTE_SIZE], const char *why)
{
	match_job *r = srv_xcalloc(1, sizeof *r);
	r->kind = MJ_RETURN;
	snprintf(r->table, sizeof r->table, "%s", m->table);
	r->ntaken = m->ntaken;
	memcpy(r->taken, m->taken, sizeof r->taken);
	memcpy(r->notes, notes, sizeof r->notes);
	srv_event("table=%s event=match_returned why=%s people=%d", m->table, why, m->ntaken);
	wjob *j = writer_job(WJ_CALL, m->table);
	j->call = call_match;
	j->data = r;
	j->done = returned;
	writer_submit(j);
}

/* The entries taken are seated at table m->table: make it, as any table,
 * unless one of them holds its share of the tables here (it joined while
 * under it, another process seated it meanwhile...) or the server is full:
 * then nobody is seated and the entries go back (give_back). */
static void make_table(const match_job *m)
{
	pool_t p;
	if (pool_parse(m->pool, &p) || m->ntaken != p.players)
		return;
	char err[512];
	char notes[8][STORE_NOTE_SIZE];
	memset(notes, 0, sizeof notes);
	int over = 0;
	for (int i = 0; i < m->ntaken; i++)
		if (tables_share_full(m->taken[i].addr, m->taken[i].account, err, sizeof err)) {
			snprintf(notes[i], sizeof notes[i], "share");
			over++;
		}
	if (over) {
		give_back(m, notes, "share");
		return;
	}
	json_t *oj = pool_options(&p);
	srv_table_opts opts;
	int bad = opt_parse(oj, cfg->bot_delay_ms, &opts, err, sizeof err);
	json_decref(oj);
	if (bad) {
		srv_error("quick match %s: %s", m->pool, err);
		return;
	}
	/* a quick match: its first moves are due (clock.c), its no-shows void it */
	snprintf(opts.match, sizeof opts.match, "%s", m->pool);
	srv_seat seats[CARC_MAX_PLAYERS];
	memset(seats, 0, sizeof seats);
	for (int i = 0; i < m->ntaken; i++) {
		const store_match *e = &m->taken[i];
		srv_seat *s = &seats[e->seat];
		s->kind = STORE_SEAT_HUMAN;
		snprintf(s->name, sizeof s->name, "%s", e->name);
		s->account = e->account;
		s->colour = opts.seat[e->seat].colour;
		char token[STORE_TOKEN_SIZE];
		if (accounts_seat_token(m->table, e->seat, e->account, token)) {
			/* the account's epoch could not be read (or it is gone) */
			srv_error("table=%s event=match_failed: no seat token for account %lld",
			          m->table, (long long)e->account);
			return;
		}
		srv_token_hash(token, s->token_hash);
		explicit_bzero(token, sizeof token);
	}
	srv_err code;
	srv_table *t = tables_new_as(m->table, &opts, seats, "", &code, err, sizeof err);
	if (!t) {
		/* the server is full (--max-tables): its people are told so */
		srv_error("table=%s event=match_failed: %s", m->table, err);
		for (int i = 0; i < m->ntaken; i++)
			snprintf(notes[i], sizeof notes[i], "busy");
		give_back(m, notes, "busy");
		return;
	}
	/* it counts against everyone seated, as a table counts against its maker */
	for (int i = 0; i < m->ntaken; i++)
		snprintf(t->seat_addr[m->taken[i].seat], LIM_KEY_SIZE, "%s", m->taken[i].addr);
	clock_init(t);
	writer_submit(tables_create_job(t, WJ_CREATE, table_made, NULL));
}

static void match_done(wjob *j)
{
	match_job *m = j->data;
	if (j->failed) {
		char msg[256];
		snprintf(msg, sizeof msg, "the game database is unavailable: %s",
		         store_fault_text(j->fault));
		answer_error(m->serial, SE_STORAGE, msg, 0);
		return;
	}
	if (m->ntaken)
		make_table(m);
	if (m->kind == MJ_LEAVE) {
		answer(m->serial, 200, json_pack("{s:b}", "ok", 1));
	} else if (m->kind == MJ_JOIN && m->join_rc == STORE_FULL) {
		char msg[160];
		snprintf(msg, sizeof msg, "the quick-match queue holds %d people, its most "
		         "(--match-max); try again soon", cfg->match_max);
		answer_error(m->serial, SE_QUEUE_FULL, msg, 10);
	} else if (m->kind == MJ_POLL && m->found && !strcmp(m->me.note, "share")) {
		char msg[200];
		snprintf(msg, sizeof msg, "a table was found, but this address or account holds the "
		         "most tables it may (--max-tables-share %d%% of --max-tables); the others went "
		         "on without it", cfg->max_tables_share);
		answer_error(m->serial, SE_TOO_MANY_TABLES, msg, 60);
	} else if (m->kind == MJ_POLL && m->found && m->me.note[0]) {
		answer_error(m->serial, SE_BUSY, "a table was found, but the server holds as many "
		             "tables as it may (--max-tables); try again soon", 10);
	} else if (m->kind == MJ_JOIN && m->join_rc == STORE_LIMITED) {
		char msg[160];
		snprintf(msg, sizeof msg, "this account joined the quick match %d times this minute, "
		         "its most (--rate-match-account)", cfg->rate_match_account);
		answer_error(m->serial, SE_RATE_LIMITED, msg, (int)((m->ja.retry_ms + 999) / 1000));
	} else if (m->kind == MJ_JOIN && m->join_rc == STORE_HELD) {
		char msg[240];
		int s = (int)((m->ja.retry_ms + 999) / 1000);
		snprintf(msg, sizeof msg, "this account did not come to a quick-match table it was "
		         "seated at: it may join again in %d:%02d (--match-hold, twice as long for "
		         "each repeat)", s / 60, s % 60);
		answer_error(m->serial, SE_HELD_OUT, msg, s);
	} else if (m->kind == MJ_JOIN && m->join_rc == STORE_PENDING) {
		json_t *o = api_error_json(SE_MATCH_PENDING, "a quick-match table waits for this "
		                           "account's first move: go to it (or resign there) first");
		json_object_set_new(json_object_get(o, "error"), "table", json_string(m->ja.table));
		answer(m->serial, srv_err_http_status(SE_MATCH_PENDING), o);
	} else {
		answer(m->serial, m->kind == MJ_JOIN ? 201 : 200, state_json(m));
	}
}

static void submit(match_job *m)
{
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call_match;
	j->data = m;
	j->done = match_done;
	writer_submit(j);
}

static match_job *new_job(int kind, const api_req *rq, int64_t account)
{
	match_job *m = srv_xcalloc(1, sizeof *m);
	m->kind = kind;
	m->serial = rq->serial;
	m->account = account;
	m->now_ms = srv_now_ms();
	m->me.seat = -1;
	srv_random_hex(m->table, 8);
	return m;
}

/* ---- the endpoints ----------------------------------------------------------------------------- */

/* {"players": 2..4, "rules": preset, "clock": preset}, nothing else. */
static int parse_choice(const api_req *rq, pool_t *p, char *err, size_t errsize)
{
	json_error_t je;
	json_t *o = rq->body_len ? json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &je)
	                         : NULL;
	int rc = -1;
	if (!json_is_object(o)) {
		snprintf(err, errsize, "the body must be a JSON object {\"players\", \"rules\", \"clock\"}");
		goto out;
	}
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		if (strcmp(key, "players") && strcmp(key, "rules") && strcmp(key, "clock")) {
			snprintf(err, errsize, "unknown key '%.40s' (players, rules, clock)", key);
			goto out;
		}
	}
	v = json_object_get(o, "players");
	json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
	if (n < MATCH_PLAYERS_MIN || n > MATCH_PLAYERS_MAX) {
		snprintf(err, errsize, "'players' must be an integer %d..%d", MATCH_PLAYERS_MIN,
		         MATCH_PLAYERS_MAX);
		goto out;
	}
	p->players = (int)n;
	const char *r = json_string_value(json_object_get(o, "rules"));
	p->rules = r ? rules_of(r) : -1;
	if (p->rules < 0) {
		snprintf(err, errsize, "'rules' must be one of base, ic, ic-tb, all");
		goto out;
	}
	const char *c = json_string_value(json_object_get(o, "clock"));
	p->clock = c ? clock_of(c) : -1;
	if (p->clock < 0) {
		snprintf(err, errsize, "'clock' must be one of rt-30, rt-60, rt-120, tb-1d, tb-3d");
		goto out;
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

static void post_join(const api_req *rq, api_resp *rs, const store_account *acc)
{
	if (rq->body_too_large) {
		api_reply_error(rs, SE_TOO_LARGE, "the body is over the size limit");
		return;
	}
	pool_t p;
	char err[300];
	if (parse_choice(rq, &p, err, sizeof err)) {
		api_reply_error(rs, SE_MALFORMED, err);
		return;
	}
	/* over its share here: refused now, never seated (make_table looks
	 * again when a table is made, on whichever process makes it) */
	char key[LIM_KEY_SIZE];
	lim_key(rq->addr, key);
	if (tables_share_full(key, acc->id, err, sizeof err)) {
		api_reply_error(rs, SE_TOO_MANY_TABLES, err);
		rs->retry_after = 60;
		return;
	}
	match_job *m = new_job(MJ_JOIN, rq, acc->id);
	m->me.account = acc->id;
	snprintf(m->me.addr, sizeof m->me.addr, "%s", key);
	snprintf(m->me.name, sizeof m->me.name, "%s", acc->name);
	pool_name(&p, m->me.pool, sizeof m->me.pool);
	snprintf(m->pool, sizeof m->pool, "%s", m->me.pool);
	m->me.rating = acc->rating;
	m->players = p.players;
	m->try_take = 1; /* a join may complete a table at once */
	submit(m);
	rs->status = 0; /* answered from match_done */
}

int match_http(const srv_config *c, const api_req *rq, api_resp *rs)
{
	const char *path = rq->path;
	if (!cfg)
		cfg = c; /* once, before any job: the storage thread reads it after writer_submit */
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	int join = !strcmp(path, "/api/match"), leave = !strcmp(path, "/api/match/leave");
	if (!join && !leave)
		return 0;
	if (join ? !get && !post : !post) {
		api_reply_error(rs, SE_METHOD, join ? "GET or POST" : "POST only");
		return 1;
	}
	char err[300];
	if (post && join) {
		int wait = lim_take(rq->addr, LIM_MATCH, err, sizeof err);
		if (wait) {
			api_reply_error(rs, SE_RATE_LIMITED, err);
			rs->retry_after = wait;
			return 1;
		}
	}
	store_account acc;
	int rc = accounts_session(rq->cookie, &acc);
	if (rc < 0) {
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return 1;
	}
	if (rc == 0) {
		if (get) /* a guest sees the choices; playing a person needs an account */
			api_reply(rs, 200, json_pack("{s:s, s:o, s:i}", "state", "guest", "choices",
			                         choices_json(), "bot_after_s", cfg->match_bot_after_s));
		else
			api_reply_error(rs, SE_NOT_LOGGED_IN, "quick match needs an account: its games are "
			            "rated (log in or register)");
		return 1;
	}
	if (post && join) {
		post_join(rq, rs, &acc);
	} else if (get && poll_too_soon(acc.id, srv_now_ms())) {
		snprintf(err, sizeof err, "this account polls the quick match more often than every "
		         "%d ms (--match-poll-ms); poll every poll_ms", cfg->match_poll_ms);
		api_reply_error(rs, SE_RATE_LIMITED, err);
		rs->retry_after = 1;
	} else {
		match_job *m = new_job(get ? MJ_POLL : MJ_LEAVE, rq, acc.id);
		m->try_take = get; /* a waiting person's poll tries the pool (take_due) */
		submit(m);
		rs->status = 0; /* answered from match_done */
	}
	return 1;
}
