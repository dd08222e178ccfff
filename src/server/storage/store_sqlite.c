/*
 * store_sqlite.c - the SQLite backend of store.h: opening the file, the
 * migrations, the statements, and the helpers every write goes through
 * (begin/commit/rollback, the group commit, the file check, the stream's
 * numbers). The rows themselves are written and read in
 * store_sqlite_games.c (games, seats, moves, results, ratings, clocks)
 * and store_sqlite_social.c (accounts, sessions, keys, chat, rematches,
 * analyses); the three share store_sqlite_int.h.
 *
 * The file is opened in WAL mode; every write is one transaction, or in a
 * group (group_begin, the writer's group commit) one savepoint of the
 * group's transaction (begin/commit/rollback below issue SAVEPOINT /
 * RELEASE / ROLLBACK TO then, and the file check runs once, before the
 * group's COMMIT). With the default synchronous=NORMAL a committed
 * transaction survives the server being killed (the WAL is written before
 * the commit returns; only a power cut can lose the last commits); --sync
 * full makes every commit fsync the WAL.
 *
 * The schema version is SQLite's user_version. MIGRATIONS[i] takes a
 * database from version i to i+1 inside one transaction; a file written by
 * a newer carc (a higher version) is refused rather than guessed at.
 *
 * One handle is used by one thread only (the writer thread writes, the
 * event loop reads with a handle of its own), so handles are opened with
 * SQLITE_OPEN_NOMUTEX; WAL lets the reader read while the writer writes.
 *
 * Storage faults: a file deleted or replaced under a running server goes on
 * taking writes on the open descriptor (SQLite's WAL mode does not notice),
 * and all of them are lost at the next start. So every commit is preceded
 * by file_check(): the path still names the file and the WAL that were
 * opened (device and inode, recorded at open), and both may be written
 * (faccessat, which also sees `chattr +i` and a read-only mount). A write
 * that fails the check is rolled back and refused (STORE_FAULT_GONE or
 * _READ_ONLY). Cost: two stat and two faccessat calls per write (see
 * docs/server.md, "Storage faults", for the measurement). Test builds
 * (CARC_DEBUG_CHECK) also honour CARC_TEST_STORE_FAULT: the name of a file
 * whose content ("read_only", "io", "full", "gone") fails every check while
 * it exists, for the faults a test cannot make for real.
 *
 * A connection opened while the file was read-only stays read-only;
 * probe() reopens it (and the checkpointer's) once the file is writable.
 *
 * Checkpoints (copying the WAL back into the database file, with an fsync)
 * do not run in the writer's commits, which would stall the event loop for
 * as long as the disk takes: automatic checkpoints are off on the writer's
 * connection, and a thread of this module checkpoints (PASSIVE, so it never
 * waits for the writer nor makes it wait) every CHECKPOINT_MS on a
 * connection of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_sqlite_int.h"
#include "store_sql.h"

static const char *const MIGRATIONS[] = {
	/* 0 -> 1: the first schema */
	"CREATE TABLE games ("
	"  id TEXT PRIMARY KEY,"
	"  status TEXT NOT NULL CHECK (status IN ('open','playing','over','view')),"
	"  players INTEGER NOT NULL,"
	"  farmers INTEGER NOT NULL,"
	"  farm_scoring TEXT NOT NULL,"
	"  small_city INTEGER NOT NULL,"
	"  expansions TEXT NOT NULL DEFAULT '[]',"
	"  seed INTEGER NOT NULL,"
	"  options TEXT NOT NULL DEFAULT '{}',"
	"  record TEXT,"
	"  created_ms INTEGER NOT NULL,"
	"  updated_ms INTEGER NOT NULL);"
	"CREATE INDEX games_by_status ON games(status, created_ms);"
	"CREATE TABLE seats ("
	"  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('open','human','bot')),"
	"  name TEXT NOT NULL DEFAULT '',"
	"  level TEXT NOT NULL DEFAULT '',"
	"  bot_spec TEXT NOT NULL DEFAULT '',"
	"  token TEXT NOT NULL DEFAULT '',"
	"  PRIMARY KEY (game_id, seat)) WITHOUT ROWID;"
	"CREATE TABLE moves ("
	"  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  turn INTEGER NOT NULL,"
	"  player INTEGER NOT NULL,"
	"  move INTEGER NOT NULL,"
	"  tile TEXT NOT NULL,"
	"  entry TEXT NOT NULL,"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (game_id, turn)) WITHOUT ROWID;"
	"CREATE TABLE results ("
	"  game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	"  scores TEXT NOT NULL,"
	"  by_kind TEXT NOT NULL,"
	"  winners TEXT NOT NULL,"
	"  finished_ms INTEGER NOT NULL);",
	/* 1 -> 2: seat colours (seats of older tables get the palette's
	 * colours in seat order, what the web client showed for them), and
	 * finished games listed newest first from the store */
	"ALTER TABLE seats ADD COLUMN colour TEXT NOT NULL DEFAULT '';"
	"UPDATE seats SET colour = CASE seat WHEN 0 THEN 'blue' WHEN 1 THEN 'red'"
	"  WHEN 2 THEN 'yellow' WHEN 3 THEN 'black' WHEN 4 THEN 'green' WHEN 5 THEN 'pink'"
	"  ELSE '' END;"
	"CREATE INDEX results_by_finish ON results(finished_ms, game_id);",
	/* 2 -> 3: seats keep the SHA-256 of their token, not the token
	 * (carc_token_hash is srv_token_hash, registered on the writer's
	 * connection). A plain token has 32 hex digits and a hash 64, so a
	 * hash is never hashed again. The players keep their tokens. */
	"UPDATE seats SET token = carc_token_hash(token) WHERE length(token) = 32;",
	/* 3 -> 4: the clocks (clock.c): the deadline of the turn being played
	 * and the clock's state (reserves, timeouts in a row, seats given up,
	 * how the game ended when it ended early), one row per game that has
	 * a clock or a seat given up */
	"CREATE TABLE clocks ("
	"  game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	"  turn INTEGER NOT NULL,"
	"  deadline_ms INTEGER NOT NULL,"
	"  state TEXT NOT NULL DEFAULT '{}') WITHOUT ROWID;",
	/* 4 -> 5: accounts (accounts.c): the account a seat belongs to (0: a
	 * guest), sessions by the SHA-256 of their cookie, Glicko-2 ratings
	 * and their history (ratings.c, written in the transaction of a
	 * game's last move), and the server's secret for the seat tokens of
	 * accounts (32 bytes from getrandom: carc_random_blob) */
	"CREATE TABLE accounts ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  name_key TEXT NOT NULL UNIQUE,"
	"  pwhash TEXT NOT NULL,"
	"  created_ms INTEGER NOT NULL,"
	"  rating REAL NOT NULL DEFAULT 1500,"
	"  rd REAL NOT NULL DEFAULT 350,"
	"  vol REAL NOT NULL DEFAULT 0.06,"
	"  games INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX accounts_by_rating ON accounts(rating DESC, name) WHERE games > 0;"
	"CREATE TABLE sessions ("
	"  hash TEXT PRIMARY KEY,"
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  created_ms INTEGER NOT NULL,"
	"  expires_ms INTEGER NOT NULL) WITHOUT ROWID;"
	"CREATE INDEX sessions_by_expiry ON sessions(expires_ms);"
	"ALTER TABLE seats ADD COLUMN account INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX seats_by_account ON seats(account) WHERE account <> 0;"
	"CREATE TABLE ratings ("
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL,"
	"  rating_before REAL NOT NULL,"
	"  rating_after REAL NOT NULL,"
	"  rd_after REAL NOT NULL,"
	"  vol_after REAL NOT NULL,"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (account, game_id)) WITHOUT ROWID;"
	"CREATE TABLE server_keys (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;"
	"INSERT INTO server_keys VALUES ('seat', carc_random_blob(32));",
	/* 5 -> 6 (chat.c, rematch.c): the chat lines of each game (at most
	 * --chat-max per game), and the rematch a finished game made */
	"CREATE TABLE chat ("
	"  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  n INTEGER NOT NULL,"
	"  seat INTEGER NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  text TEXT NOT NULL DEFAULT '',"
	"  phrase TEXT NOT NULL DEFAULT '',"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (game_id, n)) WITHOUT ROWID;"
	"ALTER TABLE games ADD COLUMN rematch TEXT;",
	/* 6 -> 7 (analysis.c): a finished game's analysis, as the JSON the
	 * API answers with (at most STORE_ANALYSIS_MAX bytes) */
	"CREATE TABLE analyses ("
	"  game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	"  analysis TEXT NOT NULL,"
	"  at_ms INTEGER NOT NULL) WITHOUT ROWID;",
	/* 7 -> 8: the table's stream, the number of its latest change (store.h) */
	"ALTER TABLE games ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;",
	/* 8 -> 9: unfinished tables are loaded when needed (tables.c): the
	 * lobby's pages walk the unfinished games newest first, the owners'
	 * poll the playing ones by id */
	"CREATE INDEX games_unfinished ON games(created_ms, id) WHERE status IN ('open','playing');"
	"CREATE INDEX games_listed ON games(status, created_ms, id);"
	"CREATE INDEX games_playing ON games(id) WHERE status = 'playing';",
	/* 9 -> 10: account names that look alike (skeleton.h): every form of
	 * every name is unique; accounts made before get theirs at start */
	"CREATE TABLE account_skeletons ("
	"  skel TEXT PRIMARY KEY,"
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE) WITHOUT ROWID;"
	"CREATE INDEX account_skeletons_account ON account_skeletons(account);",
	/* 10 -> 11 (undo.c): moves taken back in training games against bots */
	"ALTER TABLE games ADD COLUMN undos INTEGER NOT NULL DEFAULT 0;",
	/* 11 -> 12 (windows.c): the browser window that holds each seat's
	 * controls (issue 22), "" none */
	"ALTER TABLE seats ADD COLUMN window_id TEXT NOT NULL DEFAULT '';",
	/* 12 -> 13 (people/friends.c): friendships and requests (state 0 a
	 * request, 1 friends, 2 a request hidden from a blocker), blocks,
	 * invites to a seat, the social writes of the last hour (limits per
	 * account), presence (accounts.seen_ms) and who wrote a chat line */
	"CREATE TABLE friend_links ("
	"  a INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  b INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  state INTEGER NOT NULL,"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (a, b)) WITHOUT ROWID;"
	"CREATE INDEX friend_links_to ON friend_links(b, a);"
	"CREATE TABLE blocks ("
	"  blocker INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  blocked INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (blocker, blocked)) WITHOUT ROWID;"
	"CREATE INDEX blocks_by_blocked ON blocks(blocked, blocker);"
	"CREATE TABLE invites ("
	"  id INTEGER PRIMARY KEY,"
	"  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL,"
	"  from_account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  to_account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  at_ms INTEGER NOT NULL,"
	"  UNIQUE (game_id, to_account));"
	"CREATE INDEX invites_to ON invites(to_account, at_ms);"
	"CREATE TABLE social_log ("
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  kind INTEGER NOT NULL,"
	"  at_ms INTEGER NOT NULL);"
	"CREATE INDEX social_log_by_account ON social_log(account, kind, at_ms);"
	"ALTER TABLE accounts ADD COLUMN seen_ms INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE chat ADD COLUMN account INTEGER NOT NULL DEFAULT 0;",
	/* 13 -> 14: the quick-match queue (store_match.c, table/match.c):
	 * one entry per account, and each account's joins this minute */
	"CREATE TABLE match_queue ("
	"  account INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  pool TEXT NOT NULL,"
	"  rating REAL NOT NULL,"
	"  joined_ms INTEGER NOT NULL,"
	"  seen_ms INTEGER NOT NULL,"
	"  table_id TEXT NOT NULL DEFAULT '',"
	"  seat INTEGER NOT NULL DEFAULT -1);"
	"CREATE INDEX match_waiting ON match_queue(pool, joined_ms) WHERE table_id = '';"
	"CREATE INDEX match_seen ON match_queue(seen_ms);"
	"CREATE TABLE match_joins ("
	"  account INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	"  since_ms INTEGER NOT NULL,"
	"  n INTEGER NOT NULL);",
	/* 14 -> 15 (recovery.c): an account's recovery codes, each the
	 * HMAC-SHA256 (hex) of the code under the server key 'recovery',
	 * removed when used; never the code */
	"CREATE TABLE recovery_codes ("
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  hash TEXT NOT NULL,"
	"  created_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (account, hash)) WITHOUT ROWID;"
	"INSERT INTO server_keys VALUES ('recovery', carc_random_blob(32));",
	/* 15 -> 16: reads that cost what the asker owns (docs/server.md): a
	 * seat and a clock carry their game's status, kept by the triggers
	 * below whoever writes the game's row, the seat or the clock, so that
	 * an account's games of one status are one range of
	 * seats_by_account_status: friends' presence (playing), the records'
	 * download and a profile (over), my games (all of them); and the
	 * games being played with a bot or a clock (list_unowned) are the two
	 * small partial indexes seats_bots_playing and clocks_playing, not a
	 * walk of every game being played. seats_by_account goes, a partial
	 * index (account <> 0) that SQLite never takes for "account = ?" (it
	 * cannot prove a parameter is not 0); so does games_by_status:
	 * games_listed (status, created_ms, id) does what it did, in the
	 * lobby's order */
	"ALTER TABLE seats ADD COLUMN game_status TEXT NOT NULL DEFAULT '';"
	"UPDATE seats SET game_status = (SELECT status FROM games WHERE games.id = seats.game_id);"
	"ALTER TABLE clocks ADD COLUMN game_status TEXT NOT NULL DEFAULT '';"
	"UPDATE clocks SET game_status = (SELECT status FROM games WHERE games.id = clocks.game_id);"
	"CREATE TRIGGER seats_game_status_new AFTER INSERT ON seats BEGIN"
	"  UPDATE seats SET game_status = (SELECT status FROM games WHERE id = NEW.game_id)"
	"  WHERE game_id = NEW.game_id AND seat = NEW.seat; END;"
	"CREATE TRIGGER clocks_game_status_new AFTER INSERT ON clocks BEGIN"
	"  UPDATE clocks SET game_status = (SELECT status FROM games WHERE id = NEW.game_id)"
	"  WHERE game_id = NEW.game_id; END;"
	"CREATE TRIGGER games_status_to_seats AFTER UPDATE OF status ON games"
	"  WHEN OLD.status IS NOT NEW.status BEGIN"
	"  UPDATE seats SET game_status = NEW.status WHERE game_id = NEW.id;"
	"  UPDATE clocks SET game_status = NEW.status WHERE game_id = NEW.id; END;"
	"DROP INDEX seats_by_account;"
	"CREATE INDEX seats_by_account_status ON seats(account, game_status, game_id);"
	"CREATE INDEX seats_bots_playing ON seats(game_id)"
	"  WHERE kind = 'bot' AND game_status = 'playing';"
	"CREATE INDEX clocks_playing ON clocks(game_id) WHERE game_status = 'playing';"
	"DROP INDEX games_by_status;",
	/* 16 -> 17 (issue 26). Ratings that fresh accounts cannot buy
	 * (ratings.h, store_rating.c): an account's rated games in which
	 * another seat was established, the distinct established opponents it
	 * met (an account's id, or a bot as minus its fixed rating: the
	 * built-in specs' ratings of ratings.c, other specs as one opponent)
	 * and whether it is established, which the leaderboard's partial
	 * index reads. Accounts from before keep the games and opponents they
	 * had, judged by the default thresholds (10 games, 3 opponents).
	 * Quick match (store_match.c): each entry's address key and recent
	 * opponents, and a note for one left out of a table; who sat at which
	 * quick-match table; the holds of no-shows; the people a void table
	 * sends back to the front of the queue */
	"ALTER TABLE accounts ADD COLUMN est_games INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE accounts ADD COLUMN opponents INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE accounts ADD COLUMN established INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE rating_opponents ("
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  opponent INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (account, opponent)) WITHOUT ROWID;"
	"CREATE INDEX rating_opponents_of ON rating_opponents(opponent);"
	"CREATE TABLE rating_bots ("
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  bot INTEGER NOT NULL,"
	"  PRIMARY KEY (account, bot)) WITHOUT ROWID;"
	"INSERT OR IGNORE INTO rating_opponents (account, opponent)"
	"  SELECT r.account, s.account FROM ratings r JOIN seats s ON s.game_id = r.game_id"
	"  WHERE s.kind = 'human' AND s.account NOT IN (0, r.account);"
	"INSERT OR IGNORE INTO rating_bots (account, bot)"
	"  SELECT r.account, CASE s.bot_spec WHEN 'random' THEN 1000 WHEN 'softgreedy' THEN 1159"
	"   WHEN 'greedy' THEN 1700 WHEN 'mcts:time=0.1' THEN 2304 WHEN 'mcts:time=1' THEN 2408"
	"   ELSE 0 END"
	"  FROM ratings r JOIN seats s ON s.game_id = r.game_id WHERE s.kind = 'bot';"
	"UPDATE accounts SET est_games = games,"
	"  opponents = (SELECT count(*) FROM rating_opponents o WHERE o.account = accounts.id)"
	"   + (SELECT count(*) FROM rating_bots b WHERE b.account = accounts.id);"
	"UPDATE accounts SET established = 1 WHERE est_games >= 10 AND opponents >= 3;"
	"DROP INDEX accounts_by_rating;"
	"CREATE INDEX accounts_board ON accounts(rating DESC, name) WHERE established = 1;"
	"ALTER TABLE match_queue ADD COLUMN addr TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE match_queue ADD COLUMN recent TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE match_queue ADD COLUMN note TEXT NOT NULL DEFAULT '';"
	"DROP INDEX match_waiting;"
	"CREATE INDEX match_waiting ON match_queue(pool, joined_ms)"
	"  WHERE table_id = '' AND note = '';"
	"CREATE TABLE match_seats ("
	"  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
	"  table_id TEXT NOT NULL,"
	"  seat INTEGER NOT NULL,"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (account, table_id)) WITHOUT ROWID;"
	"CREATE INDEX match_seats_table ON match_seats(table_id);"
	"CREATE INDEX match_seats_at ON match_seats(at_ms);"
	"CREATE INDEX match_seats_recent ON match_seats(account, at_ms);"
	"CREATE TABLE match_holds ("
	"  account INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	"  strikes INTEGER NOT NULL,"
	"  until_ms INTEGER NOT NULL);"
	"CREATE TABLE match_voids ("
	"  account INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,"
	"  table_id TEXT NOT NULL,"
	"  front_ms INTEGER NOT NULL,"
	"  at_ms INTEGER NOT NULL);",
	/* 17 -> 18 (issue 26): the account's epoch, in the HMAC of its seat
	 * tokens (accounts.h: a password change or a recovery moves it on, and
	 * every token handed out before stops working), and the server key of
	 * the device cookies that let a browser that logged in before past the
	 * failed-login guard (loginguard.h) */
	("ALTER TABLE accounts ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;"
	 "INSERT INTO server_keys VALUES ('device', carc_random_blob(32));"),
	/* 18 -> 19 (issue 27): a turn is a sequence of steps, and the step is
	 * the unit of storage. A game's moves are keyed by their step (the
	 * old key column, renamed: in the games of before a turn was one
	 * step, so every row keeps its number), with the turn each belongs to
	 * and its kind by the engine's name (carc_step_name(k) is
	 * carc_name(CARC_NAMES_STEP, k), registered on the writer's
	 * connection; every row of before is a tile step, CARC_STEP_TILE = 0).
	 * A clock runs for a step (the decision of the player it waits for).
	 * The UPDATE rewrites every row of moves: docs/server.md ("Steps in
	 * the store") has its time on a big database */
	"ALTER TABLE moves RENAME COLUMN turn TO step;"
	"ALTER TABLE moves ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE moves ADD COLUMN kind TEXT NOT NULL DEFAULT '';"
	"UPDATE moves SET turn = step, kind = carc_step_name(0);"
	"ALTER TABLE clocks RENAME COLUMN turn TO step;",
};
#define NMIGRATIONS ((int)(sizeof MIGRATIONS / sizeof MIGRATIONS[0]))

static const char *const SQL[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	/* a write inside a group (group_begin): one savepoint per write */
	[ST_SAVEPOINT] = "SAVEPOINT w",
	[ST_RELEASE] = "RELEASE w",
	[ST_ROLLBACK_TO] = "ROLLBACK TO w",
	[ST_INS_GAME] = "INSERT INTO games (id, status, players, farmers, farm_scoring, small_city,"
	                " expansions, seed, options, record, created_ms, updated_ms)"
	                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_INS_SEAT] = "INSERT INTO seats (game_id, seat, kind, name, level, bot_spec, token,"
	                " colour, account) VALUES (?,?,?,?,?,?,?,?,?)",
	[ST_UPD_SEAT] = "UPDATE seats SET kind=?, name=?, level=?, bot_spec=?, token=?, colour=?,"
	                " account=? WHERE game_id=? AND seat=?",
	[ST_SET_STATUS] = "UPDATE games SET status=?, updated_ms=? WHERE id=?",
	[ST_INS_MOVE] = "INSERT INTO moves (game_id, step, turn, kind, player, move, tile, entry,"
	                " at_ms) VALUES (?,?,?,?,?,?,?,?,?)",
	[ST_TOUCH] = "UPDATE games SET status=?, updated_ms=? WHERE id=?",
	[ST_INS_RESULT] = "INSERT INTO results (game_id, scores, by_kind, winners, finished_ms)"
	                  " VALUES (?,?,?,?,?)",
	[ST_SEL_ONE] = "SELECT id, status, players, farmers, farm_scoring, small_city, expansions,"
	               " seed, options, record, created_ms, updated_ms, seq, undos FROM games WHERE id=?",
	[ST_SEL_SEATS] = "SELECT seat, kind, name, level, bot_spec, token, colour, account FROM seats"
	                 " WHERE game_id=? ORDER BY seat",
	[ST_SEL_MOVES] = "SELECT step, turn, kind, player, move, tile, entry, at_ms FROM moves"
	                 " WHERE game_id=? ORDER BY step",
	[ST_COUNTS] = "SELECT status, count(*) FROM games GROUP BY status",
	[ST_SEL_FINISHED_AT] = "SELECT r.finished_ms FROM results r JOIN games g ON g.id = r.game_id"
	                       " WHERE r.game_id=? AND g.status='over'",
	/* the game's columns in the order of ST_SEL_ONE, then the result's.
	 * CROSS JOIN keeps results outside, so the page is read by walking
	 * results_by_finish backwards from the cursor (?1 ms, ?2 id), not by
	 * sorting every finished game */
	[ST_LIST_FINISHED] =
	    "SELECT g.id, g.status, g.players, g.farmers, g.farm_scoring, g.small_city,"
	    " g.expansions, g.seed, g.options, g.record, g.created_ms, g.updated_ms,"
	    " r.scores, r.by_kind, r.winners, r.finished_ms,"
	    " (SELECT count(*) FROM moves m WHERE m.game_id = g.id),"
	    " (SELECT json_extract(c.state,'$.ended') FROM clocks c WHERE c.game_id = g.id),"
	    " (SELECT coalesce(max(m.turn) + 1, 0) FROM moves m WHERE m.game_id = g.id)"
	    " FROM results r CROSS JOIN games g ON g.id = r.game_id"
	    " WHERE g.status='over' AND coalesce(json_extract(g.options,'$.private'),0) = 0"
	    "  AND r.finished_ms <= ?1 AND (r.finished_ms < ?1 OR r.game_id < ?2)"
	    " ORDER BY r.finished_ms DESC, r.game_id DESC LIMIT ?3",
	/* the lobby, one statement a status, each walking its index from the
	 * cursor in its order (no sort: a page reads about a page): ?1 ?2 the
	 * cursor, ?3 the oldest open game still open, ?4 the limit. Open
	 * tables: games_listed from the cursor down to ?3 */
	[ST_LIST_OPEN] =
	    "SELECT id, created_ms FROM games"
	    " WHERE status = 'open' AND created_ms >= ?3"
	    "  AND coalesce(json_extract(options,'$.private'),0) = 0"
	    "  AND created_ms <= ?1 AND (created_ms < ?1 OR id < ?2)"
	    " ORDER BY created_ms DESC, id DESC LIMIT ?4",
	/* tables being played: games_listed from the cursor (?3 unused) */
	[ST_LIST_PLAYING] =
	    "SELECT id, created_ms FROM games"
	    " WHERE status = 'playing'"
	    "  AND coalesce(json_extract(options,'$.private'),0) = 0"
	    "  AND created_ms <= ?1 AND (created_ms < ?1 OR id < ?2)"
	    " ORDER BY created_ms DESC, id DESC LIMIT ?4",
	/* both: games_unfinished from the cursor */
	[ST_LIST_UNFINISHED] =
	    "SELECT id, created_ms FROM games INDEXED BY games_unfinished"
	    " WHERE status IN ('open','playing')"
	    "  AND (status <> 'open' OR created_ms >= ?3)"
	    "  AND coalesce(json_extract(options,'$.private'),0) = 0"
	    "  AND created_ms <= ?1 AND (created_ms < ?1 OR id < ?2)"
	    " ORDER BY created_ms DESC, id DESC LIMIT ?4",
	/* the games being played with a bot seat or a clock row, by id from
	 * ?1: a page of each of the two partial indexes that hold only those
	 * (schema 16), merged */
	[ST_LIST_UNOWNED] =
	    "SELECT game_id FROM (SELECT game_id FROM seats WHERE kind = 'bot'"
	    "  AND game_status = 'playing' AND game_id > ?1 ORDER BY game_id LIMIT ?2)"
	    " UNION SELECT game_id FROM (SELECT game_id FROM clocks WHERE game_status = 'playing'"
	    "  AND game_id > ?1 ORDER BY game_id LIMIT ?2)"
	    " ORDER BY 1 LIMIT ?2",
	[ST_UPS_CLOCK] = "INSERT INTO clocks (game_id, step, deadline_ms, state) VALUES (?,?,?,?)"
	                 " ON CONFLICT(game_id) DO UPDATE SET step=excluded.step,"
	                 " deadline_ms=excluded.deadline_ms, state=excluded.state",
	[ST_SEL_CLOCK] = "SELECT step, deadline_ms, state FROM clocks WHERE game_id=?",
	[ST_INS_ACCOUNT] = "INSERT INTO accounts (name, name_key, pwhash, created_ms) VALUES (?,?,?,?)",
	[ST_SEL_ACC_NAME] = "SELECT id, name, pwhash, created_ms, rating, rd, vol, games, established, epoch"
	                    " FROM accounts"
	                    " WHERE name_key=?",
	[ST_SEL_ACC_ID] = "SELECT id, name, pwhash, created_ms, rating, rd, vol, games, established, epoch"
	                  " FROM accounts"
	                  " WHERE id=?",
	[ST_INS_SESSION] = "INSERT INTO sessions (hash, account, created_ms, expires_ms) VALUES (?,?,?,?)",
	[ST_DEL_EXPIRED] = "DELETE FROM sessions WHERE expires_ms <= ?",
	[ST_SEL_SESSION] = "SELECT a.id, a.name, a.pwhash, a.created_ms, a.rating, a.rd, a.vol, a.games,"
	                   " a.established, a.epoch"
	                   " FROM sessions s JOIN accounts a ON a.id = s.account"
	                   " WHERE s.hash=? AND s.expires_ms > ?",
	[ST_DEL_SESSION] = "DELETE FROM sessions WHERE hash=?",
	[ST_SEL_KEY] = "SELECT value FROM server_keys WHERE name=?",
	/* the game's columns in the order of ST_SEL_ONE, then the seat, the
	 * result's (NULL while unfinished) and the rating change's */
	[ST_ACC_GAMES] =
	    "SELECT g.id, g.status, g.players, g.farmers, g.farm_scoring, g.small_city,"
	    " g.expansions, g.seed, g.options, g.record, g.created_ms, g.updated_ms,"
	    " s.seat, r.scores, r.by_kind, r.winners, r.finished_ms,"
	    " t.rating_before, t.rating_after, t.rd_after, t.at_ms"
	    " FROM seats s JOIN games g ON g.id = s.game_id"
	    " LEFT JOIN results r ON r.game_id = g.id"
	    " LEFT JOIN ratings t ON t.account = s.account AND t.game_id = g.id"
	    " WHERE s.account = ?1 AND (?2 = 0 OR s.game_status = 'over')"
	    " ORDER BY g.updated_ms DESC, g.id DESC LIMIT ?3",
	/* established accounts only (ratings.h): the partial index accounts_board */
	[ST_LEADERBOARD] = "SELECT id, name, '', created_ms, rating, rd, vol, games, established"
	                   " FROM accounts WHERE established = 1"
	                   " ORDER BY rating DESC, name LIMIT ? OFFSET ?",
	/* the table's next sequence number (store.h, "The table's stream") */
	/* undo.c: the moves that stand, then the ones taken back */
	[ST_COUNT_MOVES] = "SELECT count(*) FROM moves WHERE game_id=?",
	[ST_DEL_MOVES] = "DELETE FROM moves WHERE game_id=? AND step >= ?",
	[ST_UNDO_GAME] = "UPDATE games SET undos = undos + ?, updated_ms = ? WHERE id=?",
};

#define CHECKPOINT_MS 250
#define WAL_MAX_FRAMES 32768 /* 128 MiB of 4 KiB pages */

static int open_ckdb(sqlite_store *s);

static void *checkpointer(void *arg)
{
	sqlite_store *s = arg;
	pthread_mutex_lock(&s->ck_mu);
	while (!s->ck_stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += CHECKPOINT_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		int rc = 0;
		while (!s->ck_stop && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&s->ck_cv, &s->ck_mu, &ts);
		if (s->ck_stop)
			break;
		if (s->ck_reopen) {
			/* opened while the file was read-only (see probe) */
			s->ck_reopen = 0;
			sqlite3_close(s->ckdb);
			s->ckdb = NULL;
			if (open_ckdb(s)) {
				sqlite3_close(s->ckdb);
				s->ckdb = NULL;
			}
		}
		if (!s->ckdb)
			continue;
		pthread_mutex_unlock(&s->ck_mu);
		int logged = 0, done = 0;
		sqlite3_wal_checkpoint_v2(s->ckdb, NULL, SQLITE_CHECKPOINT_PASSIVE, &logged, &done);
		/* a writer that never pauses keeps a passive checkpoint from ever
		 * having copied everything, so the WAL is never rewound and grows
		 * without end. Past WAL_MAX_FRAMES, a RESTART checkpoint makes the
		 * writer wait while it copies what the last passive pass left (a
		 * quarter second's moves) and has the next commit rewind the WAL.
		 * The file keeps its size and is reused (no truncation: freeing
		 * the blocks of a large file is what takes long). */
		if (logged > WAL_MAX_FRAMES)
			sqlite3_wal_checkpoint_v2(s->ckdb, NULL, SQLITE_CHECKPOINT_RESTART, NULL, NULL);
		pthread_mutex_lock(&s->ck_mu);
		if (s->ck_truncate) {
			/* an account was deleted: the old pages that held it leave
			 * the WAL (TRUNCATE waits, up to the busy timeout, for the
			 * writer's group to commit; a pass that could not is tried
			 * again at the next round) */
			pthread_mutex_unlock(&s->ck_mu);
			int trc = sqlite3_wal_checkpoint_v2(s->ckdb, NULL, SQLITE_CHECKPOINT_TRUNCATE,
			                                    NULL, NULL);
			pthread_mutex_lock(&s->ck_mu);
			if (trc == SQLITE_OK)
				s->ck_truncate = 0;
		}
	}
	pthread_mutex_unlock(&s->ck_mu);
	return NULL;
}

_Static_assert(STORE_TOKEN_HASH_SIZE == 65, "srv_token_hash writes 64 hex digits and a NUL");

static const char *const FAULT_TEXT[STORE_FAULT_COUNT] = {
	[STORE_FAULT_NONE] = "it works",
	[STORE_FAULT_READ_ONLY] = "the database is read-only",
	[STORE_FAULT_GONE] = "the database file was deleted or replaced while the server runs",
	[STORE_FAULT_FULL] = "the disk is full",
	[STORE_FAULT_IO] = "a disk error",
	[STORE_FAULT_BUSY] = "the database is locked by another program",
	[STORE_FAULT_OTHER] = "the database refused the write",
	[STORE_FAULT_DOWN] = "the database server cannot be reached",
};

const char *store_fault_text(store_fault f)
{
	return f < STORE_FAULT_COUNT ? FAULT_TEXT[f] : FAULT_TEXT[STORE_FAULT_OTHER];
}

/* The fault behind a failed SQLite call on s->db. */
static store_fault fault_of(sqlite_store *s)
{
	int rc = sqlite3_extended_errcode(s->db), en = sqlite3_system_errno(s->db);
	switch (rc & 0xff) {
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return STORE_FAULT_READ_ONLY;
	case SQLITE_FULL:
		return STORE_FAULT_FULL;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
		return en == ENOSPC ? STORE_FAULT_FULL
		       : en == EROFS || en == EPERM || en == EACCES ? STORE_FAULT_READ_ONLY
		                                                    : STORE_FAULT_IO;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return STORE_FAULT_IO;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return STORE_FAULT_BUSY;
	default:
		return STORE_FAULT_OTHER;
	}
}

int sq_fail(sqlite_store *s, char *err, const char *what)
{
	snprintf(err, STORE_ERR_SIZE, "sqlite: %s: %s", what, sqlite3_errmsg(s->db));
	s->fault = fault_of(s);
	return -1;
}

/* The identity of the file at `path`: 0, or -1 when there is none. */
static int file_id(const char *path, dev_t *dev, ino_t *ino)
{
	struct stat st;
	if (stat(path, &st))
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* Records the database file and its WAL as they are now (after open). */
static void remember_files(sqlite_store *s)
{
	s->has_file = s->path && !file_id(s->path, &s->dev, &s->ino);
	s->has_wal = s->has_file && s->wal_path && !file_id(s->wal_path, &s->wal_dev, &s->wal_ino);
}

static store_fault same_file(const char *path, dev_t dev, ino_t ino, char *err)
{
	struct stat st;
	if (stat(path, &st)) {
		snprintf(err, STORE_ERR_SIZE, "the database file %s is gone: %s", path, strerror(errno));
		return STORE_FAULT_GONE;
	}
	if (st.st_dev != dev || st.st_ino != ino) {
		snprintf(err, STORE_ERR_SIZE,
		         "%s is not the file the server opened (it was replaced)", path);
		return STORE_FAULT_GONE;
	}
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS)) {
		snprintf(err, STORE_ERR_SIZE, "the database file %s may not be written: %s", path,
		         strerror(errno));
		return STORE_FAULT_READ_ONLY;
	}
	return STORE_FAULT_NONE;
}

/* Test builds: the fault the file named by CARC_TEST_STORE_FAULT asks for. */
static store_fault injected(const sqlite_store *s, char *err)
{
	return store_test_fault(s->fault_file, 0, err);
}

/* The files at the paths are the ones opened, and writable. */
static store_fault files_ok(sqlite_store *s, char *err)
{
	store_fault f = injected(s, err);
	if (f != STORE_FAULT_NONE || !s->has_file)
		return f;
	f = same_file(s->path, s->dev, s->ino, err);
	if (f == STORE_FAULT_NONE && s->has_wal)
		f = same_file(s->wal_path, s->wal_dev, s->wal_ino, err);
	return f;
}

/* See the top: whether a commit now would land in the file at the path. */
static store_fault file_check(sqlite_store *s, char *err)
{
	store_fault f = files_ok(s, err);
	if (f == STORE_FAULT_NONE && atomic_load(&s->read_only)) {
		snprintf(err, STORE_ERR_SIZE,
		         "the database %s was opened read-only (it was not writable then)", s->path);
		f = STORE_FAULT_READ_ONLY;
	}
	return f;
}

int store_sqlite_schema_version(void) { return NMIGRATIONS; }

/* Runs a statement that returns no rows, then resets it. */
int sq_step_done(sqlite_store *s, int k, char *err)
{
	sqlite3_stmt *st = s->st[k];
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sq_fail(s, err, SQL[k]);
	return 0;
}

/* A write's transaction (or, in a group, its savepoint) ends without
 * effect. SQLite rolls the whole transaction back by itself after some
 * errors (a full disk, an I/O error, SQLITE_BUSY): in a group that loses
 * every write of it, which group_commit then reports. */
void sq_rollback(sqlite_store *s)
{
	if (!s->group) {
		sqlite3_step(s->st[ST_ROLLBACK]);
		sqlite3_reset(s->st[ST_ROLLBACK]);
		return;
	}
	if (!s->group_lost && !sqlite3_get_autocommit(s->db)) {
		int rc = sqlite3_step(s->st[ST_ROLLBACK_TO]);
		sqlite3_reset(s->st[ST_ROLLBACK_TO]);
		if (rc == SQLITE_DONE) {
			rc = sqlite3_step(s->st[ST_RELEASE]);
			sqlite3_reset(s->st[ST_RELEASE]);
		}
		if (rc == SQLITE_DONE)
			return;
	}
	if (!s->group_lost) {
		s->group_lost = 1;
		s->group_fault = s->fault != STORE_FAULT_NONE ? s->fault : STORE_FAULT_OTHER;
		snprintf(s->group_err, sizeof s->group_err,
		         "sqlite: the group's transaction was rolled back: %s", sqlite3_errmsg(s->db));
	}
}

/* In a group whose transaction was lost: -1 with that fault. */
static int group_gone(sqlite_store *s, char *err)
{
	if (!s->group_lost)
		return 0;
	snprintf(err, STORE_ERR_SIZE, "%s", s->group_err);
	s->fault = s->group_fault;
	return -1;
}

/* Commits the open transaction if the file can keep it (file_check), else
 * rolls it back. 0, or -1 with the fault set and nothing written. In a
 * group it releases the write's savepoint: the file is checked at
 * group_commit. */
int sq_commit(sqlite_store *s, char *err)
{
	if (s->group) {
		if (group_gone(s, err))
			return -1;
		if (sq_step_done(s, ST_RELEASE, err)) {
			sq_rollback(s);
			return -1;
		}
		return 0;
	}
	store_fault f = file_check(s, err);
	if (f != STORE_FAULT_NONE) {
		s->fault = f;
		sq_rollback(s);
		return -1;
	}
	if (sq_step_done(s, ST_COMMIT, err)) {
		sq_rollback(s);
		return -1;
	}
	return 0;
}

/* A write's BEGIN IMMEDIATE, or in a group its SAVEPOINT. */
int sq_begin(sqlite_store *s, char *err)
{
	s->fault = STORE_FAULT_NONE;
	if (!s->group)
		return sq_step_done(s, ST_BEGIN, err);
	if (group_gone(s, err))
		return -1;
	if (sqlite3_get_autocommit(s->db)) {
		/* lost without a sq_rollback() seeing it: never write outside it */
		s->fault = STORE_FAULT_OTHER;
		sq_rollback(s);
		return group_gone(s, err);
	}
	return sq_step_done(s, ST_SAVEPOINT, err);
}

static int sq_group_begin(store *base, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	s->group = 1;
	s->group_lost = 0;
	return 0;
}

static int sq_group_commit(store *base, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	int lost = s->group_lost || sqlite3_get_autocommit(s->db);
	if (lost && !s->group_lost) {
		s->group_fault = STORE_FAULT_OTHER;
		snprintf(s->group_err, sizeof s->group_err, "sqlite: the group's transaction was lost");
	}
	s->group = s->group_lost = 0;
	s->fault = STORE_FAULT_NONE;
	if (lost) {
		snprintf(err, STORE_ERR_SIZE, "%s", s->group_err);
		s->fault = s->group_fault;
		if (!sqlite3_get_autocommit(s->db))
			sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

static void sq_group_rollback(store *base)
{
	sqlite_store *s = (sqlite_store *)base;
	s->group = s->group_lost = 0;
	if (!sqlite3_get_autocommit(s->db))
		sq_rollback(s);
}

void sq_wal_truncate(sqlite_store *s)
{
	if (!s->ck_running) {
		/* no checkpointer (its thread could not start): the writer's
		 * connection tries, which works only outside a group's
		 * transaction; else the WAL keeps the pages until it is reused */
		sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		return;
	}
	pthread_mutex_lock(&s->ck_mu);
	s->ck_truncate = 1;
	pthread_cond_signal(&s->ck_cv);
	pthread_mutex_unlock(&s->ck_mu);
}

/* No stream on SQLite: one process writes the file (cluster.c runs only
 * on PostgreSQL), so its tables in memory are the only ones and need no
 * numbers to follow another's writes; games.seq stays 0. Numbering every
 * write cost each move an UPDATE of the game's row (about 15% of a move's
 * instructions; bench/load/README.md). */
static int64_t sq_last_seq(store *base, const char *id)
{
	(void)base, (void)id;
	return 0;
}

void sq_bind_text(sqlite3_stmt *st, int i, const char *t)
{
	sqlite3_bind_text(st, i, t ? t : "", -1, SQLITE_TRANSIENT);
}

static void sq_close(store *base)
{
	sqlite_store *s = (sqlite_store *)base;
	if (!s)
		return;
	if (s->ck_running) {
		pthread_mutex_lock(&s->ck_mu);
		s->ck_stop = 1;
		pthread_cond_signal(&s->ck_cv);
		pthread_mutex_unlock(&s->ck_mu);
		pthread_join(s->ck, NULL);
		s->ck_running = 0;
	}
	if (s->ckdb)
		sqlite3_close(s->ckdb);
	if (s->db)
		sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->path);
	free(s->wal_path);
	free(s->fault_file);
	free(s);
}

static store_fault sq_last_fault(store *base) { return ((sqlite_store *)base)->fault; }

static store_fault sq_check(store *base, char *err) { return file_check((sqlite_store *)base, err); }

static int exec(sqlite_store *s, sqlite3 *db, const char *sql, char *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, STORE_ERR_SIZE, "sqlite: %s: %s", sql, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		if (db == s->db)
			s->fault = fault_of(s);
		return -1;
	}
	return 0;
}

static int open_conn(sqlite_store *s, int writer, sqlite3 **dbp, sqlite3_stmt **st, char *err);

static int sq_probe(store *base, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = files_ok(s, err);
	if (s->fault != STORE_FAULT_NONE)
		return -1;
	if (atomic_load(&s->read_only)) {
		/* opened while the file was read-only: a new connection may write */
		sqlite3 *db = NULL;
		sqlite3_stmt *st[ST_COUNT] = {NULL};
		if (open_conn(s, 1, &db, st, err)) {
			s->fault = STORE_FAULT_READ_ONLY;
			return -1;
		}
		for (int i = 0; i < ST_COUNT; i++) {
			sqlite3_finalize(s->st[i]);
			s->st[i] = st[i];
		}
		sqlite3_close(s->db);
		s->db = db;
		atomic_store(&s->read_only, sqlite3_db_readonly(db, "main") == 1);
		if (s->ck_running) {
			sqlite3_wal_autocheckpoint(s->db, 0);
			pthread_mutex_lock(&s->ck_mu);
			s->ck_reopen = 1;
			pthread_mutex_unlock(&s->ck_mu);
		}
	}
	/* setting the schema version to what it is writes the header page */
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d", NMIGRATIONS);
	if (sq_begin(s, err))
		return -1;
	if (exec(s, s->db, sql, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

/* The store's own list statements with an asker's arguments (see
 * store_plans.c): the limits the callers pass, the cursors at their
 * start, open tables of the last half hour. */
static int sq_explain(store *base, int64_t account, store_plan_fn fn, void *ctx, char *err)
{
	int64_t open_since = srv_now_ms() - 1800 * 1000;
	const store_list_sql own[] = {
		{"my games", SQL[ST_ACC_GAMES], SQL_A3(account, 0, 100), 1},
		{"profile", SQL[ST_ACC_GAMES], SQL_A3(account, 1, 500), 1},
		{"leaderboard", SQL[ST_LEADERBOARD], SQL_A2(51, 0), 1},
		{"leaderboard, last page", SQL[ST_LEADERBOARD], SQL_A2(51, 10000), 1},
		{"finished games", SQL[ST_LIST_FINISHED],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(51)), 1},
		{"lobby, open", SQL[ST_LIST_OPEN],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(open_since), SQL_I(51)), 1},
		{"lobby, playing", SQL[ST_LIST_PLAYING],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(open_since), SQL_I(51)), 1},
		{"lobby, all", SQL[ST_LIST_UNFINISHED],
		 SQL_ARGS(SQL_I(INT64_MAX), SQL_S(""), SQL_I(open_since), SQL_I(51)), 1},
		/* not a client's: the games with bots or clocks, at a start */
		{"unowned games", SQL[ST_LIST_UNOWNED], SQL_ARGS(SQL_S(""), SQL_I(256)), 1},
	};
	return store_explain(base, own, (int)(sizeof own / sizeof own[0]), account, fn, ctx, err);
}

static const store_ops SQLITE_OPS = {
	.name = "sqlite",
	.close = sq_close,
	.create_game = sq_create_game,
	.update_seat = sq_update_seat,
	.set_status = sq_set_status,
	.add_move = sq_add_move,
	.load_one = sq_load_one,
	.counts = sq_counts,
	.list_finished = sq_list_finished,
	.list_unfinished = sq_list_unfinished,
	.list_unowned = sq_list_unowned,
	.last_fault = sq_last_fault,
	.check = sq_check,
	.probe = sq_probe,
	.delete_game = sq_delete_game,
	.upload_usage = sq_upload_usage,
	.save_clock = sq_save_clock,
	.load_clock = sq_load_clock,
	.account_create = sq_account_create,
	.account_by_name = sq_account_by_name,
	.skeleton_taken = sq_skeleton_taken,
	.accounts_unskeletoned = sq_accounts_unskeletoned,
	.skeleton_add = sq_skeleton_add,
	.account_by_id = sq_account_by_id,
	.session_create = sq_session_create,
	.session_get = sq_session_get,
	.session_delete = sq_session_delete,
	.get_key = sq_get_key,
	.account_games = sq_account_games,
	.leaderboard = sq_leaderboard,
	.add_chat = sq_add_chat,
	.list_chat = sq_list_chat,
	.last_seq = sq_last_seq,
	.undo_moves = sq_undo_moves,
	.count_chat = sq_count_chat,
	.create_rematch = sq_create_rematch,
	.get_rematch = sq_get_rematch,
	.window_set = sq_window_set,
	.window_get = sq_window_get,
	.save_analysis = sq_save_analysis,
	.load_analysis = sq_load_analysis,
	STORE_SQL_OPS, /* store_friends.c, store_match.c, store_keep.c */
	.explain = sq_explain,
	.group_begin = sq_group_begin,
	.group_commit = sq_group_commit,
	.group_rollback = sq_group_rollback,
};

static int migrate(sqlite_store *s, sqlite3 *db, char *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, STORE_ERR_SIZE, "sqlite: reading the schema version: %s",
		         sqlite3_errmsg(db));
		return -1;
	}
	int version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (version > NMIGRATIONS) {
		snprintf(err, STORE_ERR_SIZE,
		         "database schema version %d is newer than this carc knows (%d)", version,
		         NMIGRATIONS);
		return -1;
	}
	if (version == NMIGRATIONS)
		return 0;
	/* what a migration replaces (plain tokens) is overwritten with zeros,
	 * not left in the file's free space: the writer's secure_delete
	 * (open_conn) */
	for (int v = version; v < NMIGRATIONS; v++) {
		char sql[64];
		snprintf(sql, sizeof sql, ";PRAGMA user_version=%d;COMMIT;", v + 1);
		if (exec(s, db, "BEGIN IMMEDIATE", err))
			return -1;
		if (exec(s, db, MIGRATIONS[v], err) || exec(s, db, sql + 1, err)) {
			size_t n = strlen(err);
			exec(s, db, "ROLLBACK", err + n);
			return -1;
		}
	}
	/* and the WAL that held the old pages is copied back and emptied */
	sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return 0;
}

/* carc_token_hash(text): srv_token_hash in SQL, for the migration to 3. */
static void token_hash_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const unsigned char *t = sqlite3_value_text(argv[0]);
	char out[STORE_TOKEN_HASH_SIZE];
	srv_token_hash(t ? (const char *)t : "", out);
	sqlite3_result_text(cx, out, -1, SQLITE_TRANSIENT);
}

/* carc_step_name(k): the engine's name of step kind k, for the migration
 * to 19 (a move's kind is stored by its name). */
static void step_name_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *name = carc_name(CARC_NAMES_STEP, sqlite3_value_int(argv[0]));
	if (!name) {
		sqlite3_result_error(cx, "carc_step_name: no such kind of step", -1);
		return;
	}
	sqlite3_result_text(cx, name, -1, SQLITE_STATIC);
}

/* carc_random_blob(n): n bytes from the kernel, for the migration to 5 (accounts). */
static void random_blob_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	int n = sqlite3_value_int(argv[0]);
	if (n < 1 || n > 64) {
		sqlite3_result_error(cx, "carc_random_blob: 1 to 64 bytes", -1);
		return;
	}
	char hex[129];
	unsigned char b[64];
	srv_random_hex(hex, (size_t)n);
	for (int i = 0; i < n; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		b[i] = (unsigned char)v;
	}
	sqlite3_result_blob(cx, b, n, SQLITE_TRANSIENT);
	explicit_bzero(b, sizeof b);
	explicit_bzero(hex, sizeof hex);
}

/* Opens a connection to s->path with its statements prepared (the
 * writer's also migrates). On failure *dbp and st[] are closed and NULL. */
static int open_conn(sqlite_store *s, int writer, sqlite3 **dbp, sqlite3_stmt **st, char *err)
{
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(s->path, &db, flags, NULL) != SQLITE_OK) {
		snprintf(err, STORE_ERR_SIZE, "sqlite: cannot open %s: %s", s->path,
		         db ? sqlite3_errmsg(db) : "out of memory");
		goto bad;
	}
	sqlite3_busy_timeout(db, 5000);
	if ((writer && sqlite3_create_function_v2(db, "carc_token_hash", 1,
	                                         SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	                                         token_hash_fn, NULL, NULL, NULL) != SQLITE_OK) ||
	    (writer && sqlite3_create_function_v2(db, "carc_random_blob", 1, SQLITE_UTF8, NULL,
	                                          random_blob_fn, NULL, NULL, NULL) != SQLITE_OK) ||
	    (writer && sqlite3_create_function_v2(db, "carc_step_name", 1,
	                                          SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	                                          step_name_fn, NULL, NULL, NULL) != SQLITE_OK)) {
		snprintf(err, STORE_ERR_SIZE, "sqlite: %s", sqlite3_errmsg(db));
		goto bad;
	}
	if (exec(s, db, "PRAGMA journal_mode=WAL", err) ||
	    exec(s, db, s->sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
	         err) ||
	    exec(s, db, "PRAGMA foreign_keys=ON", err) ||
	    /* the writer overwrites what it deletes with zeros (a deleted
	     * account's name, a session's hash, a replaced token leave no
	     * copy in the file's free space: issue 26) */
	    (writer && exec(s, db, "PRAGMA secure_delete=ON", err)) ||
	    (writer && migrate(s, db, err)))
		goto bad;
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(db, SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &st[i], NULL) !=
		    SQLITE_OK) {
			snprintf(err, STORE_ERR_SIZE, "sqlite: %s: %s", SQL[i], sqlite3_errmsg(db));
			goto bad;
		}
	}
	*dbp = db;
	return 0;
bad:
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(st[i]);
		st[i] = NULL;
	}
	sqlite3_close(db);
	*dbp = NULL;
	return -1;
}

static int open_ckdb(sqlite_store *s)
{
	return sqlite3_open_v2(s->path, &s->ckdb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
	                       NULL) == SQLITE_OK &&
	               sqlite3_busy_timeout(s->ckdb, 5000) == SQLITE_OK &&
	               /* a connection learns that the file is in WAL mode on first use */
	               sqlite3_exec(s->ckdb, "PRAGMA journal_mode", NULL, NULL, NULL) == SQLITE_OK
	           ? 0
	           : -1;
}

static char *dup_str(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *d = malloc(na + nb + 1);
	if (d) {
		memcpy(d, a, na);
		memcpy(d + na, b, nb + 1);
	}
	return d;
}

store *store_sqlite_open(const char *path, int sync_full, int writer, char *err)
{
	sqlite_store *s = calloc(1, sizeof *s);
	if (!s || !(s->path = dup_str(path, "")) || !(s->wal_path = dup_str(path, "-wal"))) {
		snprintf(err, STORE_ERR_SIZE, "out of memory");
		sq_close(&s->base);
		return NULL;
	}
	s->base.ops = &SQLITE_OPS;
	s->base.sql = &sq_sql;
	s->sync_full = sync_full;
#ifdef CARC_DEBUG_CHECK
	const char *ff = getenv("CARC_TEST_STORE_FAULT");
	if (ff && *ff)
		s->fault_file = dup_str(ff, "");
#endif
	if (open_conn(s, writer, &s->db, s->st, err)) {
		sq_close(&s->base);
		return NULL;
	}
	atomic_store(&s->read_only, sqlite3_db_readonly(s->db, "main") == 1);
	remember_files(s);
	if (!writer)
		return &s->base;
	/* checkpoints on their own thread and connection (see the top) */
	sqlite3_wal_autocheckpoint(s->db, 0);
	pthread_mutex_init(&s->ck_mu, NULL);
	pthread_cond_init(&s->ck_cv, NULL);
	if (!open_ckdb(s) && !pthread_create(&s->ck, NULL, checkpointer, s)) {
		s->ck_running = 1;
	} else {
		/* no thread: let the writer checkpoint as usual */
		sqlite3_wal_autocheckpoint(s->db, 1000);
	}
	return &s->base;
}
