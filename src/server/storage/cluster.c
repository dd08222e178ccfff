/*
 * cluster.c - several server processes on one PostgreSQL database (see
 * cluster.h). Two connections of its own: `lconn` LISTENs on the
 * listener thread; `kconn` holds the bot locks and is used on the loop
 * thread only (short queries on a local network: a round trip each).
 * The queue from the thread to the loop is under `mu`.
 *
 * The locks live as long as kconn's session. At every poll the session
 * proves it still holds them (prove_locks); any error on kconn, a backend
 * pid other than the one that took the locks, or fewer of its advisory
 * locks granted than are held counts as losing every lock at once
 * (lose_all): the held set is emptied, hooks.lost_all stops the bots, and
 * the locks are taken again through the normal path on a new session.
 *
 * A lock's key is the table id read as 64 hex bits (ids are 16 hex
 * digits), else an FNV-1a hash of the id: two tables with one key would
 * only share an owner, and the store's step check holds either way.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "server.h"

typedef struct note {
	struct note *next;
	char kind;
	char id[STORE_ID_SIZE];
	int n;
	int64_t seq;
} note;

#define HELD_BUCKETS 4096

typedef struct held {
	struct held *next;
	int64_t key;
	char id[STORE_ID_SIZE];
} held;

static int on;
static char *url;
static cluster_hooks hooks;
static struct lws_context *lctx;
static pthread_t thread;
static int thread_running;
static int stop_pipe[2] = {-1, -1};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static note *q_head, *q_tail;
static PGconn *kconn;          /* NULL: lost, made again by kconn_ok */
static int kconn_pid;          /* its backend: the session that holds the locks */
static int64_t kconn_retry_us; /* no reconnect before this (a down database) */
static held *held_by[HELD_BUCKETS];
static int nheld;
static lws_sorted_usec_list_t poll_sul;
static int timers_off;

int cluster_on(void) { return on; }
int cluster_bots_held(void) { return nheld; }

static int64_t key_of(const char *id)
{
	size_t n = strlen(id);
	if (n == 16 && strspn(id, "0123456789abcdef") == 16)
		return (int64_t)strtoull(id, NULL, 16);
	uint64_t h = 14695981039346656037ull;
	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return (int64_t)h;
}

static held **held_slot(int64_t key)
{
	held **pp = &held_by[(uint64_t)key % HELD_BUCKETS];
	while (*pp && (*pp)->key != key)
		pp = &(*pp)->next;
	return pp;
}

static void held_add(int64_t key, const char *id)
{
	held **pp = held_slot(key);
	if (*pp)
		return;
	held *h = srv_xcalloc(1, sizeof *h);
	h->key = key;
	snprintf(h->id, sizeof h->id, "%s", id);
	*pp = h;
	nheld++;
}

static void held_clear(void)
{
	for (int i = 0; i < HELD_BUCKETS; i++)
		while (held_by[i]) {
			held *h = held_by[i];
			held_by[i] = h->next;
			free(h);
		}
	nheld = 0;
}

/* ---- the listener thread ------------------------------------------------------------- */

static void push(char kind, const char *id, int n, int64_t seq)
{
	note *e = srv_xcalloc(1, sizeof *e);
	e->kind = kind;
	snprintf(e->id, sizeof e->id, "%s", id);
	e->n = n;
	e->seq = seq;
	pthread_mutex_lock(&mu);
	if (q_tail)
		q_tail->next = e;
	else
		q_head = e;
	q_tail = e;
	pthread_mutex_unlock(&mu);
}

static PGconn *listen_conn(void)
{
	PGconn *c = store_pg_connect(url, "carc serve listener");
	if (PQstatus(c) == CONNECTION_OK) {
		PGresult *r = PQexec(c, "LISTEN " STORE_NOTIFY_CHANNEL);
		int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
		PQclear(r);
		if (ok)
			return c;
	}
	srv_error("cluster: cannot listen for other processes' changes: %s", PQerrorMessage(c));
	PQfinish(c);
	return NULL;
}

/* Waits up to ms for the socket (or the stop pipe): 1 stop, 0 otherwise. */
static int wait_fd(int fd, int ms)
{
	struct pollfd p[2] = {{.fd = stop_pipe[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
	poll(p, fd >= 0 ? 2 : 1, ms);
	return (p[0].revents & POLLIN) != 0;
}

static void *listener(void *arg)
{
	PGconn *c = arg;
	for (;;) {
		if (!c) {
			if (wait_fd(-1, 500))
				break;
			if (!(c = listen_conn()))
				continue;
			srv_error("cluster: listening again (changes meanwhile are loaded now)");
			push('*', "", -1, 0);
			lws_cancel_service(lctx);
		}
		if (wait_fd(PQsocket(c), 1000))
			break;
		if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK) {
			srv_error("cluster: the listening connection was lost: %s", PQerrorMessage(c));
			PQfinish(c);
			c = NULL;
			continue;
		}
		int any = 0;
		PGnotify *n;
		while ((n = PQnotifies(c))) {
			char id[STORE_ID_SIZE + 8] = "";
			char kind = 0;
			int num = -1;
			long long seq = 0;
			/* this process's own changes are applied by the writer's
			 * done, in order; a load racing them would only repeat them */
			if (n->be_pid == store_pg_writer_pid() && n->be_pid != 0) {
				PQfreemem(n);
				continue;
			}
			if (sscanf(n->extra, "%c %31s %d %lld", &kind, id, &num, &seq) >= 2 &&
			    strlen(id) < STORE_ID_SIZE) {
				push(kind, id, num, seq < 0 ? 0 : seq);
				any = 1;
			}
			PQfreemem(n);
		}
		if (any)
			lws_cancel_service(lctx);
	}
	PQfinish(c);
	return NULL;
}

void cluster_drain(void)
{
	if (!on)
		return;
	for (;;) {
		pthread_mutex_lock(&mu);
		note *e = q_head;
		if (e) {
			q_head = e->next;
			if (!q_head)
				q_tail = NULL;
		}
		pthread_mutex_unlock(&mu);
		if (!e)
			return;
		hooks.changed(e->kind, e->id, e->n, e->seq);
		free(e);
	}
}

/* ---- bot locks (loop thread) ------------------------------------------------------------- */

/* The lock connection: keepalives and a user timeout shorter than the
 * store's (store_pg_connect), so that a session gone silently is noticed
 * in seconds; given before the URL, whose own values win. */
static PGconn *kconn_connect(void)
{
	char idle[16], intvl[16], cnt[16], user_ms[16];
	snprintf(idle, sizeof idle, "%d", CLUSTER_KEEPALIVE_IDLE_S);
	snprintf(intvl, sizeof intvl, "%d", CLUSTER_KEEPALIVE_INTERVAL_S);
	snprintf(cnt, sizeof cnt, "%d", CLUSTER_KEEPALIVE_COUNT);
	snprintf(user_ms, sizeof user_ms, "%d", CLUSTER_TCP_USER_TIMEOUT_MS);
	static const char *const keys[] = {"connect_timeout",     "keepalives",
	                                   "keepalives_idle",     "keepalives_interval",
	                                   "keepalives_count",    "tcp_user_timeout",
	                                   "application_name",    "dbname",
	                                   NULL};
	const char *vals[] = {"2", "1", idle, intvl, cnt, user_ms, "carc serve locks", url, NULL};
	return PQconnectdbParams(keys, vals, 1);
}

/* kconn made and its backend's pid read (asked, not PQbackendPID: behind
 * a pooler that is the pooler's own number): 0, or -1 with kconn NULL
 * (the reason is in *why, PQerrorMessage's, when why is not NULL). */
static int kconn_open(char *why, size_t size)
{
	kconn = kconn_connect();
	PGresult *r = NULL;
	if (PQstatus(kconn) == CONNECTION_OK)
		r = PQexec(kconn, "SELECT pg_backend_pid()");
	int ok = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
	if (ok)
		kconn_pid = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (!ok) {
		if (why)
			snprintf(why, size, "%s", PQerrorMessage(kconn));
		PQfinish(kconn);
		kconn = NULL;
		return -1;
	}
	return 0;
}

/* Every lock is lost at once (the session is gone or not the one that took
 * them): the held set is emptied and the tables are told; kconn is closed
 * and made again by kconn_ok before any lock is taken again. */
static void lose_all(const char *why)
{
	if (nheld) {
		srv_error("cluster: the lock session was lost (%s): the bots of %d tables are given up "
		          "until their locks are taken again",
		          why, nheld);
		held_clear();
		hooks.lost_all();
	} else if (kconn) {
		srv_error("cluster: the lock session was lost (%s); no table's bots were held", why);
	}
	PQfinish(kconn);
	kconn = NULL;
}

/* kconn usable: made again when lost (at once, then every CLUSTER_RETRY_MS
 * while the database refuses, every CLUSTER_POLL_MS when an attempt took
 * longer: connecting blocks the loop). */
static int kconn_ok(void)
{
	if (kconn && PQstatus(kconn) == CONNECTION_OK)
		return 1;
	if (kconn)
		lose_all(PQerrorMessage(kconn));
	int64_t now = srv_mono_us();
	if (now < kconn_retry_us)
		return 0;
	if (kconn_open(NULL, 0)) {
		int64_t took = srv_mono_us() - now;
		kconn_retry_us = now + (int64_t)(took < 100000 ? CLUSTER_RETRY_MS : CLUSTER_POLL_MS) * 1000;
		return 0;
	}
	kconn_retry_us = 0;
	srv_event("cluster: lock session made (backend pid %d)", kconn_pid);
	return 1;
}

/* A query on kconn that failed: its session cannot be trusted any more. */
static void kconn_failed(const char *what)
{
	char why[256];
	snprintf(why, sizeof why, "%s: %s", what, kconn ? PQerrorMessage(kconn) : "no connection");
	why[strcspn(why, "\n")] = 0;
	lose_all(why);
}

/* At every poll: the session that took the locks still holds them all.
 * Not just `SELECT 1`: that proves some session answers, while behind a
 * pooler or a proxy that reconnects by itself it need not be the one that
 * took the locks; the backend pid and its granted advisory locks prove
 * the locks themselves. Reading pg_locks takes the lock manager's
 * partition locks for a moment: once a CLUSTER_POLL_MS per process. */
static void prove_locks(void)
{
	if (!kconn)
		return;
	PGresult *r = PQexec(kconn, "SELECT pg_backend_pid(), count(*) FROM pg_locks WHERE pid = "
	                            "pg_backend_pid() AND locktype = 'advisory' AND granted");
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		PQclear(r);
		kconn_failed("proving the locks");
		return;
	}
	int pid = atoi(PQgetvalue(r, 0, 0));
	long granted = atol(PQgetvalue(r, 0, 1));
	PQclear(r);
	char why[128];
	if (pid != kconn_pid) {
		snprintf(why, sizeof why, "backend pid %d, the locks were taken by %d", pid, kconn_pid);
		lose_all(why);
	} else if (granted < nheld) {
		snprintf(why, sizeof why, "%ld of its %d locks granted", granted, nheld);
		lose_all(why);
	}
}

int cluster_bots_have(const char *id) { return !on || *held_slot(key_of(id)) != NULL; }

int cluster_bots_mine(const char *id)
{
	if (!on)
		return 1;
	int64_t key = key_of(id);
	if (*held_slot(key))
		return 1;
	if (!kconn_ok())
		return 0;
	char k[32];
	snprintf(k, sizeof k, "%lld", (long long)key);
	const char *v[1] = {k};
	PGresult *r = PQexecParams(kconn, "SELECT pg_try_advisory_lock($1::bigint)", 1, NULL, v,
	                           NULL, NULL, 0);
	int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
	int got = ok && PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	if (!ok) {
		kconn_failed("taking a lock");
		return 0;
	}
	if (got) {
		held_add(key, id);
		srv_event("table=%s event=bots_claimed", id);
	}
	return got;
}

void cluster_bots_release(const char *id)
{
	if (!on)
		return;
	int64_t key = key_of(id);
	held **pp = held_slot(key), *h = *pp;
	if (!h)
		return;
	*pp = h->next;
	free(h);
	nheld--;
	if (!kconn || PQstatus(kconn) != CONNECTION_OK)
		return;
	char k[32];
	snprintf(k, sizeof k, "%lld", (long long)key);
	const char *v[1] = {k};
	PGresult *r = PQexecParams(kconn, "SELECT pg_advisory_unlock($1::bigint)", 1, NULL, v, NULL,
	                           NULL, 0);
	int ok = PQresultStatus(r) == PGRES_TUPLES_OK;
	PQclear(r);
	if (!ok)
		kconn_failed("giving a lock back"); /* the others held are in doubt too */
}

/* Every CLUSTER_POLL_MS: the locks of tables whose bot is to move and that
 * this process does not hold are tried in one query; those it gets are
 * orphans (their process died, or nobody had taken them yet). */
static void poll_orphans(lws_sorted_usec_list_t *sul)
{
	(void)sul;
	prove_locks();
	if (!kconn)
		kconn_ok(); /* lost: made again before the locks are tried */
	static char ids[CLUSTER_MAX_WAITING][STORE_ID_SIZE];
	int n = hooks.bots_waiting(ids, CLUSTER_MAX_WAITING), m = 0;
	srv_sb arr;
	sb_init(&arr);
	sb_adds(&arr, "{");
	for (int i = 0; i < n; i++) {
		int64_t key = key_of(ids[i]);
		if (*held_slot(key))
			continue;
		sb_printf(&arr, "%s%lld", m++ ? "," : "", (long long)key);
	}
	sb_adds(&arr, "}");
	if (m && kconn_ok()) {
		const char *v[1] = {arr.s};
		PGresult *r = PQexecParams(kconn,
		                           "SELECT k FROM unnest($1::bigint[]) AS k"
		                           " WHERE pg_try_advisory_lock(k)",
		                           1, NULL, v, NULL, NULL, 0);
		if (PQresultStatus(r) == PGRES_TUPLES_OK) {
			/* kconn NULL: a hook lost the session; those locks went with it */
			for (int row = 0; row < PQntuples(r) && kconn; row++) {
				int64_t key = strtoll(PQgetvalue(r, row, 0), NULL, 10);
				for (int i = 0; i < n && kconn; i++)
					if (key_of(ids[i]) == key && !*held_slot(key)) {
						held_add(key, ids[i]);
						/* what its last player did first: a game that ended
						 * meanwhile gives the lock back at once (no alarm);
						 * one not started yet here (its maker is about to
						 * take it) is no orphan either */
						int under_way = hooks.claimed(ids[i]);
						if (*held_slot(key))
							srv_event("table=%s event=bots_claimed%s", ids[i],
							          under_way ? " (nobody played them)" : "");
					}
			}
			PQclear(r);
		} else {
			PQclear(r);
			kconn_failed("looking for tables without a bot player");
		}
	}
	sb_free(&arr);
	/* sooner while the lock session is lost: the locks are taken again as
	 * soon as the database is back */
	int ms = kconn ? CLUSTER_POLL_MS : CLUSTER_RETRY_MS;
	if (!timers_off)
		lws_sul_schedule(lctx, 0, &poll_sul, poll_orphans, (lws_usec_t)ms * LWS_US_PER_MS);
}

int cluster_start(const char *db, const cluster_hooks *h, struct lws_context *ctx)
{
	if (!store_is_pg_url(db))
		return 0;
	url = srv_xstrdup(db);
	hooks = *h;
	lctx = ctx;
	char why[512];
	if (kconn_open(why, sizeof why)) {
		srv_error("cluster: cannot connect: %s", why);
		return -1;
	}
	PGconn *lc = listen_conn();
	if (!lc || pipe(stop_pipe)) {
		PQfinish(lc);
		return -1;
	}
	if (pthread_create(&thread, NULL, listener, lc)) {
		PQfinish(lc);
		return -1;
	}
	thread_running = 1;
	on = 1;
	srv_event("cluster: listening for the changes of other processes on the database; "
	          "bots are played where their table's lock is held");
	timers_off = 0;
	lws_sul_schedule(lctx, 0, &poll_sul, poll_orphans, (lws_usec_t)CLUSTER_POLL_MS * LWS_US_PER_MS);
	return 0;
}

void cluster_stop(void)
{
	timers_off = 1;
	if (lctx)
		lws_sul_cancel(&poll_sul);
	if (thread_running) {
		if (write(stop_pipe[1], "x", 1) < 0)
			srv_error("cluster: stopping the listener: %s", strerror(errno));
		pthread_join(thread, NULL);
		thread_running = 0;
	}
	for (int i = 0; i < 2; i++)
		if (stop_pipe[i] >= 0) {
			close(stop_pipe[i]);
			stop_pipe[i] = -1;
		}
	note *e;
	while ((e = q_head)) {
		q_head = e->next;
		free(e);
	}
	q_tail = NULL;
	held_clear();
	PQfinish(kconn);
	kconn = NULL;
	free(url);
	url = NULL;
	on = 0;
}
