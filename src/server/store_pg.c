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
 * Adding a migration: an entry {version, sql} at the end of MIGRATIONS
 * (version = SQLite's user_version after its migration of the same
 * number); migrate() applies every entry above the stored version, all in
 * one transaction, under an advisory lock, so processes starting together
 * migrate once.
 *
 * Writes: each is one transaction; a move's transaction locks the game's
 * row (SELECT ... FOR UPDATE) and checks that the move's turn is the next
 * one, so two processes never both store a move for one turn: the second
 * gets STORE_CONFLICT and nothing is written. Every write sends a NOTIFY
 * on channel "carc" inside its transaction: PostgreSQL delivers it at the
 * commit and only then, so no process hears of a change that is not
 * committed (payloads in store.h, STORE_NOTIFY_*).
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
static const struct {
	int version;
	const char *sql;
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
	    "CREATE INDEX results_by_finish ON results(finished_ms, game_id);"},
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
	Q_SEL_FINISHED_AT, Q_LIST_FINISHED, Q_DELETE, Q_UPLOAD_USAGE,
	Q_PROBE, Q_NOTIFY,
	Q_COUNT
};

#define GAME_COLS "id, status, players, farmers, farm_scoring, small_city, expansions," \
                  " seed, options, record, created_ms, updated_ms"

static const char *const SQL[Q_COUNT] = {
	[Q_INS_GAME] = "INSERT INTO games (" GAME_COLS ")"
	               " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)",
	[Q_INS_SEAT] = "INSERT INTO seats (game_id, seat, kind, name, level, bot_spec, token,"
	               " colour) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
	/* a human takes a seat only while it is open: another process may have
	 * given it away (0 rows: STORE_CONFLICT) */
	[Q_UPD_SEAT] = "UPDATE seats SET kind=$1, name=$2, level=$3, bot_spec=$4, token=$5,"
	               " colour=$6 WHERE game_id=$7 AND seat=$8 AND (kind='open' OR $1<>'human')",
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
	[Q_SEL_ACTIVE] = "SELECT " GAME_COLS " FROM games"
	                 " WHERE status IN ('open','playing') ORDER BY created_ms, id",
	[Q_SEL_ONE] = "SELECT " GAME_COLS " FROM games WHERE id=$1",
	[Q_SEL_SEATS] = "SELECT seat, kind, name, level, bot_spec, token, colour FROM seats"
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
	    " (SELECT count(*) FROM moves m WHERE m.game_id = g.id)"
	    " FROM results r JOIN games g ON g.id = r.game_id"
	    " WHERE g.status='over' AND (g.options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND r.finished_ms <= $1 AND (r.finished_ms < $1 OR r.game_id < $2)"
	    " ORDER BY r.finished_ms DESC, r.game_id DESC LIMIT $3",
	[Q_DELETE] = "DELETE FROM games WHERE id=$1",
	[Q_UPLOAD_USAGE] = "SELECT count(*), coalesce(sum(coalesce("
	                   "(options::jsonb->>'record_bytes')::bigint, octet_length(record))),0)"
	                   " FROM games WHERE status='view'",
	[Q_PROBE] = "UPDATE carc_schema SET version=version",
	[Q_NOTIFY] = "SELECT pg_notify('" STORE_NOTIFY_CHANNEL "', $1)",
};

typedef struct pg_store {
	store base;
	PGconn *conn;
	int prepared;          /* the statements are prepared on this connection */
	store_fault fault;     /* of the last call */
	atomic_int down;       /* the connection was lost (for check(), any thread) */
	char *fault_file;      /* CARC_TEST_STORE_FAULT (test builds) */
} pg_store;

static int ensure(pg_store *s, char *err);

/* Parameters as text: numbers are printed into num[]. */
typedef struct params {
	int n;
	const char *v[16];
	char num[16][24];
} params;

static void p_str(params *p, const char *s) { p->v[p->n++] = s ? s : ""; }
static void p_null(params *p) { p->v[p->n++] = NULL; }
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
#ifdef CARC_DEBUG_CHECK
	static const struct {
		const char *word;
		store_fault f;
	} KINDS[] = {{"read_only", STORE_FAULT_READ_ONLY}, {"io", STORE_FAULT_IO},
	             {"full", STORE_FAULT_FULL}, {"gone", STORE_FAULT_GONE},
	             {"down", STORE_FAULT_DOWN}};
	if (!s->fault_file)
		return STORE_FAULT_NONE;
	FILE *f = fopen(s->fault_file, "r");
	if (!f)
		return STORE_FAULT_NONE;
	char word[32] = "";
	if (!fgets(word, sizeof word, f))
		word[0] = 0;
	fclose(f);
	word[strcspn(word, " \r\n")] = 0;
	for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
		if (!strcmp(word, KINDS[i].word)) {
			snprintf(err, STORE_ERR_SIZE, "injected fault '%s' (CARC_TEST_STORE_FAULT=%s)", word,
			         s->fault_file);
			return KINDS[i].f;
		}
	return STORE_FAULT_NONE;
#else
	(void)s;
	(void)err;
	return STORE_FAULT_NONE;
#endif
}

static int begin(pg_store *s, char *err)
{
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	return exec_plain(s, "BEGIN", err);
}

static void rollback(pg_store *s)
{
	if (PQstatus(s->conn) == CONNECTION_OK && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(PQexec(s->conn, "ROLLBACK"));
}

/* Commits the open transaction (a test build's injected fault rolls it
 * back instead). 0, or -1 with the fault set. */
static int commit(pg_store *s, char *err)
{
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

/* The notification of a change, sent at the commit (see the top). */
static int notify(pg_store *s, char kind, const char *id, int n, char *err)
{
	char payload[64];
	params p = {0};
	if (n >= 0)
		snprintf(payload, sizeof payload, "%c %s %d", kind, id, n);
	else
		snprintf(payload, sizeof payload, "%c %s", kind, id);
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

static int pg_create_game(store *base, const store_game *g, char *err)
{
	pg_store *s = (pg_store *)base;
	if (begin(s, err))
		return -1;
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
		goto bad;
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
		if (q_do(s, Q_INS_SEAT, &ps, err))
			goto bad;
	}
	if (notify(s, STORE_NOTIFY_CREATED, g->id, g->status, err))
		goto bad;
	return commit(s, err);
bad:
	rollback(s);
	return -1;
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
	if (r) {
		params pt = {0};
		p_str(&pt, store_status_name(STORE_OVER));
		p_i64(&pt, m->at_ms);
		p_str(&pt, id);
		params pr = {0};
		p_str(&pr, id);
		p_str(&pr, r->scores);
		p_str(&pr, r->by_kind);
		p_str(&pr, r->winners);
		p_i64(&pr, r->at_ms);
		if (q_do(s, Q_TOUCH, &pt, err) || q_do(s, Q_INS_RESULT, &pr, err))
			goto bad;
	}
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

static int pg_load_active(store *base, store_load_fn fn, void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	PGresult *r = q(s, Q_SEL_ACTIVE, NULL, err);
	if (!r)
		return -1;
	int ret = 0;
	for (int i = 0; i < PQntuples(r) && !ret; i++)
		if (load_row(s, r, i, 0, fn, ctx, err))
			ret = -1;
	PQclear(r);
	return ret;
}

static int pg_load_since(store *base, const char *id, int from, store_load_fn fn, void *ctx,
                         char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	params p = {0};
	p_str(&p, id);
	PGresult *r = q(s, Q_SEL_ONE, &p, err);
	if (!r)
		return -1;
	int ret = PQntuples(r) == 1 ? (load_row(s, r, 0, from, fn, ctx, err) ? -1 : 1) : 0;
	PQclear(r);
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
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	PGresult *r = q(s, Q_COUNTS, NULL, err);
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
		int stop = fn(ctx, &g, &res, atoi(PQgetvalue(r, i, 16)));
		free_game(&g);
		n++;
		if (stop)
			break;
	}
	PQclear(r);
	return ret ? ret : n;
}

static int pg_upload_usage(store *base, long *count, int64_t *bytes, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (ensure(s, err))
		return -1;
	PGresult *r = q(s, Q_UPLOAD_USAGE, NULL, err);
	if (!r)
		return -1;
	*count = atol(PQgetvalue(r, 0, 0));
	*bytes = i64_val(r, 0, 1);
	PQclear(r);
	return 0;
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
	.last_fault = pg_last_fault,
	.check = pg_check,
	.probe = pg_probe,
	.delete_game = pg_delete_game,
	.upload_usage = pg_upload_usage,
	.load_since = pg_load_since,
};

/* ---- opening ------------------------------------------------------------------------------ */

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
		if (exec_plain(s, MIGRATIONS[i].sql, err) || exec_plain(s, sql, err))
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
