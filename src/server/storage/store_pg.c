/*
 * store_pg.c - the PostgreSQL backend of store.h (libpq), for several
 * `carc serve` processes on one database (cluster.c is the rest of that).
 *
 * The same schema as store_sqlite.c, translated: JSON columns are text
 * (what the layer above gave, byte for byte; queries cast to jsonb), the
 * seed and the times bigint, ids text COLLATE "C" (the lobby's cursor
 * compares ids bytewise, as SQLite does). The schema version is the one
 * row of carc_schema; it counts like SQLite's user_version, so a
 * migration has the same number in both backends.
 *
 * Adding an operation: a Q_ name and its SQL in SQL[] (prepared on every
 * connection as "q<N>"), a pg_<op> function that runs it through q() (in
 * begin()/commit() when it writes), and the function in PG_OPS.
 * Adding a migration: an entry {version, sql, hook} at the end of MIGRATIONS
 * (hook: NULL, or C run after the SQL in the same transaction)
 * (version = SQLite's user_version after its migration of the same
 * number); migrate() applies every entry above the stored version, all in
 * one transaction, under an advisory lock, so processes starting together
 * migrate once.
 *
 * Writes: each is one transaction (in a group, the writer's group
 * commit, one savepoint of the group's transaction: see group_begin); a
 * move's transaction locks the game's
 * row (SELECT ... FOR UPDATE) and checks that the move's turn is the next
 * one, so two processes never both store a move for one turn: the second
 * gets STORE_CONFLICT and nothing is written. Every write sends a NOTIFY
 * on channel "carc" inside its transaction: PostgreSQL delivers it at the
 * commit and only then, so no process hears of a change that is not
 * committed (payloads in store.h, STORE_NOTIFY_*). A chat line is
 * announced too (STORE_NOTIFY_CHAT) but no process acts on it yet: chat
 * is broadcast live only within the process that took the line. A clock
 * save announces only a result (a resignation: the status). Ratings are
 * written in the transaction of the game's result (rate_game), so a game
 * is rated exactly once.
 *
 * Faults: a lost connection is STORE_FAULT_DOWN; the next call (or the
 * writer's probe) reconnects (PQreset) and prepares the statements again.
 * A COMMIT whose answer is lost may have been committed: the caller is told
 * it failed, and the move is found in the store when the game is next
 * loaded (a retry of it is then a conflict). SQLSTATEs map to the faults:
 * 25006 (a read-only standby) READ_ONLY, 53100 FULL, 58xxx/XX001 IO,
 * 40001/40P01/55P03 BUSY, 08xxx/57Pxx DOWN. check() is safe from any
 * thread: it reads the flag that the calls keep, it does not query.
 * Test builds honour CARC_TEST_STORE_FAULT as store_sqlite.c does.
 */
#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"

/* migrations, by the version they lead to */
typedef struct pg_store pg_store;
static int seat_key_hook(pg_store *s, char *err);

/* A migration's SQL, then its hook (NULL: none), in one transaction. */
static const struct {
	int version;
	const char *sql;
	int (*hook)(pg_store *s, char *err);
} MIGRATIONS[] = {
	/* the schema of SQLite version 3 (seats with colours and token hashes) */
	{3, "CREATE TABLE games ("
	    "  id text COLLATE \"C\" PRIMARY KEY,"
	    "  status text NOT NULL CHECK (status IN ('open','playing','over','view')),"
	    "  players integer NOT NULL,"
	    "  farmers integer NOT NULL,"
	    "  farm_scoring text NOT NULL,"
	    "  small_city integer NOT NULL,"
	    "  expansions text NOT NULL DEFAULT '[]',"
	    "  seed bigint NOT NULL,"
	    "  options text NOT NULL DEFAULT '{}',"
	    "  record text,"
	    "  created_ms bigint NOT NULL,"
	    "  updated_ms bigint NOT NULL);"
	    "CREATE INDEX games_by_status ON games(status, created_ms);"
	    "CREATE TABLE seats ("
	    "  game_id text COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	    "  seat integer NOT NULL,"
	    "  kind text NOT NULL CHECK (kind IN ('open','human','bot')),"
	    "  name text NOT NULL DEFAULT '',"
	    "  level text NOT NULL DEFAULT '',"
	    "  bot_spec text NOT NULL DEFAULT '',"
	    "  token text NOT NULL DEFAULT '',"
	    "  colour text NOT NULL DEFAULT '',"
	    "  PRIMARY KEY (game_id, seat));"
	    "CREATE TABLE moves ("
	    "  game_id text COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	    "  turn integer NOT NULL,"
	    "  player integer NOT NULL,"
	    "  move bigint NOT NULL,"
	    "  tile text NOT NULL,"
	    "  entry text NOT NULL,"
	    "  at_ms bigint NOT NULL,"
	    "  PRIMARY KEY (game_id, turn));"
	    "CREATE TABLE results ("
	    "  game_id text COLLATE \"C\" PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	    "  scores text NOT NULL,"
	    "  by_kind text NOT NULL,"
	    "  winners text NOT NULL,"
	    "  finished_ms bigint NOT NULL);"
	    "CREATE INDEX results_by_finish ON results(finished_ms, game_id);", NULL},
	/* SQLite 3 -> 4: the clocks (clock.c) */
	{4, "CREATE TABLE clocks ("
	    "  game_id text COLLATE \"C\" PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	    "  turn integer NOT NULL,"
	    "  deadline_ms bigint NOT NULL,"
	    "  state text NOT NULL DEFAULT '{}');", NULL},
	/* SQLite 4 -> 5: accounts, sessions, ratings, the seats' account, and
	 * the server's 32-byte key for the seat tokens of accounts (made by
	 * seat_key_hook in this transaction) */
	{5, "CREATE TABLE accounts ("
	    "  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	    "  name text COLLATE \"C\" NOT NULL,"
	    "  name_key text COLLATE \"C\" NOT NULL UNIQUE,"
	    "  pwhash text NOT NULL,"
	    "  created_ms bigint NOT NULL,"
	    "  rating double precision NOT NULL DEFAULT 1500,"
	    "  rd double precision NOT NULL DEFAULT 350,"
	    "  vol double precision NOT NULL DEFAULT 0.06,"
	    "  games integer NOT NULL DEFAULT 0);"
	    "CREATE INDEX accounts_by_rating ON accounts(rating DESC, name) WHERE games > 0;"
	    "CREATE TABLE sessions ("
	    "  hash text COLLATE \"C\" PRIMARY KEY,"
	    "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	    "  created_ms bigint NOT NULL,"
	    "  expires_ms bigint NOT NULL);"
	    "CREATE INDEX sessions_by_expiry ON sessions(expires_ms);"
	    "ALTER TABLE seats ADD COLUMN account bigint NOT NULL DEFAULT 0;"
	    "CREATE INDEX seats_by_account ON seats(account) WHERE account <> 0;"
	    "CREATE TABLE ratings ("
	    "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	    "  game_id text COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	    "  seat integer NOT NULL,"
	    "  rating_before double precision NOT NULL,"
	    "  rating_after double precision NOT NULL,"
	    "  rd_after double precision NOT NULL,"
	    "  vol_after double precision NOT NULL,"
	    "  at_ms bigint NOT NULL,"
	    "  PRIMARY KEY (account, game_id));"
	    "CREATE TABLE server_keys (name text COLLATE \"C\" PRIMARY KEY, value bytea NOT NULL);",
	 seat_key_hook},
	/* SQLite 5 -> 6: chat lines, and the rematch a finished game made */
	{6, "CREATE TABLE chat ("
	    "  game_id text COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	    "  n integer NOT NULL,"
	    "  seat integer NOT NULL,"
	    "  name text NOT NULL DEFAULT '',"
	    "  text text NOT NULL DEFAULT '',"
	    "  phrase text NOT NULL DEFAULT '',"
	    "  at_ms bigint NOT NULL,"
	    "  PRIMARY KEY (game_id, n));"
	    "ALTER TABLE games ADD COLUMN rematch text COLLATE \"C\";", NULL},
	/* SQLite 6 -> 7: a finished game's analysis (analysis.c) */
	{7, "CREATE TABLE analyses ("
	    "  game_id text COLLATE \"C\" PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	    "  analysis text NOT NULL,"
	    "  at_ms bigint NOT NULL);", NULL},
	/* the table's stream: the number of its latest change (store.h) */
	{8, "ALTER TABLE games ADD COLUMN seq bigint NOT NULL DEFAULT 0;", NULL},
	/* SQLite 8 -> 9: unfinished tables are loaded when needed (tables.c):
	 * the lobby's pages, the owners' poll */
	{9, "CREATE INDEX games_unfinished ON games(created_ms, id)"
	    " WHERE status IN ('open','playing');"
	    "CREATE INDEX games_listed ON games(status, created_ms, id);"
	    "CREATE INDEX games_playing ON games(id) WHERE status = 'playing';", NULL},
};
#define NMIGRATIONS ((int)(sizeof MIGRATIONS / sizeof MIGRATIONS[0]))
#define SCHEMA_VERSION (MIGRATIONS[NMIGRATIONS - 1].version)

/* pg_advisory_xact_lock key of the migration ("carc" in ASCII) */
#define MIGRATE_LOCK "1667330659"

static const char *const STATUS_NAMES[STORE_STATUS_COUNT] = {"open", "playing", "over", "view"};
static const char *const SEAT_KINDS[] = {"open", "human", "bot"};

enum {
	Q_INS_GAME, Q_INS_SEAT, Q_UPD_SEAT, Q_SET_STATUS,
	Q_LOCK_GAME, Q_TURNS, Q_INS_MOVE, Q_TOUCH, Q_INS_RESULT,
	Q_SEL_ACTIVE, Q_SEL_ONE, Q_SEL_SEATS, Q_SEL_MOVES, Q_SEL_MOVES_FROM, Q_COUNTS,
	Q_SEL_FINISHED_AT, Q_LIST_FINISHED, Q_LIST_UNFINISHED, Q_LIST_UNOWNED, Q_DELETE, Q_UPLOAD_USAGE,
	Q_PROBE, Q_NOTIFY,
	Q_UPS_CLOCK, Q_SEL_CLOCK,
	Q_LOCK_ACCOUNTS, Q_SEL_RATING, Q_UPD_RATING, Q_INS_RATING,
	Q_INS_ACCOUNT, Q_SEL_ACC_NAME, Q_SEL_ACC_ID, Q_INS_SESSION, Q_DEL_EXPIRED,
	Q_SEL_SESSION, Q_DEL_SESSION, Q_SEL_KEY, Q_ACC_GAMES, Q_LEADERBOARD,
	Q_INS_CHAT, Q_LIST_CHAT, Q_COUNT_CHAT, Q_LINK_REMATCH, Q_SEL_REMATCH,
	Q_INS_ANALYSIS, Q_SEL_ANALYSIS, Q_BUMP,
	Q_COUNT
};

#define ACC_COLS "id, name, pwhash, created_ms, rating, rd, vol, games"
#define GAME_COLS "id, status, players, farmers, farm_scoring, small_city, expansions," \
                  " seed, options, record, created_ms, updated_ms"

static const char *const SQL[Q_COUNT] = {
	[Q_INS_GAME] = "INSERT INTO games (" GAME_COLS ")"
	               " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)",
	[Q_INS_SEAT] = "INSERT INTO seats (game_id, seat, kind, name, level, bot_spec, token,"
	               " colour, account) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
	/* a human takes a seat only while it is open or reserved (a rematch's,
	 * pass and play's: token "r:..."): another process may have given it
	 * away (0 rows: STORE_CONFLICT) */
	[Q_UPD_SEAT] = "UPDATE seats SET kind=$1, name=$2, level=$3, bot_spec=$4, token=$5,"
	               " colour=$6, account=$9 WHERE game_id=$7 AND seat=$8"
	               " AND (kind='open' OR $1<>'human' OR token LIKE '" SRV_RESERVED_PREFIX "%')",
	[Q_SET_STATUS] = "UPDATE games SET status=$1, updated_ms=$2 WHERE id=$3",
	/* the game's row locked for the move's transaction; then its turn, in
	 * a statement of its own: under READ COMMITTED each statement sees
	 * what was committed before it began, so the count made after the lock
	 * was granted sees the move of the transaction that held it (a
	 * subquery of the locking statement would count with the snapshot
	 * taken before the wait) */
	[Q_LOCK_GAME] = "SELECT status FROM games WHERE id=$1 FOR UPDATE",
	[Q_TURNS] = "SELECT count(*) FROM moves WHERE game_id=$1",
	[Q_INS_MOVE] = "INSERT INTO moves (game_id, turn, player, move, tile, entry, at_ms)"
	               " VALUES ($1,$2,$3,$4,$5,$6,$7)",
	[Q_TOUCH] = "UPDATE games SET status=$1, updated_ms=$2 WHERE id=$3",
	[Q_INS_RESULT] = "INSERT INTO results (game_id, scores, by_kind, winners, finished_ms)"
	                 " VALUES ($1,$2,$3,$4,$5)",
	[Q_SEL_ACTIVE] = "SELECT " GAME_COLS ", seq FROM games"
	                 " WHERE status IN ('open','playing') ORDER BY created_ms, id",
	[Q_SEL_ONE] = "SELECT " GAME_COLS ", seq FROM games WHERE id=$1",
	[Q_SEL_SEATS] = "SELECT seat, kind, name, level, bot_spec, token, colour, account FROM seats"
	                " WHERE game_id=$1 ORDER BY seat",
	[Q_SEL_MOVES] = "SELECT turn, player, move, tile, entry, at_ms FROM moves"
	                " WHERE game_id=$1 ORDER BY turn",
	[Q_SEL_MOVES_FROM] = "SELECT turn, player, move, tile, entry, at_ms FROM moves"
	                     " WHERE game_id=$1 AND turn >= $2 ORDER BY turn",
	[Q_COUNTS] = "SELECT status, count(*) FROM games GROUP BY status",
	[Q_SEL_FINISHED_AT] = "SELECT r.finished_ms FROM results r JOIN games g ON g.id = r.game_id"
	                      " WHERE r.game_id=$1 AND g.status='over'",
	[Q_LIST_FINISHED] =
	    "SELECT g.id, g.status, g.players, g.farmers, g.farm_scoring, g.small_city,"
	    " g.expansions, g.seed, g.options, g.record, g.created_ms, g.updated_ms,"
	    " r.scores, r.by_kind, r.winners, r.finished_ms,"
	    " (SELECT count(*) FROM moves m WHERE m.game_id = g.id),"
	    /* SQLite's json_extract(state,'$.ended'): NULL for a JSON null */
	    " (SELECT nullif(c.state::jsonb->'ended', 'null'::jsonb)::text FROM clocks c"
	    "  WHERE c.game_id = g.id)"
	    " FROM results r JOIN games g ON g.id = r.game_id"
	    " WHERE g.status='over' AND (g.options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND r.finished_ms <= $1 AND (r.finished_ms < $1 OR r.game_id < $2)"
	    " ORDER BY r.finished_ms DESC, r.game_id DESC LIMIT $3",
	/* $1 which (0 open, 1 playing, 2 both), $2 $3 the cursor, $4 the
	 * oldest open game still open, $5 the limit */
	[Q_LIST_UNFINISHED] =
	    "SELECT id, created_ms FROM games"
	    " WHERE status IN ('open','playing')"
	    "  AND ($1::integer = 2 OR status = CASE $1::integer WHEN 0 THEN 'open' ELSE 'playing' END)"
	    "  AND (status <> 'open' OR created_ms >= $4)"
	    "  AND (options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND created_ms <= $2 AND (created_ms < $2 OR id < $3)"
	    " ORDER BY created_ms DESC, id DESC LIMIT $5",
	[Q_LIST_UNOWNED] =
	    "SELECT g.id FROM games g WHERE g.status = 'playing' AND g.id > $1"
	    " AND (EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.kind = 'bot')"
	    "  OR EXISTS (SELECT 1 FROM clocks c WHERE c.game_id = g.id))"
	    " ORDER BY g.id LIMIT $2",
	[Q_DELETE] = "DELETE FROM games WHERE id=$1",
	[Q_UPLOAD_USAGE] = "SELECT count(*), coalesce(sum(coalesce("
	                   "(options::jsonb->>'record_bytes')::bigint, octet_length(record))),0)"
	                   " FROM games WHERE status='view'",
	[Q_PROBE] = "UPDATE carc_schema SET version=version",
	[Q_NOTIFY] = "SELECT pg_notify('" STORE_NOTIFY_CHANNEL "', $1)",
	[Q_UPS_CLOCK] = "INSERT INTO clocks (game_id, turn, deadline_ms, state) VALUES ($1,$2,$3,$4)"
	                " ON CONFLICT (game_id) DO UPDATE SET turn=excluded.turn,"
	                " deadline_ms=excluded.deadline_ms, state=excluded.state",
	[Q_SEL_CLOCK] = "SELECT turn, deadline_ms, state FROM clocks WHERE game_id=$1",
	/* the rated accounts' rows locked, in id order (two processes rating
	 * two games with the same players do it one after the other, and
	 * never wait for each other in a circle) */
	[Q_LOCK_ACCOUNTS] = "SELECT id FROM accounts WHERE id = ANY($1::bigint[]) ORDER BY id"
	                    " FOR UPDATE",
	[Q_SEL_RATING] = "SELECT rating, rd, vol FROM accounts WHERE id=$1",
	[Q_UPD_RATING] = "UPDATE accounts SET rating=$1, rd=$2, vol=$3, games=games+1 WHERE id=$4",
	[Q_INS_RATING] = "INSERT INTO ratings (account, game_id, seat, rating_before, rating_after,"
	                 " rd_after, vol_after, at_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
	[Q_INS_ACCOUNT] = "INSERT INTO accounts (name, name_key, pwhash, created_ms)"
	                  " VALUES ($1,$2,$3,$4) RETURNING id",
	[Q_SEL_ACC_NAME] = "SELECT " ACC_COLS " FROM accounts WHERE name_key=$1",
	[Q_SEL_ACC_ID] = "SELECT " ACC_COLS " FROM accounts WHERE id=$1",
	[Q_INS_SESSION] = "INSERT INTO sessions (hash, account, created_ms, expires_ms)"
	                  " VALUES ($1,$2,$3,$4)",
	[Q_DEL_EXPIRED] = "DELETE FROM sessions WHERE expires_ms <= $1",
	[Q_SEL_SESSION] = "SELECT a.id, a.name, a.pwhash, a.created_ms, a.rating, a.rd, a.vol, a.games"
	                  " FROM sessions s JOIN accounts a ON a.id = s.account"
	                  " WHERE s.hash=$1 AND s.expires_ms > $2",
	[Q_DEL_SESSION] = "DELETE FROM sessions WHERE hash=$1",
	[Q_SEL_KEY] = "SELECT encode(value, 'hex') FROM server_keys WHERE name=$1",
	/* the game's columns (GAME_COLS), then the seat, the result's (NULL
	 * while unfinished) and the rating change's */
	[Q_ACC_GAMES] =
	    "SELECT g.id, g.status, g.players, g.farmers, g.farm_scoring, g.small_city,"
	    " g.expansions, g.seed, g.options, g.record, g.created_ms, g.updated_ms,"
	    " s.seat, r.scores, r.by_kind, r.winners, r.finished_ms,"
	    " t.rating_before, t.rating_after, t.rd_after, t.at_ms"
	    " FROM seats s JOIN games g ON g.id = s.game_id"
	    " LEFT JOIN results r ON r.game_id = g.id"
	    " LEFT JOIN ratings t ON t.account = s.account AND t.game_id = g.id"
	    " WHERE s.account = $1 AND ($2::integer = 0 OR g.status = 'over')"
	    " ORDER BY g.updated_ms DESC, g.id DESC LIMIT $3",
	[Q_LEADERBOARD] = "SELECT id, name, '', created_ms, rating, rd, vol, games FROM accounts"
	                  " WHERE games > 0 ORDER BY rating DESC, name LIMIT $1 OFFSET $2",
	/* the next number of the game's lines: the caller holds the game
	 * row's lock (bump), so two processes cannot both take it */
	[Q_INS_CHAT] = "INSERT INTO chat (game_id, n, seat, name, text, phrase, at_ms)"
	               " SELECT $1, coalesce(max(n) + 1, 0), $2,$3,$4,$5,$6 FROM chat"
	               " WHERE game_id=$1 RETURNING n",
	[Q_LIST_CHAT] = "SELECT n, seat, name, text, phrase, at_ms FROM chat WHERE game_id=$1"
	                " AND n >= $2 ORDER BY n LIMIT $3",
	[Q_COUNT_CHAT] = "SELECT coalesce(max(n) + 1, 0) FROM chat WHERE game_id=$1",
	/* the old game remembers its rematch, unless it has one already that
	 * is still stored (an open rematch that expired is gone) */
	[Q_LINK_REMATCH] = "UPDATE games SET rematch=$1 WHERE id=$2 AND (rematch IS NULL OR"
	                   " rematch NOT IN (SELECT id FROM games WHERE id <> $1))",
	[Q_SEL_REMATCH] = "SELECT g.rematch FROM games g JOIN games r ON r.id = g.rematch"
	                  " WHERE g.id=$1",
	/* the first one stays: an analysis is never recomputed */
	[Q_INS_ANALYSIS] = "INSERT INTO analyses (game_id, analysis, at_ms) VALUES ($1,$2,$3)"
	                   " ON CONFLICT (game_id) DO NOTHING",
	[Q_SEL_ANALYSIS] = "SELECT analysis FROM analyses WHERE game_id=$1",
	/* the table's next sequence number; takes the game row's lock */
	[Q_BUMP] = "UPDATE games SET seq = seq + 1 WHERE id=$1 RETURNING seq",
};

struct pg_store {
	store base;
	PGconn *conn;
	int prepared;          /* the statements are prepared on this connection */
	store_fault fault;     /* of the last call */
	atomic_int down;       /* the connection was lost (for check(), any thread) */
	char *fault_file;      /* CARC_TEST_STORE_FAULT (test builds) */
	/* the sequence numbers the open (or last) write gave, by table: a
	 * write changes one table, a rematch two */
	struct {
		char id[STORE_ID_SIZE];
		int64_t seq;
	} seqs[2];
	int nseqs;
	/* group commit: inside group_begin .. group_commit; the group's
	 * transaction was lost (the connection, a savepoint that could not be
	 * rolled back to), with the fault and message of that moment */
	int group, group_lost;
	store_fault group_fault;
	char group_err[STORE_ERR_SIZE];
};

static int ensure(pg_store *s, char *err);

/* Parameters as text: numbers are printed into num[]. */
typedef struct params {
	int n;
	const char *v[16];
	char num[16][24];
} params;

static void p_str(params *p, const char *s) { p->v[p->n++] = s ? s : ""; }
static void p_null(params *p) { p->v[p->n++] = NULL; }
static void p_f64(params *p, double x)
{
	snprintf(p->num[p->n], sizeof p->num[p->n], "%.17g", x);
	p->v[p->n] = p->num[p->n];
	p->n++;
}
static void p_i64(params *p, int64_t x)
{
	snprintf(p->num[p->n], sizeof p->num[p->n], "%lld", (long long)x);
	p->v[p->n] = p->num[p->n];
	p->n++;
}

/* The fault behind a failed result (res may be NULL: no answer at all). */
static store_fault fault_of(pg_store *s, const PGresult *res)
{
	if (PQstatus(s->conn) != CONNECTION_OK)
		return STORE_FAULT_DOWN;
	const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (!st)
		return STORE_FAULT_OTHER;
	if (!strcmp(st, "25006"))
		return STORE_FAULT_READ_ONLY;
	if (!strcmp(st, "53100"))
		return STORE_FAULT_FULL;
	if (!strncmp(st, "58", 2) || !strcmp(st, "XX001"))
		return STORE_FAULT_IO;
	if (!strcmp(st, "40001") || !strcmp(st, "40P01") || !strcmp(st, "55P03"))
		return STORE_FAULT_BUSY;
	if (!strncmp(st, "08", 2) || !strncmp(st, "57P", 3))
		return STORE_FAULT_DOWN;
	return STORE_FAULT_OTHER;
}

static void one_line(char *err)
{
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	size_t n = strlen(err);
	while (n && err[n - 1] == ' ')
		err[--n] = 0;
}

/* Records a failure: the message for the log, the fault for the client. */
static int fail(pg_store *s, const PGresult *res, char *err, const char *what)
{
	snprintf(err, STORE_ERR_SIZE, "postgresql: %s: %s", what,
	         res && *PQresultErrorMessage(res) ? PQresultErrorMessage(res)
	                                           : PQerrorMessage(s->conn));
	one_line(err);
	s->fault = fault_of(s, res);
	atomic_store(&s->down, s->fault == STORE_FAULT_DOWN);
	return -1;
}

static int prepare_all(pg_store *s, char *err)
{
	for (int i = 0; i < Q_COUNT; i++) {
		char name[16];
		snprintf(name, sizeof name, "q%d", i);
		PGresult *r = PQprepare(s->conn, name, SQL[i], 0, NULL);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			fail(s, r, err, SQL[i]);
			PQclear(r);
			return -1;
		}
		PQclear(r);
	}
	s->prepared = 1;
	return 0;
}

/* A usable connection: reconnects a lost one. 0, or -1 (fault DOWN). */
static int ensure(pg_store *s, char *err)
{
	if (PQstatus(s->conn) == CONNECTION_OK && s->prepared)
		return 0;
	if (PQstatus(s->conn) != CONNECTION_OK) {
		s->prepared = 0;
		PQreset(s->conn);
		if (PQstatus(s->conn) != CONNECTION_OK) {
			snprintf(err, STORE_ERR_SIZE, "postgresql: cannot connect: %s",
			         PQerrorMessage(s->conn));
			one_line(err);
			s->fault = STORE_FAULT_DOWN;
			atomic_store(&s->down, 1);
			return -1;
		}
	}
	if (prepare_all(s, err))
		return -1;
	atomic_store(&s->down, 0);
	return 0;
}

/* Runs prepared statement k. Returns the result (the caller PQclears it),
 * or NULL after fail(). */
/* A connection found lost outside a transaction (the server restarted, an
 * idle session was terminated: libpq learns of it only when it next
 * talks) is made again and the statement sent once more: nothing of it
 * ran. Inside a transaction nothing is retried (the transaction is gone). */
static int retry_after_loss(pg_store *s, int was_idle, char *err)
{
	if (!was_idle || PQstatus(s->conn) == CONNECTION_OK)
		return 0;
	return ensure(s, err) == 0;
}

static PGresult *q(pg_store *s, int k, const params *p, char *err)
{
	char name[16];
	snprintf(name, sizeof name, "q%d", k);
	int idle = PQtransactionStatus(s->conn) == PQTRANS_IDLE;
	PGresult *r = PQexecPrepared(s->conn, name, p ? p->n : 0, p ? p->v : NULL, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && retry_after_loss(s, idle, err)) {
		PQclear(r);
		r = PQexecPrepared(s->conn, name, p ? p->n : 0, p ? p->v : NULL, NULL, NULL, 0);
		st = PQresultStatus(r);
	}
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		fail(s, r, err, SQL[k]);
		PQclear(r);
		return NULL;
	}
	return r;
}

/* A read outside a transaction: clears the last fault, connects again if
 * the connection was lost, then runs k (q's result). */
static PGresult *q_read(pg_store *s, int k, const params *p, char *err)
{
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return NULL;
	return q(s, k, p, err);
}

/* Runs k and throws the result away. 0, or -1. */
static int q_do(pg_store *s, int k, const params *p, char *err)
{
	PGresult *r = q(s, k, p, err);
	PQclear(r);
	return r ? 0 : -1;
}

static int exec_plain(pg_store *s, const char *sql, char *err)
{
	int idle = PQtransactionStatus(s->conn) == PQTRANS_IDLE;
	PGresult *r = PQexec(s->conn, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	if (!ok && s->prepared && retry_after_loss(s, idle, err)) {
		PQclear(r);
		r = PQexec(s->conn, sql);
		ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	}
	if (!ok)
		fail(s, r, err, sql);
	PQclear(r);
	return ok ? 0 : -1;
}

/* Test builds: the fault the file named by CARC_TEST_STORE_FAULT asks for. */
static store_fault injected(const pg_store *s, char *err)
{
	return store_test_fault(s->fault_file, 1, err);
}

/* Marks the group's transaction lost (see store_pg's group ops). */
static void lose_group(pg_store *s, const char *why)
{
	if (s->group_lost)
		return;
	s->group_lost = 1;
	s->group_fault = PQstatus(s->conn) != CONNECTION_OK ? STORE_FAULT_DOWN
	                 : s->fault != STORE_FAULT_NONE     ? s->fault
	                                                    : STORE_FAULT_OTHER;
	snprintf(s->group_err, sizeof s->group_err, "postgresql: the group's transaction was lost: %s",
	         why);
	one_line(s->group_err);
}

/* In a group whose transaction is gone: -1 with its fault (never a write
 * outside it: nothing reconnects inside a group). */
static int group_gone(pg_store *s, char *err)
{
	if (!s->group_lost && PQstatus(s->conn) == CONNECTION_OK &&
	    PQtransactionStatus(s->conn) == PQTRANS_INTRANS)
		return 0;
	lose_group(s, PQstatus(s->conn) != CONNECTION_OK ? "the connection was lost"
	                                                 : "it was aborted");
	snprintf(err, STORE_ERR_SIZE, "%s", s->group_err);
	s->fault = s->group_fault;
	atomic_store(&s->down, s->fault == STORE_FAULT_DOWN);
	return -1;
}

/* A write's BEGIN, or in a group its SAVEPOINT. */
static int begin(pg_store *s, char *err)
{
	s->fault = STORE_FAULT_NONE;
	s->nseqs = 0;
	if (s->group)
		return group_gone(s, err) ? -1 : exec_plain(s, "SAVEPOINT w", err);
	if (ensure(s, err))
		return -1;
	return exec_plain(s, "BEGIN", err);
}

/* A write's transaction (in a group: its savepoint, which also takes the
 * group out of the aborted state an error left it in) ends without
 * effect. */
static void rollback(pg_store *s)
{
	if (s->group) {
		if (s->group_lost || PQstatus(s->conn) != CONNECTION_OK ||
		    PQtransactionStatus(s->conn) == PQTRANS_IDLE) {
			lose_group(s, "the connection was lost");
			return;
		}
		PGresult *r = PQexec(s->conn, "ROLLBACK TO SAVEPOINT w; RELEASE SAVEPOINT w");
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			lose_group(s, PQerrorMessage(s->conn));
		PQclear(r);
		return;
	}
	if (PQstatus(s->conn) == CONNECTION_OK && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(PQexec(s->conn, "ROLLBACK"));
}

/* Commits the open transaction (a test build's injected fault rolls it
 * back instead). 0, or -1 with the fault set. In a group the write's
 * savepoint is left as it is, without a round trip to release it: the
 * next write's SAVEPOINT w hides it (ROLLBACK TO names the newest), and
 * the COMMIT ends them all; a group's at most WRITER_GROUP_MAX (64)
 * savepoints stay within PostgreSQL's cache of subtransactions (the fault
 * is injected at group_commit). */
static int commit(pg_store *s, char *err)
{
	if (s->group)
		return group_gone(s, err);
	store_fault f = injected(s, err);
	if (f != STORE_FAULT_NONE) {
		s->fault = f;
		rollback(s);
		return -1;
	}
	if (exec_plain(s, "COMMIT", err)) {
		rollback(s);
		return -1;
	}
	return 0;
}

/* Group commit (store.h): one BEGIN .. COMMIT around several writes, each
 * in a savepoint. The NOTIFYs of the writes are delivered at the COMMIT
 * and only then, those of a write rolled back to its savepoint never. A
 * COMMIT whose answer is lost may have been committed (see the top): every
 * write of the group is then reported failed. */
static int pg_group_begin(store *base, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	s->group = 1;
	s->group_lost = 0;
	return 0;
}

static int pg_group_commit(store *base, char *err)
{
	pg_store *s = (pg_store *)base;
	int lost = group_gone(s, err) != 0;
	s->group = s->group_lost = 0;
	if (lost) {
		rollback(s);
		return -1;
	}
	s->fault = STORE_FAULT_NONE;
	return commit(s, err);
}

static void pg_group_rollback(store *base)
{
	pg_store *s = (pg_store *)base;
	s->group = s->group_lost = 0;
	rollback(s);
}

static int64_t i64_val(const PGresult *r, int row, int col);

/* Inside a write: the table's next sequence number (store.h, "The
 * table's stream"), once per table and transaction; it takes the game
 * row's lock, which the transaction holds to its commit, so the numbers
 * follow the commits. 0 when the game is not stored (removed). 0 or -1. */
static int bump(pg_store *s, const char *id, int64_t *seq, char *err)
{
	for (int i = 0; i < s->nseqs; i++)
		if (!strcmp(s->seqs[i].id, id)) {
			*seq = s->seqs[i].seq;
			return 0;
		}
	params p = {0};
	p_str(&p, id);
	PGresult *r = q(s, Q_BUMP, &p, err);
	if (!r)
		return -1;
	*seq = PQntuples(r) == 1 ? i64_val(r, 0, 0) : 0;
	PQclear(r);
	if (s->nseqs < 2) {
		snprintf(s->seqs[s->nseqs].id, STORE_ID_SIZE, "%s", id);
		s->seqs[s->nseqs++].seq = *seq;
	}
	return 0;
}

static int64_t pg_last_seq(store *base, const char *id)
{
	pg_store *s = (pg_store *)base;
	for (int i = 0; i < s->nseqs; i++)
		if (!strcmp(s->seqs[i].id, id))
			return s->seqs[i].seq;
	return 0;
}

/* The notification of a change, sent at the commit (see the top), with
 * the table's sequence number (a removed table's is 0). */
static int notify(pg_store *s, char kind, const char *id, int n, char *err)
{
	char payload[80];
	int64_t seq = 0;
	if (kind != STORE_NOTIFY_DELETED && bump(s, id, &seq, err))
		return -1;
	params p = {0};
	snprintf(payload, sizeof payload, "%c %s %d %lld", kind, id, n < 0 ? -1 : n,
	         (long long)seq);
	p_str(&p, payload);
	return q_do(s, Q_NOTIFY, &p, err);
}

static int parse_status(const char *t)
{
	for (int i = 0; i < STORE_STATUS_COUNT; i++)
		if (t && !strcmp(t, STATUS_NAMES[i]))
			return i;
	return -1;
}

int store_pg_schema_version(void) { return SCHEMA_VERSION; }

PGconn *store_pg_connect(const char *url, const char *name)
{
	/* given before the URL, so that the URL's own values win: a database
	 * that does not answer costs at most 5 s (the event loop connects
	 * too), and one that went away silently is noticed in about 25 s */
	static const char *const keys[] = {"connect_timeout", "keepalives_idle",
	                                   "keepalives_interval", "keepalives_count",
	                                   "application_name", "dbname", NULL};
	const char *vals[] = {"5", "10", "5", "3", name, url, NULL};
	return PQconnectdbParams(keys, vals, 1);
}

int store_is_pg_url(const char *db)
{
	return db && (!strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11));
}

static void pg_close(store *base)
{
	pg_store *s = (pg_store *)base;
	if (!s)
		return;
	PQfinish(s->conn);
	free(s->fault_file);
	free(s);
}

/* ---- writes ------------------------------------------------------------------------------ */

/* Inserts game g with its seats inside the open transaction: 0 or -1. */
static int insert_game(pg_store *s, const store_game *g, char *err)
{
	params p = {0};
	p_str(&p, g->id);
	p_str(&p, store_status_name(g->status));
	p_i64(&p, g->players);
	p_i64(&p, g->farmers);
	p_str(&p, g->farm_scoring);
	p_i64(&p, g->small_city);
	p_str(&p, g->expansions ? g->expansions : "[]");
	p_i64(&p, (int64_t)g->seed);
	p_str(&p, g->options ? g->options : "{}");
	if (g->record)
		p_str(&p, g->record);
	else
		p_null(&p);
	p_i64(&p, g->created_ms);
	p_i64(&p, g->updated_ms);
	if (q_do(s, Q_INS_GAME, &p, err))
		return -1;
	for (int i = 0; i < g->nseats; i++) {
		const store_seat *se = &g->seats[i];
		params ps = {0};
		p_str(&ps, g->id);
		p_i64(&ps, se->seat);
		p_str(&ps, SEAT_KINDS[se->kind]);
		p_str(&ps, se->name);
		p_str(&ps, se->level);
		p_str(&ps, se->spec);
		p_str(&ps, se->token_hash);
		p_str(&ps, se->colour);
		p_i64(&ps, se->account);
		if (q_do(s, Q_INS_SEAT, &ps, err))
			return -1;
	}
	return notify(s, STORE_NOTIFY_CREATED, g->id, g->status, err);
}

static int pg_create_game(store *base, const store_game *g, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	if (insert_game(s, g, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

static int pg_update_seat(store *base, const char *id, const store_seat *se, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, SEAT_KINDS[se->kind]);
	p_str(&p, se->name);
	p_str(&p, se->level);
	p_str(&p, se->spec);
	p_str(&p, se->token_hash);
	p_str(&p, se->colour);
	p_str(&p, id);
	p_i64(&p, se->seat);
	p_i64(&p, se->account);
	PGresult *r = q(s, Q_UPD_SEAT, &p, err);
	if (!r)
		goto bad;
	int changed = atoi(PQcmdTuples(r));
	PQclear(r);
	if (!changed) {
		snprintf(err, STORE_ERR_SIZE, "seat %d of table %s was taken by another process",
		         se->seat, id);
		rollback(s);
		return STORE_CONFLICT;
	}
	if (notify(s, STORE_NOTIFY_SEAT, id, se->seat, err))
		goto bad;
	return commit(s, err);
bad:
	rollback(s);
	return -1;
}

static int pg_set_status(store *base, const char *id, int status, int64_t at_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, store_status_name(status));
	p_i64(&p, at_ms);
	p_str(&p, id);
	if (q_do(s, Q_SET_STATUS, &p, err) || notify(s, STORE_NOTIFY_STATUS, id, status, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

/* The rating update of a rated game, inside the transaction that stores
 * its result (add_move's, or save_clock's): the result's row (its primary
 * key) and the ratings' rows go in together or not at all, so a game is
 * rated exactly once, also across processes and restarts. The accounts'
 * rows are locked first (FOR UPDATE, in id order), then read. */
static int rate_game(pg_store *s, const char *id, const store_result *r, char *err)
{
	int64_t t0 = srv_mono_us();
	store_rating rt[STORE_MAX_RATED];
	int n = r->nrated < STORE_MAX_RATED ? r->nrated : STORE_MAX_RATED;
	memcpy(rt, r->rated, (size_t)n * sizeof rt[0]);
	char ids[STORE_MAX_RATED * 24 + 3] = "{";
	for (int i = 0; i < n; i++)
		if (rt[i].account) {
			size_t len = strlen(ids);
			snprintf(ids + len, sizeof ids - len, "%s%lld", len > 1 ? "," : "",
			         (long long)rt[i].account);
		}
	strcat(ids, "}");
	params pl = {0};
	p_str(&pl, ids);
	if (q_do(s, Q_LOCK_ACCOUNTS, &pl, err))
		return -1;
	for (int i = 0; i < n; i++) {
		if (!rt[i].account)
			continue;
		params p = {0};
		p_i64(&p, rt[i].account);
		PGresult *res = q(s, Q_SEL_RATING, &p, err);
		if (!res)
			return -1;
		int found = PQntuples(res) == 1;
		if (found) {
			rt[i].rating = strtod(PQgetvalue(res, 0, 0), NULL);
			rt[i].rd = strtod(PQgetvalue(res, 0, 1), NULL);
			rt[i].vol = strtod(PQgetvalue(res, 0, 2), NULL);
		}
		PQclear(res);
		if (!found) {
			snprintf(err, STORE_ERR_SIZE, "rating: account %lld is not stored",
			         (long long)rt[i].account);
			s->fault = STORE_FAULT_OTHER;
			return -1;
		}
	}
	r->rate(rt, n);
	for (int i = 0; i < n; i++) {
		if (!rt[i].account)
			continue;
		params pu = {0};
		p_f64(&pu, rt[i].new_rating);
		p_f64(&pu, rt[i].new_rd);
		p_f64(&pu, rt[i].new_vol);
		p_i64(&pu, rt[i].account);
		params pi = {0};
		p_i64(&pi, rt[i].account);
		p_str(&pi, id);
		p_i64(&pi, rt[i].seat);
		p_f64(&pi, rt[i].rating);
		p_f64(&pi, rt[i].new_rating);
		p_f64(&pi, rt[i].new_rd);
		p_f64(&pi, rt[i].new_vol);
		p_i64(&pi, r->at_ms);
		if (q_do(s, Q_UPD_RATING, &pu, err) || q_do(s, Q_INS_RATING, &pi, err))
			return -1;
	}
	srv_event("table=%s event=rated seats=%d us=%lld", id, n,
	          (long long)(srv_mono_us() - t0));
	return 0;
}

/* Inside the open transaction: the game is over at at_ms, its result,
 * and the ratings when it was rated. 0 or -1. */
static int store_result_rows(pg_store *s, const char *id, int64_t at_ms, const store_result *r,
                             char *err)
{
	params pt = {0};
	p_str(&pt, store_status_name(STORE_OVER));
	p_i64(&pt, at_ms);
	p_str(&pt, id);
	params pr = {0};
	p_str(&pr, id);
	p_str(&pr, r->scores);
	p_str(&pr, r->by_kind);
	p_str(&pr, r->winners);
	p_i64(&pr, r->at_ms);
	if (q_do(s, Q_TOUCH, &pt, err) || q_do(s, Q_INS_RESULT, &pr, err))
		return -1;
	return r->nrated > 0 ? rate_game(s, id, r, err) : 0;
}

static int pg_add_move(store *base, const char *id, const store_move *m, const store_result *r,
                       char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	PGresult *res = q(s, Q_LOCK_GAME, &p, err);
	if (!res)
		goto bad;
	if (PQntuples(res) != 1) {
		PQclear(res);
		snprintf(err, STORE_ERR_SIZE, "postgresql: no game %s to add a move to", id);
		s->fault = STORE_FAULT_OTHER;
		goto bad;
	}
	int status = parse_status(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!(res = q(s, Q_TURNS, &p, err)))
		goto bad;
	int turns = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (turns != m->turn || status == STORE_OVER || status == STORE_VIEW) {
		snprintf(err, STORE_ERR_SIZE,
		         "the move for turn %d of table %s came second: another process stored "
		         "turn %d first (the game is %s at turn %d)",
		         m->turn, id, m->turn, store_status_name(status), turns);
		rollback(s);
		return STORE_CONFLICT;
	}
	params pm = {0};
	p_str(&pm, id);
	p_i64(&pm, m->turn);
	p_i64(&pm, m->player);
	p_i64(&pm, (int64_t)m->move);
	p_str(&pm, carc_tile_name(m->tile));
	p_str(&pm, m->entry);
	p_i64(&pm, m->at_ms);
	if (q_do(s, Q_INS_MOVE, &pm, err))
		goto bad;
	if (r && store_result_rows(s, id, m->at_ms, r, err))
		goto bad;
	if (notify(s, STORE_NOTIFY_MOVE, id, m->turn, err))
		goto bad;
	return commit(s, err);
bad:
	rollback(s);
	return -1;
}

static int pg_delete_game(store *base, const char *id, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	if (q_do(s, Q_DELETE, &p, err) || notify(s, STORE_NOTIFY_DELETED, id, -1, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

/* ---- reads -------------------------------------------------------------------------------- */

static void copy_val(char *dst, size_t size, const PGresult *r, int row, int col)
{
	snprintf(dst, size, "%s", PQgetvalue(r, row, col));
}

static char *dup_val(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : srv_xstrdup(PQgetvalue(r, row, col));
}

static int64_t i64_val(const PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static void free_game(store_game *g)
{
	free(g->expansions);
	free(g->options);
	free(g->record);
}

/* Reads the game in row `row` of gr (the columns of GAME_COLS) and its
 * seats into *g; the caller frees it with free_game, also after an error. */
static int read_game(pg_store *s, const PGresult *gr, int row, store_game *g, char *err)
{
	memset(g, 0, sizeof *g);
	copy_val(g->id, sizeof g->id, gr, row, 0);
	g->status = parse_status(PQgetvalue(gr, row, 1));
	g->players = atoi(PQgetvalue(gr, row, 2));
	g->farmers = atoi(PQgetvalue(gr, row, 3));
	copy_val(g->farm_scoring, sizeof g->farm_scoring, gr, row, 4);
	g->small_city = atoi(PQgetvalue(gr, row, 5));
	g->expansions = dup_val(gr, row, 6);
	g->seed = (uint64_t)i64_val(gr, row, 7);
	g->options = dup_val(gr, row, 8);
	g->record = dup_val(gr, row, 9);
	g->created_ms = i64_val(gr, row, 10);
	g->updated_ms = i64_val(gr, row, 11);
	/* the stream's number: the loads' statements end with it */
	g->seq = PQnfields(gr) > 12 && !strcmp(PQfname(gr, 12), "seq") ? i64_val(gr, row, 12) : 0;
	params p = {0};
	p_str(&p, g->id);
	PGresult *r = q(s, Q_SEL_SEATS, &p, err);
	if (!r)
		return -1;
	for (int i = 0; i < PQntuples(r) && g->nseats < (int)(sizeof g->seats / sizeof g->seats[0]);
	     i++) {
		store_seat *se = &g->seats[g->nseats++];
		se->seat = atoi(PQgetvalue(r, i, 0));
		const char *k = PQgetvalue(r, i, 1);
		se->kind = !strcmp(k, "human") ? STORE_SEAT_HUMAN
		           : !strcmp(k, "bot") ? STORE_SEAT_BOT : STORE_SEAT_OPEN;
		copy_val(se->name, sizeof se->name, r, i, 2);
		copy_val(se->level, sizeof se->level, r, i, 3);
		copy_val(se->spec, sizeof se->spec, r, i, 4);
		copy_val(se->token_hash, sizeof se->token_hash, r, i, 5);
		copy_val(se->colour, sizeof se->colour, r, i, 6);
		se->account = i64_val(r, i, 7);
	}
	PQclear(r);
	return 0;
}

/* Loads the seats and moves of the game in row `row` of gr and calls fn.
 * Returns fn's result, or -1 on a database error. */
static int load_row(pg_store *s, const PGresult *gr, int row, int from, store_load_fn fn,
                    void *ctx, char *err)
{
	store_game g;
	int rc = -1, n = 0;
	store_move *mv = NULL;
	PGresult *r = NULL;
	if (read_game(s, gr, row, &g, err))
		goto out;
	params p = {0};
	p_str(&p, g.id);
	if (from > 0)
		p_i64(&p, from);
	if (!(r = q(s, from > 0 ? Q_SEL_MOVES_FROM : Q_SEL_MOVES, &p, err)))
		goto out;
	n = PQntuples(r);
	mv = srv_xcalloc((size_t)(n ? n : 1), sizeof *mv);
	for (int i = 0; i < n; i++) {
		store_move *m = &mv[i];
		m->turn = atoi(PQgetvalue(r, i, 0));
		m->player = atoi(PQgetvalue(r, i, 1));
		m->move = (uint32_t)i64_val(r, i, 2);
		m->tile = carc_tile_parse(PQgetvalue(r, i, 3));
		m->entry = PQgetvalue(r, i, 4); /* valid while r is */
		m->at_ms = i64_val(r, i, 5);
	}
	rc = fn(ctx, &g, mv, n);
out:
	PQclear(r);
	free(mv);
	free_game(&g);
	return rc;
}

/* A load reads the game row, its seats, moves (and what the callback
 * reads: its clock) in one snapshot, so the state handed up is the table
 * exactly as of its sequence number: no change is half in. 1 when the
 * snapshot was opened here (snap_end closes it), 0 when a transaction was
 * open already, -1 on error. */
static int snap_begin(pg_store *s, char *err)
{
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		return 0;
	return exec_plain(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err) ? -1 : 1;
}

static void snap_end(pg_store *s, int opened)
{
	if (opened == 1 && PQstatus(s->conn) == CONNECTION_OK &&
	    PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(PQexec(s->conn, "COMMIT"));
}

static int pg_load_active(store *base, store_load_fn fn, void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	int snap = snap_begin(s, err);
	if (snap < 0)
		return -1;
	PGresult *r = q(s, Q_SEL_ACTIVE, NULL, err);
	if (!r) {
		snap_end(s, snap);
		return -1;
	}
	int ret = 0;
	for (int i = 0; i < PQntuples(r) && !ret; i++)
		if (load_row(s, r, i, 0, fn, ctx, err))
			ret = -1;
	PQclear(r);
	snap_end(s, snap);
	return ret;
}

static int pg_load_since(store *base, const char *id, int from, store_load_fn fn, void *ctx,
                         char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	p_str(&p, id);
	int snap = snap_begin(s, err);
	if (snap < 0)
		return -1;
	PGresult *r = q(s, Q_SEL_ONE, &p, err);
	if (!r) {
		snap_end(s, snap);
		return -1;
	}
	int ret = PQntuples(r) == 1 ? (load_row(s, r, 0, from, fn, ctx, err) ? -1 : 1) : 0;
	PQclear(r);
	snap_end(s, snap);
	return ret;
}

static int pg_load_one(store *base, const char *id, store_load_fn fn, void *ctx, char *err)
{
	return pg_load_since(base, id, 0, fn, ctx, err);
}

static int pg_counts(store *base, int *counts, char *err)
{
	pg_store *s = (pg_store *)base;
	for (int i = 0; i < STORE_STATUS_COUNT; i++)
		counts[i] = 0;
	PGresult *r = q_read(s, Q_COUNTS, NULL, err);
	if (!r)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		int k = parse_status(PQgetvalue(r, i, 0));
		if (k >= 0)
			counts[k] = atoi(PQgetvalue(r, i, 1));
	}
	PQclear(r);
	return 0;
}

static int pg_list_finished(store *base, const char *before, int limit, store_summary_fn fn,
                            void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	int64_t from_ms = INT64_MAX;
	if (before) {
		params p = {0};
		p_str(&p, before);
		PGresult *r = q(s, Q_SEL_FINISHED_AT, &p, err);
		if (!r)
			return -1;
		int found = PQntuples(r) == 1;
		if (found)
			from_ms = i64_val(r, 0, 0);
		PQclear(r);
		if (!found)
			return STORE_NOT_FOUND;
	}
	params p = {0};
	p_i64(&p, from_ms);
	p_str(&p, before ? before : "");
	p_i64(&p, limit);
	PGresult *r = q(s, Q_LIST_FINISHED, &p, err);
	if (!r)
		return -1;
	int n = 0, ret = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_game g;
		if (read_game(s, r, i, &g, err)) {
			free_game(&g);
			ret = -1;
			break;
		}
		store_result res;
		memset(&res, 0, sizeof res);
		res.scores = PQgetvalue(r, i, 12);
		res.by_kind = PQgetvalue(r, i, 13);
		res.winners = PQgetvalue(r, i, 14);
		res.at_ms = i64_val(r, i, 15);
		res.ended = PQgetisnull(r, i, 17) ? NULL : PQgetvalue(r, i, 17);
		int stop = fn(ctx, &g, &res, atoi(PQgetvalue(r, i, 16)));
		free_game(&g);
		n++;
		if (stop)
			break;
	}
	PQclear(r);
	return ret ? ret : n;
}

/* The ids in column 0 of read k's rows into ids, and column 1 into
 * created when it is not NULL: how many, or -1. */
static int id_rows(pg_store *s, int k, const params *p, int limit, char (*ids)[STORE_ID_SIZE],
                   int64_t *created, char *err)
{
	PGresult *r = q_read(s, k, p, err);
	if (!r)
		return -1;
	int n = 0;
	for (int i = 0; i < PQntuples(r) && n < limit; i++) {
		if (created)
			created[n] = i64_val(r, i, 1);
		copy_val(ids[n++], STORE_ID_SIZE, r, i, 0);
	}
	PQclear(r);
	return n;
}

static int pg_list_unfinished(store *base, int which, int64_t before_ms, const char *before_id,
                              int64_t open_since_ms, int limit, char (*ids)[STORE_ID_SIZE],
                              int64_t *created, char *err)
{
	params p = {0};
	p_i64(&p, which);
	p_i64(&p, before_ms);
	p_str(&p, before_id);
	p_i64(&p, open_since_ms);
	p_i64(&p, limit);
	return id_rows((pg_store *)base, Q_LIST_UNFINISHED, &p, limit, ids, created, err);
}

static int pg_list_unowned(store *base, const char *after, int limit, char (*ids)[STORE_ID_SIZE],
                           char *err)
{
	params p = {0};
	p_str(&p, after);
	p_i64(&p, limit);
	return id_rows((pg_store *)base, Q_LIST_UNOWNED, &p, limit, ids, NULL, err);
}

static int pg_upload_usage(store *base, long *count, int64_t *bytes, char *err)
{
	pg_store *s = (pg_store *)base;
	PGresult *r = q_read(s, Q_UPLOAD_USAGE, NULL, err);
	if (!r)
		return -1;
	*count = atol(PQgetvalue(r, 0, 0));
	*bytes = i64_val(r, 0, 1);
	PQclear(r);
	return 0;
}

/* ---- clocks ------------------------------------------------------------------------------ */

static int pg_save_clock(store *base, const char *id, const store_clock *c, const store_result *r,
                         char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	p_i64(&p, c->turn);
	p_i64(&p, c->deadline_ms);
	p_str(&p, c->state ? c->state : "{}");
	if (q_do(s, Q_UPS_CLOCK, &p, err) || notify(s, STORE_NOTIFY_CLOCK, id, c->turn, err))
		goto bad;
	/* a game that ended early (a resignation): over for every process */
	if (r && (store_result_rows(s, id, r->at_ms, r, err) ||
	          notify(s, STORE_NOTIFY_STATUS, id, STORE_OVER, err)))
		goto bad;
	return commit(s, err);
bad:
	rollback(s);
	return -1;
}

static int pg_load_clock(store *base, const char *id, store_clock *out, char **state, char *err)
{
	pg_store *s = (pg_store *)base;
	*state = NULL;
	params p = {0};
	p_str(&p, id);
	PGresult *r = q_read(s, Q_SEL_CLOCK, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found) {
		out->turn = atoi(PQgetvalue(r, 0, 0));
		out->deadline_ms = i64_val(r, 0, 1);
		*state = srv_xstrdup(PQgetvalue(r, 0, 2));
		out->state = *state;
	}
	PQclear(r);
	return found;
}

/* ---- accounts ---------------------------------------------------------------------------- */

/* The columns of ACC_COLS in row `row`. */
static void read_account(const PGresult *r, int row, store_account *a)
{
	memset(a, 0, sizeof *a);
	a->id = i64_val(r, row, 0);
	copy_val(a->name, sizeof a->name, r, row, 1);
	copy_val(a->pwhash, sizeof a->pwhash, r, row, 2);
	a->created_ms = i64_val(r, row, 3);
	a->rating = strtod(PQgetvalue(r, row, 4), NULL);
	a->rd = strtod(PQgetvalue(r, row, 5), NULL);
	a->vol = strtod(PQgetvalue(r, row, 6), NULL);
	a->games = atoi(PQgetvalue(r, row, 7));
}

/* A statement that returns one account row or none: 1, 0, or -1. */
static int one_account(pg_store *s, int k, const params *p, store_account *a, char *err)
{
	PGresult *r = q_read(s, k, p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found)
		read_account(r, 0, a);
	PQclear(r);
	return found;
}

static int insert_session(pg_store *s, const char *hash, int64_t account, int64_t now_ms,
                          int64_t expires_ms, char *err)
{
	params pd = {0};
	p_i64(&pd, now_ms);
	params p = {0};
	p_str(&p, hash);
	p_i64(&p, account);
	p_i64(&p, now_ms);
	p_i64(&p, expires_ms);
	return q_do(s, Q_DEL_EXPIRED, &pd, err) || q_do(s, Q_INS_SESSION, &p, err) ? -1 : 0;
}

static int pg_account_create(store *base, const char *name, const char *name_key,
                             const char *pwhash, int64_t now_ms, const char *session_hash,
                             int64_t expires_ms, int64_t *id, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	/* not through q(): a taken name (23505, unique_violation) is an answer,
	 * not a fault */
	params p = {0};
	p_str(&p, name);
	p_str(&p, name_key);
	p_str(&p, pwhash);
	p_i64(&p, now_ms);
	char qname[16];
	snprintf(qname, sizeof qname, "q%d", Q_INS_ACCOUNT);
	PGresult *r = PQexecPrepared(s->conn, qname, p.n, p.v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		int dup = st && !strcmp(st, "23505");
		fail(s, r, err, "creating an account");
		PQclear(r);
		rollback(s);
		if (dup)
			s->fault = STORE_FAULT_NONE; /* the database works: the name is taken */
		return dup ? STORE_DUPLICATE : -1;
	}
	*id = i64_val(r, 0, 0);
	PQclear(r);
	if (insert_session(s, session_hash, *id, now_ms, expires_ms, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

static int pg_account_by_name(store *base, const char *name_key, store_account *a, char *err)
{
	params p = {0};
	p_str(&p, name_key);
	return one_account((pg_store *)base, Q_SEL_ACC_NAME, &p, a, err);
}

static int pg_account_by_id(store *base, int64_t id, store_account *a, char *err)
{
	params p = {0};
	p_i64(&p, id);
	return one_account((pg_store *)base, Q_SEL_ACC_ID, &p, a, err);
}

static int pg_session_create(store *base, const char *hash, int64_t account, int64_t now_ms,
                             int64_t expires_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	if (insert_session(s, hash, account, now_ms, expires_ms, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

static int pg_session_get(store *base, const char *hash, int64_t now_ms, store_account *a,
                          char *err)
{
	params p = {0};
	p_str(&p, hash);
	p_i64(&p, now_ms);
	return one_account((pg_store *)base, Q_SEL_SESSION, &p, a, err);
}

static int pg_session_delete(store *base, const char *hash, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, hash);
	if (q_do(s, Q_DEL_SESSION, &p, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

static int hex_digit(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int pg_get_key(store *base, const char *name, unsigned char *out, size_t size, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	p_str(&p, name);
	PGresult *r = q_read(s, Q_SEL_KEY, &p, err);
	if (!r)
		return -1;
	int ok = PQntuples(r) == 1 && strlen(PQgetvalue(r, 0, 0)) == 2 * size;
	const char *hex = ok ? PQgetvalue(r, 0, 0) : "";
	for (size_t i = 0; ok && i < size; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			ok = 0;
		else
			out[i] = (unsigned char)(hi << 4 | lo);
	}
	PQclear(r);
	if (!ok)
		snprintf(err, STORE_ERR_SIZE, "server key '%s' is missing or not %zu bytes", name, size);
	return ok ? 0 : -1;
}

static int pg_account_games(store *base, int64_t account, int only_over, int limit,
                            store_seat_game_fn fn, void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	p_i64(&p, account);
	p_i64(&p, only_over);
	p_i64(&p, limit);
	PGresult *r = q_read(s, Q_ACC_GAMES, &p, err);
	if (!r)
		return -1;
	int n = 0, ret = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_game g;
		if (read_game(s, r, i, &g, err)) {
			free_game(&g);
			ret = -1;
			break;
		}
		int has_r = !PQgetisnull(r, i, 13);
		store_result res;
		memset(&res, 0, sizeof res);
		res.scores = has_r ? PQgetvalue(r, i, 13) : "[]";
		res.by_kind = has_r ? PQgetvalue(r, i, 14) : "[]";
		res.winners = has_r ? PQgetvalue(r, i, 15) : "[]";
		res.at_ms = has_r ? i64_val(r, i, 16) : 0;
		store_rating_row rr;
		memset(&rr, 0, sizeof rr);
		int has_rr = !PQgetisnull(r, i, 17);
		snprintf(rr.game, sizeof rr.game, "%s", g.id);
		rr.seat = atoi(PQgetvalue(r, i, 12));
		if (has_rr) {
			rr.before = strtod(PQgetvalue(r, i, 17), NULL);
			rr.after = strtod(PQgetvalue(r, i, 18), NULL);
			rr.rd_after = strtod(PQgetvalue(r, i, 19), NULL);
			rr.at_ms = i64_val(r, i, 20);
		}
		int stop = fn(ctx, &g, rr.seat, has_r ? &res : NULL, has_rr ? &rr : NULL);
		free_game(&g);
		n++;
		if (stop)
			break;
	}
	PQclear(r);
	return ret ? ret : n;
}

static int pg_leaderboard(store *base, int limit, int offset, store_account_fn fn, void *ctx,
                          char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	p_i64(&p, limit);
	p_i64(&p, offset);
	PGresult *r = q_read(s, Q_LEADERBOARD, &p, err);
	if (!r)
		return -1;
	int n = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_account a;
		read_account(r, i, &a);
		n++;
		if (fn(ctx, &a))
			break;
	}
	PQclear(r);
	return n;
}

/* ---- chat and rematch -------------------------------------------------------------------- */

/* A chat line: the game row's lock first (its sequence number), then
 * the line with the game's next number, then its announcement, which
 * every process acts on (tables.c's cluster hooks load the lines they
 * have not shown). */
static int pg_add_chat(store *base, const char *id, store_chat *m, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	int64_t seq;
	params p = {0};
	p_str(&p, id);
	p_i64(&p, m->seat);
	p_str(&p, m->name);
	p_str(&p, m->text);
	p_str(&p, m->phrase);
	p_i64(&p, m->at_ms);
	PGresult *r = NULL;
	if (bump(s, id, &seq, err) || !(r = q(s, Q_INS_CHAT, &p, err)))
		goto bad;
	m->n = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
	PQclear(r);
	if (notify(s, STORE_NOTIFY_CHAT, id, m->n, err))
		goto bad;
	return commit(s, err);
bad:
	rollback(s);
	return -1;
}

static int pg_list_chat(store *base, const char *id, int from, int limit, store_chat_fn fn,
                        void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	p_str(&p, id);
	p_i64(&p, from);
	p_i64(&p, limit);
	PGresult *r = q_read(s, Q_LIST_CHAT, &p, err);
	if (!r)
		return -1;
	int count = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_chat m;
		memset(&m, 0, sizeof m);
		m.n = atoi(PQgetvalue(r, i, 0));
		m.seat = atoi(PQgetvalue(r, i, 1));
		copy_val(m.name, sizeof m.name, r, i, 2);
		m.text = PQgetvalue(r, i, 3);
		copy_val(m.phrase, sizeof m.phrase, r, i, 4);
		m.at_ms = i64_val(r, i, 5);
		count++;
		if (fn(ctx, &m))
			break;
	}
	PQclear(r);
	return count;
}

static int pg_count_chat(store *base, const char *id, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	p_str(&p, id);
	PGresult *r = q_read(s, Q_COUNT_CHAT, &p, err);
	if (!r)
		return -1;
	int n = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return n;
}

static int pg_create_rematch(store *base, const char *old_id, const store_game *g, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	if (insert_game(s, g, err))
		goto bad;
	params p = {0};
	p_str(&p, g->id);
	p_str(&p, old_id);
	PGresult *r = q(s, Q_LINK_REMATCH, &p, err);
	if (!r)
		goto bad;
	int changed = atoi(PQcmdTuples(r));
	PQclear(r);
	if (changed != 1) {
		s->fault = STORE_FAULT_OTHER;
		snprintf(err, STORE_ERR_SIZE, "game %s has a rematch already (or is not stored)", old_id);
		goto bad;
	}
	if (notify(s, STORE_NOTIFY_REMATCH, old_id, -1, err))
		goto bad;
	return commit(s, err);
bad:
	rollback(s);
	return -1;
}

static int pg_get_rematch(store *base, const char *id, char *out, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	out[0] = 0;
	if (ensure(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	PGresult *r = q(s, Q_SEL_REMATCH, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found)
		snprintf(out, STORE_ID_SIZE, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

static int pg_save_analysis(store *base, const char *id, const char *json, int64_t at_ms,
                            char *err)
{
	pg_store *s = (pg_store *)base;
	if (store_analysis_too_big(id, json, err)) {
		s->fault = STORE_FAULT_OTHER;
		return -1;
	}
	if (begin(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	p_str(&p, json);
	p_i64(&p, at_ms);
	if (q_do(s, Q_INS_ANALYSIS, &p, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

static int pg_load_analysis(store *base, const char *id, char **out, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	*out = NULL;
	if (ensure(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	PGresult *r = q(s, Q_SEL_ANALYSIS, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found)
		*out = srv_xstrdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

/* ---- faults ------------------------------------------------------------------------------- */

static store_fault pg_last_fault(store *base) { return ((pg_store *)base)->fault; }

static store_fault pg_check(store *base, char *err)
{
	pg_store *s = (pg_store *)base;
	store_fault f = injected(s, err);
	if (f == STORE_FAULT_NONE && atomic_load(&s->down)) {
		snprintf(err, STORE_ERR_SIZE, "the connection to the PostgreSQL server was lost");
		f = STORE_FAULT_DOWN;
	}
	return f;
}

static int pg_probe(store *base, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
	if (q_do(s, Q_PROBE, NULL, err)) {
		rollback(s);
		return -1;
	}
	return commit(s, err);
}

static const store_ops PG_OPS = {
	.name = "postgresql",
	.close = pg_close,
	.create_game = pg_create_game,
	.update_seat = pg_update_seat,
	.set_status = pg_set_status,
	.add_move = pg_add_move,
	.load_active = pg_load_active,
	.load_one = pg_load_one,
	.counts = pg_counts,
	.list_finished = pg_list_finished,
	.list_unfinished = pg_list_unfinished,
	.list_unowned = pg_list_unowned,
	.last_fault = pg_last_fault,
	.check = pg_check,
	.probe = pg_probe,
	.delete_game = pg_delete_game,
	.upload_usage = pg_upload_usage,
	.save_clock = pg_save_clock,
	.load_clock = pg_load_clock,
	.account_create = pg_account_create,
	.account_by_name = pg_account_by_name,
	.account_by_id = pg_account_by_id,
	.session_create = pg_session_create,
	.session_get = pg_session_get,
	.session_delete = pg_session_delete,
	.get_key = pg_get_key,
	.account_games = pg_account_games,
	.leaderboard = pg_leaderboard,
	.add_chat = pg_add_chat,
	.list_chat = pg_list_chat,
	.count_chat = pg_count_chat,
	.create_rematch = pg_create_rematch,
	.get_rematch = pg_get_rematch,
	.save_analysis = pg_save_analysis,
	.load_analysis = pg_load_analysis,
	.load_since = pg_load_since,
	.last_seq = pg_last_seq,
	.group_begin = pg_group_begin,
	.group_commit = pg_group_commit,
	.group_rollback = pg_group_rollback,
};

/* ---- opening ------------------------------------------------------------------------------ */

/* The migration to 5: the server's 'seat' key, 32 random bytes, from
 * pgcrypto's gen_random_bytes when that extension is installed in the
 * database, else from the kernel here (srv_random_hex: getrandom). */
static int seat_key_hook(pg_store *s, char *err)
{
	PGresult *r = PQexec(s->conn, "SELECT 1 FROM pg_extension WHERE extname='pgcrypto'");
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		fail(s, r, err, "looking for pgcrypto");
		PQclear(r);
		return -1;
	}
	int pgcrypto = PQntuples(r) == 1;
	PQclear(r);
	if (pgcrypto)
		return exec_plain(s, "INSERT INTO server_keys VALUES ('seat', gen_random_bytes(32))",
		                  err);
	char hex[65];
	srv_random_hex(hex, 32);
	const char *v[1] = {hex};
	r = PQexecParams(s->conn, "INSERT INTO server_keys VALUES ('seat', decode($1, 'hex'))", 1,
	                 NULL, v, NULL, NULL, 0);
	explicit_bzero(hex, sizeof hex);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		fail(s, r, err, "making the server key");
	PQclear(r);
	return ok ? 0 : -1;
}

static int migrate(pg_store *s, char *err)
{
	if (exec_plain(s, "BEGIN", err))
		return -1;
	if (exec_plain(s, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", err) ||
	    exec_plain(s, "CREATE TABLE IF NOT EXISTS carc_schema (version integer NOT NULL);"
	                  "INSERT INTO carc_schema SELECT 0 WHERE NOT EXISTS"
	                  " (SELECT 1 FROM carc_schema)",
	               err))
		goto bad;
	PGresult *r = PQexec(s->conn, "SELECT version FROM carc_schema");
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		fail(s, r, err, "reading the schema version");
		PQclear(r);
		goto bad;
	}
	int version = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (version > SCHEMA_VERSION) {
		snprintf(err, STORE_ERR_SIZE,
		         "database schema version %d is newer than this carc knows (%d)", version,
		         SCHEMA_VERSION);
		goto bad;
	}
	for (int i = 0; i < NMIGRATIONS; i++) {
		if (MIGRATIONS[i].version <= version)
			continue;
		char sql[64];
		snprintf(sql, sizeof sql, "UPDATE carc_schema SET version=%d", MIGRATIONS[i].version);
		if (exec_plain(s, MIGRATIONS[i].sql, err) ||
		    (MIGRATIONS[i].hook && MIGRATIONS[i].hook(s, err)) || exec_plain(s, sql, err))
			goto bad;
	}
	return exec_plain(s, "COMMIT", err);
bad:
	rollback(s);
	return -1;
}

static void no_notices(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

store *store_pg_open(const char *url, int writer, char *err)
{
	pg_store *s = srv_xcalloc(1, sizeof *s);
	s->base.ops = &PG_OPS;
#ifdef CARC_DEBUG_CHECK
	const char *ff = getenv("CARC_TEST_STORE_FAULT");
	if (ff && *ff)
		s->fault_file = srv_xstrdup(ff);
#endif
	s->conn = store_pg_connect(url, writer ? "carc serve writer" : "carc serve reader");
	if (PQstatus(s->conn) != CONNECTION_OK) {
		snprintf(err, STORE_ERR_SIZE, "postgresql: cannot connect: %s", PQerrorMessage(s->conn));
		one_line(err);
		pg_close(&s->base);
		return NULL;
	}
	/* the server's notices (NOTICE: relation exists ...) are not ours to print */
	PQsetNoticeProcessor(s->conn, no_notices, NULL);
	if (exec_plain(s, "SET synchronous_commit = on", err) ||
	    (writer && migrate(s, err)) || prepare_all(s, err)) {
		pg_close(&s->base);
		return NULL;
	}
	return &s->base;
}
