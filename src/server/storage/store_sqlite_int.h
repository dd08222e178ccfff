/*
 * store_sqlite_int.h - private to the SQLite store (store_sqlite*.c of
 * src/server/storage/): its handle, its prepared statements and the
 * helpers its files share. Nothing else includes it; the rest of the
 * server sees the store through store.h only.
 *
 * store_sqlite.c opens the file, migrates it, keeps the statements and
 * the helpers every write goes through (begin/commit/rollback, the group
 * commit, the file check, bump); store_sqlite_games.c holds the games and
 * store_sqlite_social.c the accounts, chat, rematches and analyses;
 * store_sqlite_sql.c is its side of the query interface (store_sql.h) of
 * what both stores share (friends, quick match, keeping an account).
 */
#ifndef CARC_STORE_SQLITE_INT_H
#define CARC_STORE_SQLITE_INT_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "store.h"

enum {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_SAVEPOINT, ST_RELEASE, ST_ROLLBACK_TO,
	ST_INS_GAME, ST_INS_SEAT, ST_UPD_SEAT, ST_SET_STATUS,
	ST_INS_MOVE, ST_TOUCH, ST_INS_RESULT,
	ST_SEL_ONE, ST_SEL_SEATS, ST_SEL_MOVES, ST_COUNTS,
	ST_SEL_FINISHED_AT, ST_LIST_FINISHED, ST_LIST_OPEN, ST_LIST_PLAYING, ST_LIST_UNFINISHED,
	ST_LIST_UNOWNED,
	ST_UPS_CLOCK, ST_SEL_CLOCK,
	ST_INS_ACCOUNT, ST_SEL_ACC_NAME, ST_SEL_ACC_ID, ST_INS_SESSION, ST_DEL_EXPIRED,
	ST_SEL_SESSION, ST_DEL_SESSION, ST_SEL_KEY, ST_ACC_GAMES, ST_LEADERBOARD,
	ST_COUNT_MOVES, ST_DEL_MOVES, ST_UNDO_GAME,
	ST_COUNT
};

typedef struct sqlite_store {
	store base;
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	int sync_full;
	store_fault fault;     /* of the last call */
	/* group commit: inside group_begin .. group_commit; the group's
	 * transaction was lost (SQLite rolled it back after an error), with
	 * the fault and message of the write that lost it */
	int group, group_lost;
	store_fault group_fault;
	char group_err[STORE_ERR_SIZE];
	/* what file_check compares with: fixed after open */
	char *path, *wal_path;
	int has_file, has_wal;
	dev_t dev, wal_dev;
	ino_t ino, wal_ino;
	atomic_int read_only;  /* the connection was opened read-only */
	char *fault_file;      /* CARC_TEST_STORE_FAULT (test builds) */
	/* the checkpointer */
	sqlite3 *ckdb;
	pthread_t ck;
	int ck_running, ck_stop, ck_reopen;
	int ck_truncate;       /* a TRUNCATE checkpoint is wanted (sq_wal_truncate) */
	pthread_mutex_t ck_mu;
	pthread_cond_t ck_cv;
} sqlite_store;

/* store_sqlite.c: the helpers of every statement and write */
int sq_fail(sqlite_store *s, char *err, const char *what);
int sq_step_done(sqlite_store *s, int k, char *err);
void sq_rollback(sqlite_store *s);
int sq_commit(sqlite_store *s, char *err);
int sq_begin(sqlite_store *s, char *err);
void sq_bind_text(sqlite3_stmt *st, int i, const char *t);
/* What a committed write removed leaves the WAL too: the checkpointer
 * copies it all back and truncates it (writer thread; the file itself
 * was written with secure_delete, so no free space keeps it). */
void sq_wal_truncate(sqlite_store *s);

/* store_sqlite_games.c */
int sq_insert_game(sqlite_store *s, const store_game *g, char *err);
int sq_create_game(store *base, const store_game *g, char *err);
int sq_update_seat(store *base, const char *id, const store_seat *se, char *err);
int sq_set_status(store *base, const char *id, int status, int64_t at_ms, char *err);
int sq_add_move(store *base, const char *id, const store_move *m,
                const store_result *r, char *err);
void sq_copy_col(char *dst, size_t size, sqlite3_stmt *st, int col);
char *sq_dup_col(sqlite3_stmt *st, int col);
void sq_free_game(store_game *g);
int sq_read_game(sqlite_store *s, sqlite3_stmt *gst, store_game *g, char *err);
int sq_load_one(store *base, const char *id, store_load_fn fn, void *ctx, char *err);
int sq_counts(store *base, int *counts, char *err);
int sq_list_finished(store *base, const char *before, int limit, store_summary_fn fn,
                     void *ctx, char *err);
int sq_list_unfinished(store *base, int which, int64_t before_ms, const char *before_id,
                       int64_t open_since_ms, int limit, char (*ids)[STORE_ID_SIZE],
                       int64_t *created, char *err);
int sq_list_unowned(store *base, const char *after, int limit, char (*ids)[STORE_ID_SIZE],
                    char *err);
int sq_delete_game(store *base, const char *id, char *err);
int sq_upload_usage(store *base, long *count, int64_t *bytes, char *err);
int sq_save_clock(store *base, const char *id, const store_clock *c,
                  const store_result *r, char *err);
int sq_load_clock(store *base, const char *id, store_clock *out, char **state, char *err);
int sq_undo_moves(store *base, const char *id, int have, int keep, int undone, int64_t at_ms,
                  char *err);

/* store_sqlite_social.c */
int sq_add_chat(store *base, const char *id, store_chat *m, char *err);
int sq_list_chat(store *base, const char *id, int from, int limit, store_chat_fn fn,
                 void *ctx, char *err);
int sq_count_chat(store *base, const char *id, char *err);
int sq_save_analysis(store *base, const char *id, const char *json, int64_t at_ms,
                     char *err);
int sq_load_analysis(store *base, const char *id, char **out, char *err);
int sq_create_rematch(store *base, const char *old_id, const store_game *g, char *err);
int sq_account_create(store *base, const char *name, const char *name_key,
                      const char *const skels[2],
                      const char *pwhash, int64_t now_ms, const char *session_hash,
                      int64_t expires_ms, int64_t *id, char *err);
int sq_skeleton_taken(store *base, const char *const skels[2], char *err);
int sq_accounts_unskeletoned(store *base, int64_t after, int max, int64_t *ids,
                             char (*names)[STORE_NAME_SIZE], char *err);
int sq_skeleton_add(store *base, int64_t account, const char *skel, char *err);
int sq_account_by_name(store *base, const char *name_key, store_account *a, char *err);
int sq_account_by_id(store *base, int64_t id, store_account *a, char *err);
int sq_session_create(store *base, const char *hash, int64_t account, int64_t now_ms,
                      int64_t expires_ms, char *err);
int sq_session_get(store *base, const char *hash, int64_t now_ms, store_account *a,
                   char *err);
int sq_session_delete(store *base, const char *hash, char *err);
int sq_get_key(store *base, const char *name, unsigned char *out, size_t size, char *err);
int sq_account_games(store *base, int64_t account, int only_over, int limit,
                     store_seat_game_fn fn, void *ctx, char *err);
int sq_leaderboard(store *base, int limit, int offset, store_account_fn fn, void *ctx,
                   char *err);
int sq_get_rematch(store *base, const char *id, char *out, char *err);
int sq_window_set(store *base, const char *id, int seat, const char *window, char *err);
int sq_window_get(store *base, const char *id, int seat, char *out, char *err);

/* store_sqlite_sql.c: the query interface of the shared rules (store_sql.h) */
extern const struct store_sql sq_sql;

#endif
