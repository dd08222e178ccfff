/*
 * cluster.h - several `carc serve` processes on one PostgreSQL database:
 * hearing what the others changed, and which process plays a table's bots.
 *
 * - A thread LISTENs on its own connection (channel STORE_NOTIFY_CHANNEL)
 *   and queues what arrives; it wakes the loop (lws_cancel_service), where
 *   cluster_drain() hands every notification to hooks.changed. The writes
 *   that notify are committed before the notification is delivered
 *   (store_pg.c), so what the hook loads is in the store. When the
 *   listening connection was lost and is made again, notifications may
 *   have been missed: hooks.changed gets kind '*' (everything may have
 *   changed).
 * - The bots of a table are played by the process that holds the table's
 *   session-level advisory lock (pg_try_advisory_lock on a connection of
 *   this module, held while the process lives). A process that dies loses
 *   its connection and so its locks; every CLUSTER_POLL_MS each process
 *   tries to take the locks of the tables whose bot is to move and that
 *   nobody plays (hooks.bots_waiting), and hooks.claimed tells tables.c
 *   that it plays them now. The move itself is still checked by the store
 *   (the step under the row lock), so even two processes that both thought
 *   they held a table could not both store a move for one step.
 * - A holder proves at every poll that the session which took its locks
 *   is alive and still holds them (a query on the lock connection: its
 *   backend pid and its advisory locks granted in pg_locks). Any error on
 *   that connection, another backend, or a lock missing counts as losing
 *   every lock at once: the held set is emptied and hooks.lost_all stops
 *   the bots here; the locks are taken again, on a new session, through
 *   the normal path (cluster_bots_mine, the poll), which loads the table's
 *   latest state first (hooks.claimed). So after a database restart one
 *   process plays each table within about two polls. The lock connection
 *   has TCP keepalives and a user timeout (CLUSTER_KEEPALIVE_*,
 *   CLUSTER_TCP_USER_TIMEOUT_MS; the URL's own values win) so that a
 *   database gone silently is noticed in seconds.
 *
 * Without PostgreSQL (SQLite: one process) the module does nothing and
 * cluster_bots_mine() is always 1. Everything here runs on the loop thread
 * but the listener.
 */
#ifndef CARC_SERVER_CLUSTER_H
#define CARC_SERVER_CLUSTER_H

#include <libwebsockets.h>

#include "store.h"

#define CLUSTER_POLL_MS 1000
#define CLUSTER_RETRY_MS 250 /* the poll while the lock session is lost */
#define CLUSTER_MAX_WAITING 512 /* tables asked about in one poll */
/* the lock connection: idle seconds before keepalives, between them, how
 * many unanswered; unacknowledged data gives up after the user timeout */
#define CLUSTER_KEEPALIVE_IDLE_S 2
#define CLUSTER_KEEPALIVE_INTERVAL_S 1
#define CLUSTER_KEEPALIVE_COUNT 2
#define CLUSTER_TCP_USER_TIMEOUT_MS 3000

typedef struct cluster_hooks {
	/* a notification: kind STORE_NOTIFY_*, the table, its number (-1:
	 * none) and the table's sequence number after the change (store.h,
	 * "The table's stream"; 0: not known); kind '*': any table may have
	 * changed (id "") */
	void (*changed)(char kind, const char *id, int n, int64_t seq);
	/* tables in memory whose bot is to move (ids, at most max): their
	 * owner is looked for */
	int (*bots_waiting)(char (*ids)[STORE_ID_SIZE], int max);
	/* this process plays the table's bots from now on (the table loads
	 * its latest state); 1 when its game was under way (moves stored) */
	int (*claimed)(const char *id);
	/* every lock was lost (the lock session died): no table's bots are
	 * played here until cluster_bots_mine or the poll takes them again;
	 * pending bot moves are to be dropped */
	void (*lost_all)(void);
} cluster_hooks;

/* Starts listening when db is a PostgreSQL URL (else does nothing).
 * Returns 0, or -1 after logging why. The hooks are copied. */
int cluster_start(const char *db, const cluster_hooks *h, struct lws_context *ctx);
/* Loop thread: hands the queued notifications to the hooks. */
void cluster_drain(void);
/* Stops the listener and the poll timer; closes the connections (so the
 * locks go). */
void cluster_stop(void);
/* 1 when this process plays the table's bots (taking the table's lock when
 * nobody holds it), 0 when another process does. */
int cluster_bots_mine(const char *id);
/* The table's bots need nobody any more (the game is over, the table left
 * memory): the lock is given back. */
void cluster_bots_release(const char *id);
/* 1 when this process holds the table's bot lock (asks nobody; the poll
 * proves the locks every CLUSTER_POLL_MS). */
int cluster_bots_have(const char *id);
/* Tables whose bots this process plays (for the metrics). */
int cluster_bots_held(void);
/* 1 when several processes may share the database. */
int cluster_on(void);

#endif
