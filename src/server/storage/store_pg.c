/*
 * store_pg.c - the PostgreSQL backend of store.h (libpq), for several
 * `carc serve` processes on one database (cluster.c is the rest of that).
 * This file connects, migrates, holds the statements and the helpers
 * every query and write goes through (pgs_q, the transactions, the group
 * commit, the notifications, the stream's numbers), the faults and the
 * opening; the rows are written and read in store_pg_games.c (games,
 * seats, moves, results, ratings, clocks) and store_pg_social.c
 * (accounts, sessions, keys, chat, rematches, analyses); the three share
 * store_pg_int.h.
 *
 * The same schema as store_sqlite.c, translated: JSON columns are text
 * (what the layer above gave, byte for byte; queries cast to jsonb), the
 * seed and the times bigint, ids text COLLATE "C" (the lobby's cursor
 * compares ids bytewise, as SQLite does). The schema version is the one
 * row of carc_schema; it counts like SQLite's user_version, so a
 * migration has the same number in both backends.
 *
 * Adding an operation: a Q_ name and its SQL in SQL[] (prepared on every
 * connection as "q<N>"), a pg_<op> function that runs it through pgs_q() (in
 * pgs_begin()/pgs_commit() when it writes), and the function in PG_OPS.
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
 * row (SELECT ... FOR UPDATE) and checks that the move's step is the next
 * one, so two processes never both store a move for one step: the second
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
#include "store_pg_int.h"
#include "store_sql.h"

/* migrations, by the version they lead to */
static int seat_key_hook(pg_store *s, char *err);
static int recovery_key_hook(pg_store *s, char *err);
static int device_key_hook(pg_store *s, char *err);
static int step_kind_hook(pg_store *s, char *err);

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
	/* SQLite 9 -> 10: account names that look alike (skeleton.h) */
	{10, "CREATE TABLE account_skeletons ("
	     "  skel text COLLATE \"C\" PRIMARY KEY,"
	     "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE);"
	     "CREATE INDEX account_skeletons_account ON account_skeletons(account);", NULL},
	/* SQLite 10 -> 11 (undo.c): moves taken back in training games */
	{11, "ALTER TABLE games ADD COLUMN undos integer NOT NULL DEFAULT 0;", NULL},
	/* SQLite 11 -> 12 (windows.c): the window holding each seat's controls */
	{12, "ALTER TABLE seats ADD COLUMN window_id text NOT NULL DEFAULT '';", NULL},
	/* SQLite 12 -> 13 (people/friends.c): friendships and requests,
	 * blocks, invites, the social writes of the last hour, presence and
	 * who wrote a chat line */
	{13, "CREATE TABLE friend_links ("
	     "  a bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  b bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  state integer NOT NULL,"
	     "  at_ms bigint NOT NULL,"
	     "  PRIMARY KEY (a, b));"
	     "CREATE INDEX friend_links_to ON friend_links(b, a);"
	     "CREATE TABLE blocks ("
	     "  blocker bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  blocked bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  at_ms bigint NOT NULL,"
	     "  PRIMARY KEY (blocker, blocked));"
	     "CREATE INDEX blocks_by_blocked ON blocks(blocked, blocker);"
	     "CREATE TABLE invites ("
	     "  id bigserial PRIMARY KEY,"
	     "  game_id text COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	     "  seat integer NOT NULL,"
	     "  from_account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  to_account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  at_ms bigint NOT NULL,"
	     "  UNIQUE (game_id, to_account));"
	     "CREATE INDEX invites_to ON invites(to_account, at_ms);"
	     "CREATE TABLE social_log ("
	     "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  kind integer NOT NULL,"
	     "  at_ms bigint NOT NULL);"
	     "CREATE INDEX social_log_by_account ON social_log(account, kind, at_ms);"
	     "ALTER TABLE accounts ADD COLUMN seen_ms bigint NOT NULL DEFAULT 0;"
	     "ALTER TABLE chat ADD COLUMN account bigint NOT NULL DEFAULT 0;", NULL},
	/* SQLite 13 -> 14: the quick-match queue (store_match.c) */
	{14, "CREATE TABLE match_queue ("
	     "  account bigint PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  name text NOT NULL,"
	     "  pool text COLLATE \"C\" NOT NULL,"
	     "  rating double precision NOT NULL,"
	     "  joined_ms bigint NOT NULL,"
	     "  seen_ms bigint NOT NULL,"
	     "  table_id text COLLATE \"C\" NOT NULL DEFAULT '',"
	     "  seat integer NOT NULL DEFAULT -1);"
	     "CREATE INDEX match_waiting ON match_queue(pool, joined_ms) WHERE table_id = '';"
	     "CREATE INDEX match_seen ON match_queue(seen_ms);"
	     "CREATE TABLE match_joins ("
	     "  account bigint PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  since_ms bigint NOT NULL,"
	     "  n integer NOT NULL);", NULL},
	/* SQLite 14 -> 15: recovery codes (recovery.c), as HMAC-SHA256 under
	 * the server key 'recovery' (made by recovery_key_hook) */
	{15, "CREATE TABLE recovery_codes ("
	     "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  hash text COLLATE \"C\" NOT NULL,"
	     "  created_ms bigint NOT NULL,"
	     "  PRIMARY KEY (account, hash));",
	 recovery_key_hook},
	/* SQLite 15 -> 16: a seat and a clock carry their game's status (kept
	 * by the triggers), one range of seats_by_account_status per account
	 * and status, the games being played with a bot or a clock two small
	 * partial indexes; seats_by_account (partial: a generic plan of
	 * "account = $1" cannot take it) and games_by_status (games_listed
	 * does what it did) go. A status change's trigger locks the game's
	 * seats and clock after its row, as every write of a seat or a clock
	 * does (store_pg_games.c, pg_update_seat, pg_save_clock). On 100,000
	 * games (200,000 seats) it took 3 to 5 s (docs/server.md, "Reads that
	 * cost what the asker owns") */
	{16, "ALTER TABLE seats ADD COLUMN game_status text NOT NULL DEFAULT '';"
	     "UPDATE seats s SET game_status = g.status FROM games g WHERE g.id = s.game_id;"
	     "ALTER TABLE clocks ADD COLUMN game_status text NOT NULL DEFAULT '';"
	     "UPDATE clocks c SET game_status = g.status FROM games g WHERE g.id = c.game_id;"
	     "CREATE FUNCTION carc_game_status_new() RETURNS trigger LANGUAGE plpgsql AS $$"
	     " BEGIN NEW.game_status := (SELECT status FROM games WHERE id = NEW.game_id);"
	     " RETURN NEW; END $$;"
	     "CREATE TRIGGER seats_game_status_new BEFORE INSERT ON seats FOR EACH ROW"
	     "  EXECUTE FUNCTION carc_game_status_new();"
	     "CREATE TRIGGER clocks_game_status_new BEFORE INSERT ON clocks FOR EACH ROW"
	     "  EXECUTE FUNCTION carc_game_status_new();"
	     "CREATE FUNCTION carc_games_status_to_seats() RETURNS trigger LANGUAGE plpgsql AS $$"
	     " BEGIN UPDATE seats SET game_status = NEW.status WHERE game_id = NEW.id;"
	     " UPDATE clocks SET game_status = NEW.status WHERE game_id = NEW.id;"
	     " RETURN NULL; END $$;"
	     "CREATE TRIGGER games_status_to_seats AFTER UPDATE OF status ON games FOR EACH ROW"
	     "  WHEN (OLD.status IS DISTINCT FROM NEW.status)"
	     "  EXECUTE FUNCTION carc_games_status_to_seats();"
	     "DROP INDEX seats_by_account;"
	     "CREATE INDEX seats_by_account_status ON seats(account, game_status, game_id);"
	     "CREATE INDEX seats_bots_playing ON seats(game_id)"
	     "  WHERE kind = 'bot' AND game_status = 'playing';"
	     "CREATE INDEX clocks_playing ON clocks(game_id) WHERE game_status = 'playing';"
	     "DROP INDEX games_by_status;"
	     /* the planner's guess of the seats of an account that a row or a
	      * parameter names (a friend's, a generic plan's) is the table's
	      * rows over its distinct accounts: on a site where a few accounts
	      * hold most seats that is thousands, and a friend's presence was
	      * read by walking every game (6.7 s on bench/measure_reads.py's
	      * site). An account holds few of the site's seats: it is told
	      * so (distinct accounts a twentieth of the seats), and the
	      * statistics are made now, not at autovacuum's next round */
	     "ALTER TABLE seats ALTER COLUMN account SET (n_distinct = -0.05);"
	     "ANALYZE seats;", NULL},
	/* SQLite 16 -> 17 (issue 26): established accounts and the opponents
	 * they met (store_rating.c; the leaderboard's partial index), and
	 * quick match's addresses, recent opponents, notes, seats, holds and
	 * void tables (store_match.c); see store_sqlite.c's migration */
	{17, "ALTER TABLE accounts ADD COLUMN est_games integer NOT NULL DEFAULT 0;"
	     "ALTER TABLE accounts ADD COLUMN opponents integer NOT NULL DEFAULT 0;"
	     "ALTER TABLE accounts ADD COLUMN established integer NOT NULL DEFAULT 0;"
	     "CREATE TABLE rating_opponents ("
	     "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  opponent bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  PRIMARY KEY (account, opponent));"
	     "CREATE INDEX rating_opponents_of ON rating_opponents(opponent);"
	     "CREATE TABLE rating_bots ("
	     "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  bot integer NOT NULL,"
	     "  PRIMARY KEY (account, bot));"
	     "INSERT INTO rating_opponents (account, opponent)"
	     "  SELECT r.account, s.account FROM ratings r JOIN seats s ON s.game_id = r.game_id"
	     "  WHERE s.kind = 'human' AND s.account NOT IN (0, r.account) ON CONFLICT DO NOTHING;"
	     "INSERT INTO rating_bots (account, bot)"
	     "  SELECT r.account, CASE s.bot_spec WHEN 'random' THEN 1000 WHEN 'softgreedy' THEN 1159"
	     "   WHEN 'greedy' THEN 1700 WHEN 'mcts:time=0.1' THEN 2304 WHEN 'mcts:time=1' THEN 2408"
	     "   ELSE 0 END"
	     "  FROM ratings r JOIN seats s ON s.game_id = r.game_id WHERE s.kind = 'bot'"
	     "  ON CONFLICT DO NOTHING;"
	     "UPDATE accounts SET est_games = games,"
	     "  opponents = (SELECT count(*) FROM rating_opponents o WHERE o.account = accounts.id)"
	     "   + (SELECT count(*) FROM rating_bots b WHERE b.account = accounts.id);"
	     "UPDATE accounts SET established = 1 WHERE est_games >= 10 AND opponents >= 3;"
	     "DROP INDEX accounts_by_rating;"
	     "CREATE INDEX accounts_board ON accounts(rating DESC, name) WHERE established = 1;"
	     "ALTER TABLE match_queue ADD COLUMN addr text NOT NULL DEFAULT '';"
	     "ALTER TABLE match_queue ADD COLUMN recent text NOT NULL DEFAULT '';"
	     "ALTER TABLE match_queue ADD COLUMN note text NOT NULL DEFAULT '';"
	     "DROP INDEX match_waiting;"
	     "CREATE INDEX match_waiting ON match_queue(pool, joined_ms)"
	     "  WHERE table_id = '' AND note = '';"
	     "CREATE TABLE match_seats ("
	     "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  table_id text COLLATE \"C\" NOT NULL,"
	     "  seat integer NOT NULL,"
	     "  at_ms bigint NOT NULL,"
	     "  PRIMARY KEY (account, table_id));"
	     "CREATE INDEX match_seats_table ON match_seats(table_id);"
	     "CREATE INDEX match_seats_at ON match_seats(at_ms);"
	     "CREATE INDEX match_seats_recent ON match_seats(account, at_ms);"
	     "CREATE TABLE match_holds ("
	     "  account bigint PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  strikes integer NOT NULL,"
	     "  until_ms bigint NOT NULL);"
	     "CREATE TABLE match_voids ("
	     "  account bigint PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	     "  table_id text COLLATE \"C\" NOT NULL,"
	     "  front_ms bigint NOT NULL,"
	     "  at_ms bigint NOT NULL);", NULL},
	/* SQLite 17 -> 18 (issue 26): the account's epoch, in its seat tokens
	 * (accounts.h), and the server key 'device' of the device cookies
	 * (made by device_key_hook) */
	{18, "ALTER TABLE accounts ADD COLUMN epoch bigint NOT NULL DEFAULT 0;", device_key_hook},
	/* SQLite 18 -> 19 (issue 27): the step is the unit of storage. The
	 * moves' key column becomes the step (every row keeps its number: a
	 * turn was one step), with the turn of each and its kind by the
	 * engine's name, which step_kind_hook writes (every row of before is
	 * a tile step); a clock runs for a step. The primary key (game_id,
	 * step) follows the renamed column. See store_sqlite.c's migration */
	{19, "ALTER TABLE moves RENAME COLUMN turn TO step;"
	     "ALTER TABLE moves ADD COLUMN turn integer NOT NULL DEFAULT 0;"
	     "ALTER TABLE moves ADD COLUMN kind text NOT NULL DEFAULT '';"
	     "ALTER TABLE clocks RENAME COLUMN turn TO step;", step_kind_hook},
};
#define NMIGRATIONS ((int)(sizeof MIGRATIONS / sizeof MIGRATIONS[0]))
#define SCHEMA_VERSION (MIGRATIONS[NMIGRATIONS - 1].version)

/* pg_advisory_xact_lock key of the migration ("carc" in ASCII) */
#define MIGRATE_LOCK "1667330659"

#define ACC_COLS "id, name, pwhash, created_ms, rating, rd, vol, games, established, epoch"
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
	/* the game's row locked for the move's transaction; then its steps, in
	 * a statement of its own: under READ COMMITTED each statement sees
	 * what was committed before it began, so the count made after the lock
	 * was granted sees the move of the transaction that held it (a
	 * subquery of the locking statement would count with the snapshot
	 * taken before the wait) */
	[Q_LOCK_GAME] = "SELECT status, undos FROM games WHERE id=$1 FOR UPDATE",
	[Q_STEPS] = "SELECT count(*) FROM moves WHERE game_id=$1",
	[Q_INS_MOVE] = "INSERT INTO moves (game_id, step, turn, kind, player, move, tile, entry,"
	               " at_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
	[Q_TOUCH] = "UPDATE games SET status=$1, updated_ms=$2 WHERE id=$3",
	[Q_INS_RESULT] = "INSERT INTO results (game_id, scores, by_kind, winners, finished_ms)"
	                 " VALUES ($1,$2,$3,$4,$5)",
	[Q_SEL_ONE] = "SELECT " GAME_COLS ", seq, undos FROM games WHERE id=$1",
	[Q_SEL_SEATS] = "SELECT seat, kind, name, level, bot_spec, token, colour, account FROM seats"
	                " WHERE game_id=$1 ORDER BY seat",
	[Q_SEL_MOVES] = "SELECT step, turn, kind, player, move, tile, entry, at_ms FROM moves"
	                " WHERE game_id=$1 ORDER BY step",
	[Q_SEL_MOVES_FROM] = "SELECT step, turn, kind, player, move, tile, entry, at_ms FROM moves"
	                     " WHERE game_id=$1 AND step >= $2 ORDER BY step",
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
	    "  WHERE c.game_id = g.id),"
	    " (SELECT coalesce(max(m.turn) + 1, 0) FROM moves m WHERE m.game_id = g.id)"
	    " FROM results r JOIN games g ON g.id = r.game_id"
	    " WHERE g.status='over' AND (g.options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND r.finished_ms <= $1 AND (r.finished_ms < $1 OR r.game_id < $2)"
	    " ORDER BY r.finished_ms DESC, r.game_id DESC LIMIT $3",
	/* the lobby, one statement a status, each walking its index from the
	 * cursor in its order (store_sqlite.c): $1 $2 the cursor, then the
	 * oldest open game still open (open, both), then the limit */
	[Q_LIST_OPEN] =
	    "SELECT id, created_ms FROM games"
	    " WHERE status = 'open' AND created_ms >= $3"
	    "  AND (options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND created_ms <= $1 AND (created_ms < $1 OR id < $2)"
	    " ORDER BY created_ms DESC, id DESC LIMIT $4",
	[Q_LIST_PLAYING] =
	    "SELECT id, created_ms FROM games"
	    " WHERE status = 'playing'"
	    "  AND (options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND created_ms <= $1 AND (created_ms < $1 OR id < $2)"
	    " ORDER BY created_ms DESC, id DESC LIMIT $3",
	[Q_LIST_UNFINISHED] =
	    "SELECT id, created_ms FROM games"
	    " WHERE status IN ('open','playing')"
	    "  AND (status <> 'open' OR created_ms >= $3)"
	    "  AND (options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  AND created_ms <= $1 AND (created_ms < $1 OR id < $2)"
	    " ORDER BY created_ms DESC, id DESC LIMIT $4",
	/* the owners' poll, every CLUSTER_POLL_MS on the loop: a page of each
	 * of the two partial indexes of the games being played with a bot or
	 * a clock (schema 16; before, a walk of every game being played: 169
	 * ms at 40,000), merged */
	[Q_LIST_UNOWNED] =
	    "SELECT game_id FROM (SELECT game_id FROM seats WHERE kind = 'bot'"
	    "  AND game_status = 'playing' AND game_id > $1 ORDER BY game_id LIMIT $2) AS b"
	    " UNION SELECT game_id FROM (SELECT game_id FROM clocks WHERE game_status = 'playing'"
	    "  AND game_id > $1 ORDER BY game_id LIMIT $2) AS c"
	    " ORDER BY 1 LIMIT $2",
	[Q_DELETE] = "DELETE FROM games WHERE id=$1",
	[Q_UPLOAD_USAGE] = "SELECT count(*), coalesce(sum(coalesce("
	                   "(options::jsonb->>'record_bytes')::bigint, octet_length(record))),0)"
	                   " FROM games WHERE status='view'",
	[Q_PROBE] = "UPDATE carc_schema SET version=version",
	[Q_NOTIFY] = "SELECT pg_notify('" STORE_NOTIFY_CHANNEL "', $1)",
	[Q_UPS_CLOCK] = "INSERT INTO clocks (game_id, step, deadline_ms, state) VALUES ($1,$2,$3,$4)"
	                " ON CONFLICT (game_id) DO UPDATE SET step=excluded.step,"
	                " deadline_ms=excluded.deadline_ms, state=excluded.state",
	[Q_SEL_CLOCK] = "SELECT step, deadline_ms, state FROM clocks WHERE game_id=$1",
	[Q_INS_ACCOUNT] = "INSERT INTO accounts (name, name_key, pwhash, created_ms)"
	                  " VALUES ($1,$2,$3,$4) RETURNING id",
	[Q_SEL_ACC_NAME] = "SELECT " ACC_COLS " FROM accounts WHERE name_key=$1",
	[Q_SEL_ACC_ID] = "SELECT " ACC_COLS " FROM accounts WHERE id=$1",
	[Q_INS_SESSION] = "INSERT INTO sessions (hash, account, created_ms, expires_ms)"
	                  " VALUES ($1,$2,$3,$4)",
	[Q_DEL_EXPIRED] = "DELETE FROM sessions WHERE expires_ms <= $1",
	[Q_SEL_SESSION] = "SELECT a.id, a.name, a.pwhash, a.created_ms, a.rating, a.rd, a.vol, a.games,"
	                  " a.established, a.epoch"
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
	    " WHERE s.account = $1 AND ($2::integer = 0 OR s.game_status = 'over')"
	    " ORDER BY g.updated_ms DESC, g.id DESC LIMIT $3",
	/* established accounts only (ratings.h): the partial index accounts_board */
	[Q_LEADERBOARD] = "SELECT id, name, '', created_ms, rating, rd, vol, games, established"
	                  " FROM accounts WHERE established = 1"
	                  " ORDER BY rating DESC, name LIMIT $1 OFFSET $2",
	/* the next number of the game's lines: the caller holds the game
	 * row's lock (bump), so two processes cannot both take it */
	[Q_INS_CHAT] = "INSERT INTO chat (game_id, n, seat, name, text, phrase, at_ms, account)"
	               " SELECT $1, coalesce(max(n) + 1, 0), $2,$3,$4,$5,$6,$7 FROM chat"
	               " WHERE game_id=$1 RETURNING n",
	[Q_LIST_CHAT] = "SELECT n, seat, name, text, phrase, at_ms, account FROM chat WHERE game_id=$1"
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
	[Q_SET_WINDOW] = "UPDATE seats SET window_id=$3 WHERE game_id=$1 AND seat=$2",
	[Q_SEL_WINDOW] = "SELECT window_id FROM seats WHERE game_id=$1 AND seat=$2",
	/* the table's next sequence number; takes the game row's lock */
	[Q_BUMP] = "UPDATE games SET seq = seq + 1 WHERE id=$1 RETURNING seq",
	[Q_INS_SKEL] = "INSERT INTO account_skeletons (skel, account) VALUES ($1,$2)",
	[Q_SKEL_TAKEN] = "SELECT 1 FROM account_skeletons WHERE skel IN ($1,$2) LIMIT 1",
	[Q_UNSKELETONED] = "SELECT a.id, a.name FROM accounts a WHERE a.id > $1 AND NOT EXISTS"
	                   " (SELECT 1 FROM account_skeletons k WHERE k.account = a.id)"
	                   " ORDER BY a.id LIMIT $2",
	/* undo.c: the moves taken back, and their count */
	[Q_DEL_MOVES] = "DELETE FROM moves WHERE game_id=$1 AND step >= $2",
	[Q_UNDO_GAME] = "UPDATE games SET undos = undos + $2, updated_ms = $3 WHERE id=$1",
};

void pgs_p_str(params *p, const char *s) { p->v[p->n++] = s ? s : ""; }
void pgs_p_null(params *p) { p->v[p->n++] = NULL; }
void pgs_p_f64(params *p, double x)
{
	snprintf(p->num[p->n], sizeof p->num[p->n], "%.17g", x);
	p->v[p->n] = p->num[p->n];
	p->n++;
}
void pgs_p_i64(params *p, int64_t x)
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
int pgs_fail(pg_store *s, const PGresult *res, char *err, const char *what)
{
	snprintf(err, STORE_ERR_SIZE, "postgresql: %s: %s", what,
	         res && *PQresultErrorMessage(res) ? PQresultErrorMessage(res)
	                                           : PQerrorMessage(s->conn));
	one_line(err);
	s->fault = fault_of(s, res);
	atomic_store(&s->down, s->fault == STORE_FAULT_DOWN);
	return -1;
}

/* The backend of this process's writer connection (0: none yet): the
 * notifications it sends are this process's own changes (cluster.c). */
static atomic_int writer_pid;

static int prepare_all(pg_store *s, char *err)
{
	for (int i = 0; i < Q_COUNT; i++) {
		char name[16];
		snprintf(name, sizeof name, "q%d", i);
		PGresult *r = PQprepare(s->conn, name, SQL[i], 0, NULL);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			pgs_fail(s, r, err, SQL[i]);
			PQclear(r);
			return -1;
		}
		PQclear(r);
	}
	s->prepared = 1;
	if (s->writer)
		atomic_store(&writer_pid, PQbackendPID(s->conn));
	return 0;
}

/* A usable connection: reconnects a lost one. 0, or -1 (fault DOWN). */
int pgs_ensure(pg_store *s, char *err)
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
 * or NULL after pgs_fail(). */
/* A connection found lost outside a transaction (the server restarted, an
 * idle session was terminated: libpq learns of it only when it next
 * talks) is made again and the statement sent once more: nothing of it
 * ran. Inside a transaction nothing is retried (the transaction is gone). */
static int retry_after_loss(pg_store *s, int was_idle, char *err)
{
	if (!was_idle || PQstatus(s->conn) == CONNECTION_OK)
		return 0;
	return pgs_ensure(s, err) == 0;
}

PGresult *pgs_q(pg_store *s, int k, const params *p, char *err)
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
		pgs_fail(s, r, err, SQL[k]);
		PQclear(r);
		return NULL;
	}
	return r;
}

/* Like pgs_q, for a statement that is not one of SQL[] (store_pg_sql.c):
 * sent with its parameters each time, not prepared. */
PGresult *pgs_q_sql(pg_store *s, const char *sql, const params *p, char *err)
{
	int idle = PQtransactionStatus(s->conn) == PQTRANS_IDLE;
	PGresult *r = PQexecParams(s->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && retry_after_loss(s, idle, err)) {
		PQclear(r);
		r = PQexecParams(s->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 0);
		st = PQresultStatus(r);
	}
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		pgs_fail(s, r, err, sql);
		PQclear(r);
		return NULL;
	}
	return r;
}

/* A read outside a transaction: clears the last fault, connects again if
 * the connection was lost, then runs k (q's result). */
PGresult *pgs_q_read(pg_store *s, int k, const params *p, char *err)
{
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return NULL;
	return pgs_q(s, k, p, err);
}

/* Runs k and throws the result away. 0, or -1. */
int pgs_q_do(pg_store *s, int k, const params *p, char *err)
{
	PGresult *r = pgs_q(s, k, p, err);
	PQclear(r);
	return r ? 0 : -1;
}

int pgs_exec_plain(pg_store *s, const char *sql, char *err)
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
		pgs_fail(s, r, err, sql);
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
int pgs_begin(pg_store *s, char *err)
{
	s->fault = STORE_FAULT_NONE;
	s->nseqs = 0;
	if (s->group)
		return group_gone(s, err) ? -1 : pgs_exec_plain(s, "SAVEPOINT w", err);
	if (pgs_ensure(s, err))
		return -1;
	return pgs_exec_plain(s, "BEGIN", err);
}

/* A write's transaction (in a group: its savepoint, which also takes the
 * group out of the aborted state an error left it in) ends without
 * effect. */
void pgs_rollback(pg_store *s)
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
int pgs_commit(pg_store *s, char *err)
{
	if (s->group)
		return group_gone(s, err);
	store_fault f = injected(s, err);
	if (f != STORE_FAULT_NONE) {
		s->fault = f;
		pgs_rollback(s);
		return -1;
	}
	if (pgs_exec_plain(s, "COMMIT", err)) {
		pgs_rollback(s);
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
	if (pgs_begin(s, err))
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
		pgs_rollback(s);
		return -1;
	}
	s->fault = STORE_FAULT_NONE;
	return pgs_commit(s, err);
}

static void pg_group_rollback(store *base)
{
	pg_store *s = (pg_store *)base;
	s->group = s->group_lost = 0;
	pgs_rollback(s);
}

/* Inside a write: the table's next sequence number (store.h, "The
 * table's stream"), once per table and transaction; it takes the game
 * row's lock, which the transaction holds to its commit, so the numbers
 * follow the commits. 0 when the game is not stored (removed). 0 or -1. */
int pgs_bump(pg_store *s, const char *id, int64_t *seq, char *err)
{
	for (int i = 0; i < s->nseqs; i++)
		if (!strcmp(s->seqs[i].id, id)) {
			*seq = s->seqs[i].seq;
			return 0;
		}
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *r = pgs_q(s, Q_BUMP, &p, err);
	if (!r)
		return -1;
	*seq = PQntuples(r) == 1 ? pgs_i64_val(r, 0, 0) : 0;
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
int pgs_notify(pg_store *s, char kind, const char *id, int n, char *err)
{
	char payload[80];
	int64_t seq = 0;
	if (kind != STORE_NOTIFY_DELETED && pgs_bump(s, id, &seq, err))
		return -1;
	params p = {0};
	snprintf(payload, sizeof payload, "%c %s %d %lld", kind, id, n < 0 ? -1 : n,
	         (long long)seq);
	pgs_p_str(&p, payload);
	return pgs_q_do(s, Q_NOTIFY, &p, err);
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
	if (pgs_begin(s, err))
		return -1;
	if (pgs_q_do(s, Q_PROBE, NULL, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

/* The store's own list statements with an asker's arguments (see
 * store_plans.c), as sq_explain. */
static int pg_explain(store *base, int64_t account, store_plan_fn fn, void *ctx, char *err)
{
	int64_t open_since = srv_now_ms() - 1800 * 1000;
	const store_list_sql own[] = {
		{"my games", SQL[Q_ACC_GAMES], SQL_A3(account, 0, 100), 1},
		{"profile", SQL[Q_ACC_GAMES], SQL_A3(account, 1, 500), 1},
		{"leaderboard", SQL[Q_LEADERBOARD], SQL_A2(51, 0), 1},
		{"leaderboard, last page", SQL[Q_LEADERBOARD], SQL_A2(51, 10000), 1},
		{"finished games", SQL[Q_LIST_FINISHED],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(51)), 1},
		{"lobby, open", SQL[Q_LIST_OPEN],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(open_since), SQL_I(51)), 1},
		{"lobby, playing", SQL[Q_LIST_PLAYING], SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(51)),
		 1},
		{"lobby, all", SQL[Q_LIST_UNFINISHED],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(open_since), SQL_I(51)), 1},
		/* not a client's: the owners' poll, every second on the loop */
		{"unowned games", SQL[Q_LIST_UNOWNED], SQL_ARGS(SQL_S(""), SQL_I(256)), 1},
	};
	return store_explain(base, own, (int)(sizeof own / sizeof own[0]), account, fn, ctx, err);
}

static const store_ops PG_OPS = {
	.name = "postgresql",
	.close = pg_close,
	.create_game = pg_create_game,
	.update_seat = pg_update_seat,
	.set_status = pg_set_status,
	.add_move = pg_add_move,
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
	.skeleton_taken = pg_skeleton_taken,
	.accounts_unskeletoned = pg_accounts_unskeletoned,
	.skeleton_add = pg_skeleton_add,
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
	.window_set = pg_window_set,
	.window_get = pg_window_get,
	.save_analysis = pg_save_analysis,
	.load_analysis = pg_load_analysis,
	STORE_SQL_OPS, /* store_friends.c, store_match.c, store_keep.c */
	.explain = pg_explain,
	.load_since = pg_load_since,
	.last_seq = pg_last_seq,
	.undo_moves = pg_undo_moves,
	.group_begin = pg_group_begin,
	.group_commit = pg_group_commit,
	.group_rollback = pg_group_rollback,
};

/* ---- opening ------------------------------------------------------------------------------ */

/* The migrations to 5, 15 and 16: the server's keys 'seat', 'recovery' and 'device',
 * 32 random bytes each, from pgcrypto's gen_random_bytes when that
 * extension is installed in the database, else from the kernel here
 * (srv_random_hex: getrandom). */
static int make_key(pg_store *s, const char *name, char *err);

static int seat_key_hook(pg_store *s, char *err)
{
	return make_key(s, "seat", err);
}

static int recovery_key_hook(pg_store *s, char *err)
{
	return make_key(s, "recovery", err);
}

static int device_key_hook(pg_store *s, char *err)
{
	return make_key(s, "device", err);
}

/* The migration to 19: every move of before is a tile step of its turn
 * (a turn was one step), its kind written by the engine's name. */
static int step_kind_hook(pg_store *s, char *err)
{
	const char *v[1] = {carc_name(CARC_NAMES_STEP, CARC_STEP_TILE)};
	PGresult *r = PQexecParams(s->conn, "UPDATE moves SET turn = step, kind = $1", 1, NULL, v,
	                           NULL, NULL, 0);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		pgs_fail(s, r, err, "numbering the moves' turns and kinds");
	PQclear(r);
	return ok ? 0 : -1;
}

static int make_key(pg_store *s, const char *name, char *err)
{
	PGresult *r = PQexec(s->conn, "SELECT 1 FROM pg_extension WHERE extname='pgcrypto'");
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		pgs_fail(s, r, err, "looking for pgcrypto");
		PQclear(r);
		return -1;
	}
	int pgcrypto = PQntuples(r) == 1;
	PQclear(r);
	char hex[65];
	if (pgcrypto)
		hex[0] = 0;
	else
		srv_random_hex(hex, 32);
	const char *v[2] = {name, hex};
	r = PQexecParams(s->conn, pgcrypto ? "INSERT INTO server_keys VALUES ($1, gen_random_bytes(32))"
	                                   : "INSERT INTO server_keys VALUES ($1, decode($2, 'hex'))",
	                 pgcrypto ? 1 : 2, NULL, v, NULL, NULL, 0);
	explicit_bzero(hex, sizeof hex);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		pgs_fail(s, r, err, "making the server key");
	PQclear(r);
	return ok ? 0 : -1;
}

static int migrate(pg_store *s, char *err)
{
	if (pgs_exec_plain(s, "BEGIN", err))
		return -1;
	if (pgs_exec_plain(s, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", err) ||
	    pgs_exec_plain(s, "CREATE TABLE IF NOT EXISTS carc_schema (version integer NOT NULL);"
	                      "INSERT INTO carc_schema SELECT 0 WHERE NOT EXISTS"
	                      " (SELECT 1 FROM carc_schema)",
	                   err))
		goto bad;
	PGresult *r = PQexec(s->conn, "SELECT version FROM carc_schema");
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		pgs_fail(s, r, err, "reading the schema version");
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
		if (pgs_exec_plain(s, MIGRATIONS[i].sql, err) ||
		    (MIGRATIONS[i].hook && MIGRATIONS[i].hook(s, err)) || pgs_exec_plain(s, sql, err))
			goto bad;
	}
	return pgs_exec_plain(s, "COMMIT", err);
bad:
	pgs_rollback(s);
	return -1;
}

static void no_notices(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int store_pg_writer_pid(void) { return atomic_load(&writer_pid); }

store *store_pg_open(const char *url, int writer, char *err)
{
	pg_store *s = srv_xcalloc(1, sizeof *s);
	s->base.ops = &PG_OPS;
	s->base.sql = &pgs_sql;
	s->writer = writer;
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
	if (pgs_exec_plain(s, "SET synchronous_commit = on", err) ||
	    (writer && migrate(s, err)) || prepare_all(s, err)) {
		pg_close(&s->base);
		return NULL;
	}
	return &s->base;
}
