/*
 * cluster.c - several server processes on one PostgreSQL database (see
 * cluster.h). Two connections of its own: `lconn` LISTENs on the
 * listener thread; `kconn` holds the bot locks and is used on the loop
 * thread only (short queries on a local network: a round trip each).
 * The queue from the thread to the loop is under `mu`.
 *
 * A lock's key is the table id read as 64 hex bits (ids are 16 hex
 * digits), else an FNV-1a hash of the id: two tables with one key would
 * only share an owner, and the store's turn check holds either way.
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
static PGconn *kconn;
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

/* kconn usable: made again when lost (then every lock was lost with it). */
static int kconn_ok(void)
{
	if (PQstatus(kconn) == CONNECTION_OK)
		return 1;
	if (nheld) {
		srv_error("cluster: the lock connection was lost: the bots of %d tables are "
		          "given up", nheld);
		held_clear();
	}
	int64_t now = srv_mono_us();
	if (now < kconn_retry_us)
		return 0;
	kconn_retry_us = now + 1000000;
	PQreset(kconn);
	return PQstatus(kconn) == CONNECTION_OK;
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
	int got = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
	          PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
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
	if (PQstatus(kconn) != CONNECTION_OK)
		return;
	char k[32];
	snprintf(k, sizeof k, "%lld", (long long)key);
	const char *v[1] = {k};
	PQclear(PQexecParams(kconn, "SELECT pg_advisory_unlock($1::bigint)", 1, NULL, v, NULL, NULL,
	                     0));
}

/* Every CLUSTER_POLL_MS: the locks of tables whose bot is to move and that
 * this process does not hold are tried in one query; those it gets are
 * orphans (their process died, or nobody had taken them yet). */
static void poll_orphans(lws_sorted_usec_list_t *sul)
{
	(void)sul;
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
			for (int row = 0; row < PQntuples(r); row++) {
				int64_t key = strtoll(PQgetvalue(r, row, 0), NULL, 10);
				for (int i = 0; i < n; i++)
					if (key_of(ids[i]) == key && !*held_slot(key)) {
						held_add(key, ids[i]);
						srv_event("table=%s event=bots_claimed (nobody played them)", ids[i]);
						hooks.claimed(ids[i]);
					}
			}
		} else {
			srv_error("cluster: looking for tables without a bot player: %s",
			          PQerrorMessage(kconn));
		}
		PQclear(r);
	}
	sb_free(&arr);
	if (!timers_off)
		lws_sul_schedule(lctx, 0, &poll_sul, poll_orphans,
		                 (lws_usec_t)CLUSTER_POLL_MS * LWS_US_PER_MS);
}

int cluster_start(const char *db, const cluster_hooks *h, struct lws_context *ctx)
{
	if (!store_is_pg_url(db))
		return 0;
	url = srv_xstrdup(db);
	hooks = *h;
	lctx = ctx;
	kconn = store_pg_connect(url, "carc serve locks");
	if (PQstatus(kconn) != CONNECTION_OK) {
		srv_error("cluster: cannot connect: %s", PQerrorMessage(kconn));
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
