/*
 * store_pg_int.h - private to the PostgreSQL store (store_pg*.c of
 * src/server/storage/): its handle, its statements' names, the parameters
 * of a query and the helpers its files share. Nothing else includes it;
 * the rest of the server sees the store through store.h only.
 *
 * store_pg.c connects, migrates, prepares the statements and keeps the
 * helpers every query and write goes through (pgs_q, pgs_begin/
 * pgs_commit/pgs_rollback, the group commit, pgs_notify, pgs_bump);
 * store_pg_games.c holds the games and store_pg_social.c the accounts,
 * chat, rematches and analyses; store_pg_sql.c is its side of the query
 * interface (store_sql.h) of what both stores share (friends, quick
 * match, keeping an account).
 */
#ifndef CARC_STORE_PG_INT_H
#define CARC_STORE_PG_INT_H

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdint.h>

#include "store.h"

typedef struct pg_store pg_store;

enum {
	Q_INS_GAME, Q_INS_SEAT, Q_UPD_SEAT, Q_SET_STATUS,
	Q_LOCK_GAME, Q_STEPS, Q_INS_MOVE, Q_TOUCH, Q_INS_RESULT,
	Q_SEL_ONE, Q_SEL_SEATS, Q_SEL_MOVES, Q_SEL_MOVES_FROM, Q_COUNTS,
	Q_SEL_FINISHED_AT, Q_LIST_FINISHED, Q_LIST_OPEN, Q_LIST_PLAYING, Q_LIST_UNFINISHED,
	Q_LIST_UNOWNED, Q_DELETE, Q_UPLOAD_USAGE,
	Q_PROBE, Q_NOTIFY,
	Q_UPS_CLOCK, Q_SEL_CLOCK,
	Q_INS_ACCOUNT, Q_SEL_ACC_NAME, Q_SEL_ACC_ID, Q_INS_SESSION, Q_DEL_EXPIRED,
	Q_SEL_SESSION, Q_DEL_SESSION, Q_SEL_KEY, Q_ACC_GAMES, Q_LEADERBOARD,
	Q_INS_CHAT, Q_LIST_CHAT, Q_COUNT_CHAT, Q_LINK_REMATCH, Q_SEL_REMATCH,
	Q_INS_ANALYSIS, Q_SEL_ANALYSIS, Q_BUMP,
	Q_INS_SKEL, Q_SKEL_TAKEN, Q_UNSKELETONED,
	Q_DEL_MOVES, Q_UNDO_GAME,
	Q_SET_WINDOW, Q_SEL_WINDOW,
	Q_COUNT
};

struct pg_store {
	store base;
	PGconn *conn;
	int prepared;          /* the statements are prepared on this connection */
	store_fault fault;     /* of the last call */
	atomic_int down;       /* the connection was lost (for check(), any thread) */
	char *fault_file;      /* CARC_TEST_STORE_FAULT (test builds) */
	int writer;            /* the writer thread's handle (store_pg_writer_pid) */
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

/* Parameters as text: numbers are printed into num[]. */
typedef struct params {
	int n;
	const char *v[16];
	char num[16][24];
} params;

/* store_pg.c: the helpers of every query and write */
void pgs_p_str(params *p, const char *s);
void pgs_p_null(params *p);
void pgs_p_f64(params *p, double x);
void pgs_p_i64(params *p, int64_t x);
int pgs_fail(pg_store *s, const PGresult *res, char *err, const char *what);
int pgs_ensure(pg_store *s, char *err);
PGresult *pgs_q(pg_store *s, int k, const params *p, char *err);
PGresult *pgs_q_read(pg_store *s, int k, const params *p, char *err);
PGresult *pgs_q_sql(pg_store *s, const char *sql, const params *p, char *err);
int pgs_q_do(pg_store *s, int k, const params *p, char *err);
int pgs_exec_plain(pg_store *s, const char *sql, char *err);
int pgs_begin(pg_store *s, char *err);
void pgs_rollback(pg_store *s);
int pgs_commit(pg_store *s, char *err);
int pgs_bump(pg_store *s, const char *id, int64_t *seq, char *err);
int pgs_notify(pg_store *s, char kind, const char *id, int n, char *err);

/* store_pg_games.c */
int pgs_insert_game(pg_store *s, const store_game *g, char *err);
int pg_create_game(store *base, const store_game *g, char *err);
int pg_update_seat(store *base, const char *id, const store_seat *se, char *err);
int pg_set_status(store *base, const char *id, int status, int64_t at_ms, char *err);
int pg_add_move(store *base, const char *id, const store_move *m, const store_result *r,
                char *err);
int pg_delete_game(store *base, const char *id, char *err);
int pg_undo_moves(store *base, const char *id, int have, int keep, int undone, int64_t at_ms,
                  char *err);
void pgs_copy_val(char *dst, size_t size, const PGresult *r, int row, int col);
int64_t pgs_i64_val(const PGresult *r, int row, int col);
void pgs_free_game(store_game *g);
int pgs_read_game(pg_store *s, const PGresult *gr, int row, store_game *g, char *err);
int pg_load_since(store *base, const char *id, int from, store_load_fn fn, void *ctx,
                  char *err);
int pg_load_one(store *base, const char *id, store_load_fn fn, void *ctx, char *err);
int pg_counts(store *base, int *counts, char *err);
int pg_list_finished(store *base, const char *before, int limit, store_summary_fn fn,
                     void *ctx, char *err);
int pg_list_unfinished(store *base, int which, int64_t before_ms, const char *before_id,
                       int64_t open_since_ms, int limit, char (*ids)[STORE_ID_SIZE],
                       int64_t *created, char *err);
int pg_list_unowned(store *base, const char *after, int limit, char (*ids)[STORE_ID_SIZE],
                    char *err);
int pg_upload_usage(store *base, long *count, int64_t *bytes, char *err);
int pg_save_clock(store *base, const char *id, const store_clock *c, const store_result *r,
                  char *err);
int pg_load_clock(store *base, const char *id, store_clock *out, char **state, char *err);

/* store_pg_social.c */
int pg_account_create(store *base, const char *name, const char *name_key,
                      const char *const skels[2],
                      const char *pwhash, int64_t now_ms, const char *session_hash,
                      int64_t expires_ms, int64_t *id, char *err);
int pg_skeleton_taken(store *base, const char *const skels[2], char *err);
int pg_accounts_unskeletoned(store *base, int64_t after, int max, int64_t *ids,
                             char (*names)[STORE_NAME_SIZE], char *err);
int pg_skeleton_add(store *base, int64_t account, const char *skel, char *err);
int pg_account_by_name(store *base, const char *name_key, store_account *a, char *err);
int pg_account_by_id(store *base, int64_t id, store_account *a, char *err);
int pg_session_create(store *base, const char *hash, int64_t account, int64_t now_ms,
                      int64_t expires_ms, char *err);
int pg_session_get(store *base, const char *hash, int64_t now_ms, store_account *a,
                   char *err);
int pg_session_delete(store *base, const char *hash, char *err);
int pg_get_key(store *base, const char *name, unsigned char *out, size_t size, char *err);
int pg_account_games(store *base, int64_t account, int only_over, int limit,
                     store_seat_game_fn fn, void *ctx, char *err);
int pg_leaderboard(store *base, int limit, int offset, store_account_fn fn, void *ctx,
                   char *err);
int pg_add_chat(store *base, const char *id, store_chat *m, char *err);
int pg_list_chat(store *base, const char *id, int from, int limit, store_chat_fn fn,
                 void *ctx, char *err);
int pg_count_chat(store *base, const char *id, char *err);
int pg_create_rematch(store *base, const char *old_id, const store_game *g, char *err);
int pg_get_rematch(store *base, const char *id, char *out, char *err);
int pg_window_set(store *base, const char *id, int seat, const char *window, char *err);
int pg_window_get(store *base, const char *id, int seat, char *out, char *err);
int pg_save_analysis(store *base, const char *id, const char *json, int64_t at_ms,
                     char *err);
int pg_load_analysis(store *base, const char *id, char **out, char *err);

/* store_pg_sql.c: the query interface of the shared rules (store_sql.h) */
extern const struct store_sql pgs_sql;

#endif
