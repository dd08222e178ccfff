/*
 * test_store_plans.c - every list query the server runs for a client is
 * driven by an index on the asker's own rows (docs/server.md, "Reads that
 * cost what the asker owns"): on a site of 20,000 accounts and games, the
 * store's explain op (store_plans.c: the server's own statements with an
 * asker's arguments, not copies) must show no step that reads what grows
 * with the site.
 *
 * SQLite (make test): a store file of its own, explained as the server
 * finds it (no statistics: the server never runs ANALYZE) and after
 * ANALYZE. PostgreSQL: CARC_PLANS_PG=postgresql://... names an empty
 * database (tests/py/test_pg_plans.py makes one under tests/pg/run.sh),
 * explained after ANALYZE, with the custom plan and, for a statement the
 * store prepares, the generic plan it may switch to.
 *
 * What fails (find_scan): a step that reads a whole table or index
 * (SQLite "SCAN t"; PostgreSQL "Seq Scan", an index scan without an Index
 * Cond), or reads an index by a range or a value that picks no account
 * and no row found before (SQLite "SEARCH g USING INDEX games_listed
 * (status=?)", "SEARCH s USING PRIMARY KEY (game_id>?)"; PostgreSQL's
 * Index Cond likewise). Allowed: the lists of the whole site (the lobby,
 * the finished games, the leaderboard) walk their own index from their
 * cursor in its order and stop after a page (SITE_WALKS), and may not
 * sort. CARC_PLANS_SHOW=1 prints every plan.
 *
 * Then the copy the lists read of each game's status in its seats and
 * its clock (seats.game_status, clocks.game_status, schema 16) is checked against games.status after
 * the store's own writes: a table made, seated, started, its clock
 * stored, ended, deleted;
 * and the plans once more after two accounts took every seat but the
 * asker's (a planner's guess of an account's seats is the table's rows
 * over its distinct accounts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"

#define ACCOUNTS 20000
#define GAMES 20000
#define ASKER 1001 /* the account whose lists are explained */

static char dir[64];
static char path[96];
static const char *pg_url;

static int open_store(void **state)
{
	char err[STORE_ERR_SIZE];
	store *s;
	pg_url = getenv("CARC_PLANS_PG");
	if (pg_url && *pg_url) {
		s = store_pg_open(pg_url, 1, err);
	} else {
		pg_url = NULL;
		snprintf(dir, sizeof dir, "/tmp/carc-store-plans-XXXXXX");
		if (!mkdtemp(dir))
			return -1;
		snprintf(path, sizeof path, "%s/t.db", dir);
		s = store_sqlite_open(path, 0, 1, err);
	}
	if (!s)
		fprintf(stderr, "%s\n", err);
	*state = s;
	return s ? 0 : -1;
}

static int close_store(void **state)
{
	store *s = *state;
	s->ops->close(s);
	if (pg_url)
		return 0;
	char f[128];
	const char *ends[] = {"", "-wal", "-shm"};
	for (int i = 0; i < 3; i++) {
		snprintf(f, sizeof f, "%s%s", path, ends[i]);
		unlink(f);
	}
	rmdir(dir);
	return 0;
}

/* ---- the site: written with set-based SQL both stores read alike ---- */

#define SERIES(n) "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " n ") "
#define NOW "CAST($1 AS BIGINT)"

/* A game's status by its number i: a tenth open, four tenths being
 * played, half finished; a seventh of them private. */
#define STATUS_OF(i) "CASE WHEN " i " % 10 < 1 THEN 'open' WHEN " i " % 10 < 5 THEN 'playing'" \
                     " ELSE 'over' END"

static const char *const FILL[] = {
	/* accounts 1001..21000: a fifth without a rated game */
	SERIES("20000")
	"INSERT INTO accounts (id, name, name_key, pwhash, created_ms, rating, games, seen_ms)"
	" SELECT 1000 + i, 'p' || i, 'p' || i, 'x', " NOW ", 1000 + i % 997, i % 5, " NOW " FROM n",
	/* games, newest last, a second apart, the last half hour's open ones live */
	SERIES("20000")
	"INSERT INTO games (id, status, players, farmers, farm_scoring, small_city, expansions,"
	" seed, options, created_ms, updated_ms)"
	" SELECT 'g' || (100000 + i), " STATUS_OF("i") ", 2, 1, 'x', 0, '[]', i,"
	" CASE WHEN i % 7 = 0 THEN '{\"private\":true}' ELSE '{}' END,"
	" " NOW " - (20000 - i) * 1000, " NOW " - (20000 - i) * 500 FROM n",
	/* seat 0: an account (the asker's in one game of 1000); seat 1: open at
	 * an open table, a bot in one game of 50, else a guest or another
	 * account */
	SERIES("20000")
	"INSERT INTO seats (game_id, seat, kind, name, account)"
	" SELECT 'g' || (100000 + i), 0, 'human', 'x',"
	" CASE WHEN i % 1000 = 0 THEN 1001 ELSE 1002 + (i * 7) % 19999 END FROM n",
	SERIES("20000")
	"INSERT INTO seats (game_id, seat, kind, name, account)"
	" SELECT 'g' || (100000 + i), 1,"
	" CASE WHEN i % 10 < 1 THEN 'open' WHEN i % 50 = 7 THEN 'bot' ELSE 'human' END, 'y',"
	" CASE WHEN i % 10 < 1 OR i % 4 = 0 THEN 0 ELSE 1002 + (i * 13) % 19999 END FROM n",
	"INSERT INTO results (game_id, scores, by_kind, winners, finished_ms)"
	" SELECT id, '[1,2]', '[]', '[0]', updated_ms FROM games WHERE status = 'over'",
	"INSERT INTO moves (game_id, step, turn, kind, player, move, tile, entry, at_ms)"
	" SELECT id, 0, 0, 'tile', 0, 1, 'x', '{}', updated_ms FROM games",
	/* a clock in a third of the games, finished ones too (theirs stay) */
	"INSERT INTO clocks (game_id, step, deadline_ms, state)"
	" SELECT id, 0, 0, '{}' FROM games WHERE status <> 'open' AND seed % 3 = 0",
	"INSERT INTO ratings (account, game_id, seat, rating_before, rating_after, rd_after,"
	" vol_after, at_ms) SELECT s.account, s.game_id, 0, 1500, 1510, 100, 0.06, 1"
	" FROM seats s JOIN games g ON g.id = s.game_id WHERE g.status = 'over' AND s.seat = 0",
	/* friendships in a chain, requests two apart; the asker's 50
	 * friends, 30 requests in, 40 out, 30 blocks */
	SERIES("19999")
	"INSERT INTO friend_links (a, b, state, at_ms) SELECT 1000 + i, 1001 + i, 1, 0 FROM n",
	SERIES("19998")
	"INSERT INTO friend_links (a, b, state, at_ms) SELECT 1000 + i, 1002 + i, 0, 0 FROM n",
	SERIES("50")
	"INSERT INTO friend_links (a, b, state, at_ms) SELECT 1001, 1010 + i, 1, 0 FROM n",
	SERIES("30")
	"INSERT INTO friend_links (a, b, state, at_ms) SELECT 1200 + i, 1001, 0, 0 FROM n",
	SERIES("40")
	"INSERT INTO friend_links (a, b, state, at_ms) SELECT 1001, 1300 + i, 0, 0 FROM n",
	SERIES("20000")
	"INSERT INTO blocks (blocker, blocked, at_ms) SELECT 1000 + i, 1001 + (i * 11) % 20000, 0"
	" FROM n WHERE 1000 + i <> 1001 + (i * 11) % 20000",
	SERIES("30")
	"INSERT INTO blocks (blocker, blocked, at_ms) SELECT 1001, 1400 + i, 0 FROM n",
	/* an invite for every game, to someone; 20 more to the asker (to
	 * open tables) */
	"INSERT INTO invites (game_id, seat, from_account, to_account, at_ms)"
	" SELECT g.id, 1, s.account, 1001 + (g.seed * 17) % 20000, g.created_ms"
	" FROM games g JOIN seats s ON s.game_id = g.id AND s.seat = 0 AND s.account <> 0",
	"INSERT INTO invites (game_id, seat, from_account, to_account, at_ms)"
	" SELECT g.id, 1, s.account, 1001, g.created_ms FROM games g JOIN seats s"
	" ON s.game_id = g.id AND s.seat = 0 WHERE g.status = 'open' AND g.seed % 1000 = 500"
	" AND s.account <> 1001 ON CONFLICT DO NOTHING",
};

static void fill(store *s)
{
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	int64_t now = srv_now_ms();
	assert_int_equal(sql_begin(s, err), 0);
	for (size_t i = 0; i < sizeof FILL / sizeof FILL[0]; i++) {
		/* PostgreSQL infers a parameter's type from its use: none unused */
		sql_run(s, FILL[i], strstr(FILL[i], "$1") ? SQL_A1(now) : NULL, &bad, err);
		if (bad)
			fail_msg("filling the site: %s", err);
	}
	assert_int_equal(sql_commit(s, err), 0);
	assert_int_equal(sql_one(s, "SELECT count(*) FROM games", NULL, 0, &bad, err), GAMES);
	assert_int_equal(sql_one(s, "SELECT count(*) FROM accounts", NULL, 0, &bad, err), ACCOUNTS);
}

/* ---- the plans ---- */

#define MAX_QUERIES 64

struct plans {
	int n;
	char *name[MAX_QUERIES];
	srv_sb text[MAX_QUERIES];
};

static void add_line(void *ctx, const char *query, const char *line)
{
	struct plans *p = ctx;
	int k = 0;
	while (k < p->n && strcmp(p->name[k], query))
		k++;
	if (k == p->n) {
		assert_true(p->n < MAX_QUERIES);
		p->name[p->n] = strdup(query);
		sb_init(&p->text[p->n++]);
	}
	sb_printf(&p->text[k], "%s\n", line);
}

static void free_plans(struct plans *p)
{
	for (int k = 0; k < p->n; k++) {
		free(p->name[k]);
		sb_free(&p->text[k]);
	}
	p->n = 0;
}

/* The lists of the whole site, which walk their own index in order from
 * their cursor and stop after a page (a query whose name starts with
 * `query` may walk `index`, and only those). */
static const struct {
	const char *query;
	const char *index;
	int merged; /* walks of a page each, merged: sorts two pages */
} SITE_WALKS[] = {
	/* the best first: offset + limit rows (the offset is capped) */
	{"leaderboard", "accounts_board", 0},
	/* the newest finished first (private ones are skipped) */
	{"finished games", "results_by_finish", 0},
	/* the open tables of the last --open-expiry, newest first */
	{"lobby, open", "games_listed", 0},
	/* the tables being played, newest first (PostgreSQL may walk the
	 * unfinished ones, passing over the open ones, which expire) */
	{"lobby, playing", "games_listed", 0},
	{"lobby, playing", "games_unfinished", 0},
	/* both, newest first */
	{"lobby, all", "games_unfinished", 0},
	/* the games being played with a bot or a clock: indexes that hold
	 * only those */
	{"unowned games", "seats_bots_playing", 1},
	{"unowned games", "clocks_playing", 1},
};

/* Whether `query` is one of the site's walks that may not sort. */
static int is_site_walk(const char *query)
{
	for (size_t i = 0; i < sizeof SITE_WALKS / sizeof SITE_WALKS[0]; i++)
		if (!strncmp(query, SITE_WALKS[i].query, strlen(SITE_WALKS[i].query)))
			return !SITE_WALKS[i].merged;
	return 0;
}

static int site_walk(const char *query, const char *line)
{
	for (size_t i = 0; i < sizeof SITE_WALKS / sizeof SITE_WALKS[0]; i++)
		if (!strncmp(query, SITE_WALKS[i].query, strlen(SITE_WALKS[i].query)) &&
		    strstr(line, SITE_WALKS[i].index))
			return 1;
	return 0;
}

/* The columns whose value, compared for equality, picks the rows of one
 * account (the asker's, a friend's) or of one row found already (a join
 * on a key): a read keyed so costs what those rows are, not the site. */
static const char *const KEYS[] = {"account", "a", "b", "blocker", "blocked", "to_account",
                                   "from_account", "id", "game_id", "rowid"};

static int is_key(const char *col, size_t n)
{
	const char *dot = memchr(col, '.', n); /* PostgreSQL: "s.account" */
	if (dot) {
		n -= (size_t)(dot + 1 - col);
		col = dot + 1;
	}
	for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
		if (strlen(KEYS[i]) == n && !strncmp(KEYS[i], col, n))
			return 1;
	return 0;
}

/* Whether a condition (SQLite's "(a=? AND b>?)", PostgreSQL's "((a =
 * $1) AND (b > s.x))") holds an equality on a key column. */
static int keyed(const char *cond)
{
	for (const char *p = cond; *p; p++) {
		if (*p != '=' || p[1] == '=' || (p > cond && strchr("<>!", p[-1])))
			continue;
		const char *e = p;
		while (e > cond && e[-1] == ' ')
			e--;
		const char *b = e;
		while (b > cond && (b[-1] == '_' || b[-1] == '.' || (b[-1] >= 'a' && b[-1] <= 'z')))
			b--;
		if (b < e && is_key(b, (size_t)(e - b)))
			return 1;
	}
	return 0;
}

/* The first step of `text` that reads what grows with the site, into bad
 * (empty: none): a step that reads a table or an index whole (SQLite
 * "SCAN"; PostgreSQL "Seq Scan", an index scan without an Index Cond), or
 * by a range or a value that is not a key (SQLite "SEARCH t USING INDEX
 * games_listed (status=?)"; PostgreSQL's Index Cond likewise), but for
 * the site's own walks (SITE_WALKS). */
static void find_scan(const char *query, const char *text, char *bad, size_t size)
{
	bad[0] = 0;
	const char *line = text;
	while (*line && !bad[0]) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char l[512];
		snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l ? len : sizeof l - 1), line);
		const char *t = l + strspn(l, " ->");
		const char *next = end ? end + 1 : line + len;
		if (!pg_url) {
			const char *cond = strrchr(t, '(');
			/* a walk of the site sorted is read whole before its first row */
			if (is_site_walk(query) && l[0] != ' ' && !strncmp(t, "USE TEMP B-TREE", 15))
				snprintf(bad, size, "%s", t);
			else if (!strncmp(t, "SCAN ", 5) && strncmp(t, "SCAN CONSTANT ROW", 17) &&
			         strncmp(t, "SCAN (subquery", 14) && /* a page made above it */
			    !site_walk(query, t))
				snprintf(bad, size, "%s", t);
			else if (!strncmp(t, "SEARCH ", 7) && !(cond && keyed(cond)) && !site_walk(query, t))
				snprintf(bad, size, "%s", t);
		} else if (is_site_walk(query) && !strncmp(t, "Sort ", 5)) {
			snprintf(bad, size, "%s", t);
		} else if (strstr(t, "Seq Scan")) {
			snprintf(bad, size, "%s", t);
		} else if (strstr(t, "Index Scan") || strstr(t, "Index Only Scan")) {
			/* the node's own lines follow, indented deeper than it */
			size_t depth = strspn(l, " ");
			int key = 0;
			for (const char *n = next; *n;) {
				const char *e = strchr(n, '\n');
				size_t d = strspn(n, " ");
				if (d <= depth || !strncmp(n + d, "->", 2))
					break;
				if (!strncmp(n + d, "Index Cond:", 11)) {
					char c[512];
					size_t cl = e ? (size_t)(e - n) : strlen(n);
					snprintf(c, sizeof c, "%.*s", (int)(cl < sizeof c ? cl : sizeof c - 1), n);
					key = keyed(c);
				}
				n = e ? e + 1 : n + strlen(n);
			}
			if (!key && !site_walk(query, t))
				snprintf(bad, size, "%s", t);
		}
		line = next;
	}
}

static void check_plans(store *s, const char *when)
{
	struct plans p = {0};
	char err[STORE_ERR_SIZE] = "";
	if (s->ops->explain(s, ASKER, add_line, &p, err))
		fail_msg("explain: %s", err);
	int show = getenv("CARC_PLANS_SHOW") != NULL, failed = 0;
	assert_true(p.n >= 15); /* every list named in store_plans.c and the stores */
	for (int k = 0; k < p.n; k++) {
		char bad[512];
		find_scan(p.name[k], p.text[k].s, bad, sizeof bad);
		if (bad[0] || show)
			printf("%s %s (%s):\n%s", bad[0] ? "FAILED" : "plan", p.name[k], when, p.text[k].s);
		if (bad[0]) {
			printf("  ^ reads what grows with the site: %s\n", bad);
			failed++;
		}
	}
	free_plans(&p);
	if (failed)
		fail_msg("%d list queries read what grows with the site (%s)", failed, when);
}

static void site(void **state)
{
	fill(*state);
}

static void plans_as_found(void **state)
{
	if (pg_url)
		skip(); /* PostgreSQL analyses on its own (autovacuum): after ANALYZE only */
	check_plans(*state, "no statistics");
}

static void plans_after_analyze(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	sql_run(s, "ANALYZE", NULL, &bad, err);
	assert_int_equal(bad, 0);
	check_plans(s, "after ANALYZE");
}

/* A site where two accounts hold nearly every seat (the asker keeps its
 * own): a planner that guesses an account's seats as the table's rows
 * over its few distinct accounts would guess thousands for a friend, and
 * PostgreSQL then read every game for a friend's presence (bench/
 * measure_reads.py's site: 6.7 s a request). */
static void plans_of_a_site_of_few_accounts(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	sql_run(s, "UPDATE seats SET account = 1002 + seat WHERE account NOT IN (0, 1001)", NULL,
	        &bad, err);
	sql_run(s, "ANALYZE", NULL, &bad, err);
	if (bad)
		fail_msg("%s", err);
	check_plans(s, "two accounts hold the site's seats");
}

/* Seats and clocks whose copy of the game's status differs from the game's. */
static int64_t stale_copies(store *s)
{
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	int64_t n = sql_one(s, "SELECT (SELECT count(*) FROM seats x JOIN games g ON g.id = x.game_id"
	                       " WHERE x.game_status <> g.status) + (SELECT count(*) FROM clocks x"
	                       " JOIN games g ON g.id = x.game_id WHERE x.game_status <> g.status)",
	                    NULL, -1, &bad, err);
	if (bad)
		fail_msg("%s", err);
	return n;
}

static int64_t clock_with(store *s, const char *id, const char *status)
{
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	return sql_one(s, "SELECT count(*) FROM clocks WHERE game_id = $1 AND game_status = $2",
	               SQL_ARGS(SQL_S(id), SQL_S(status)), -1, &bad, err);
}

static int64_t seats_with(store *s, const char *id, const char *status)
{
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	return sql_one(s, "SELECT count(*) FROM seats WHERE game_id = $1 AND game_status = $2",
	               SQL_ARGS(SQL_S(id), SQL_S(status)), -1, &bad, err);
}

/* The lists read a game's status from its seats and its clock: the copy
 * follows every write of the store (a table made, a seat taken, started,
 * a clock stored, ended), and the rows written in bulk above got theirs
 * too. */
static void status_copy(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	assert_int_equal(stale_copies(s), 0);
	store_game g;
	memset(&g, 0, sizeof g);
	snprintf(g.id, sizeof g.id, "statuscopy01");
	g.status = STORE_OPEN;
	g.players = 2;
	g.farmers = 1;
	snprintf(g.farm_scoring, sizeof g.farm_scoring, "x");
	g.created_ms = g.updated_ms = srv_now_ms();
	g.nseats = 2;
	g.seats[0] = (store_seat){.seat = 0, .kind = STORE_SEAT_HUMAN, .name = "a", .account = ASKER};
	g.seats[1] = (store_seat){.seat = 1, .kind = STORE_SEAT_OPEN};
	if (s->ops->create_game(s, &g, err))
		fail_msg("create_game: %s", err);
	assert_int_equal(seats_with(s, g.id, "open"), 2);
	store_seat taken = {.seat = 1, .kind = STORE_SEAT_HUMAN, .name = "b", .account = ASKER + 1};
	if (s->ops->update_seat(s, g.id, &taken, err))
		fail_msg("update_seat: %s", err);
	assert_int_equal(seats_with(s, g.id, "open"), 2);
	if (s->ops->set_status(s, g.id, STORE_PLAYING, srv_now_ms(), err))
		fail_msg("set_status: %s", err);
	assert_int_equal(seats_with(s, g.id, "playing"), 2);
	store_clock c = {.step = 0, .deadline_ms = 0, .state = "{}"};
	if (s->ops->save_clock(s, g.id, &c, NULL, err))
		fail_msg("save_clock: %s", err);
	assert_int_equal(clock_with(s, g.id, "playing"), 1);
	store_move m = {.step = 0, .turn = 0, .kind = CARC_STEP_TILE, .player = 0, .move = 1, .tile = 0, .entry = "{}",
	                .at_ms = srv_now_ms()};
	store_result r = {.scores = "[1,2]", .by_kind = "[]", .winners = "[1]", .at_ms = m.at_ms};
	if (s->ops->add_move(s, g.id, &m, &r, err))
		fail_msg("add_move: %s", err);
	assert_int_equal(seats_with(s, g.id, "over"), 2);
	assert_int_equal(clock_with(s, g.id, "over"), 1);
	assert_int_equal(stale_copies(s), 0);
	if (s->ops->delete_game(s, g.id, err))
		fail_msg("delete_game: %s", err);
	assert_int_equal(seats_with(s, g.id, "over"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(site),
		cmocka_unit_test(plans_as_found),
		cmocka_unit_test(plans_after_analyze),
		cmocka_unit_test(status_copy),
		cmocka_unit_test(plans_of_a_site_of_few_accounts),
	};
	return cmocka_run_group_tests(tests, open_store, close_store);
}
