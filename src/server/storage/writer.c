/*
 * writer.c - the storage thread (see writer.h). One mutex guards two
 * queues: jobs to write (FIFO, so a table is created before its seats and
 * its moves are written in step order) and jobs written, and the health of
 * the storage (the fault since which writes fail, NONE while they work).
 *
 * Group commit: when the thread wakes it takes every job waiting (at most
 * WRITER_GROUP_MAX of them and WRITER_GROUP_BYTES of their text), and when
 * that is more than one it writes them in one transaction, each in a
 * savepoint (store.h, group_begin): a job that fails is undone alone, the
 * others stay, and the one COMMIT (one fsync) serves them all. No job of
 * a group is handed back before that COMMIT has answered: when it fails,
 * every job of the group comes back failed with its fault, as a single
 * failed job does, and nothing of them was applied in memory. A single job
 * is written in a transaction of its own, as before groups. While one
 * group commits, the next one queues: under load the groups grow until a
 * commit's time is shared by as many moves as arrive meanwhile.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "server.h"
#include "writer.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static wjob *todo_head, *todo_tail, *done_head, *done_tail;
static int stopping, running, backlog;
static pthread_t thread;
static store *wst;
static struct lws_context *wake_ctx;
static store_fault h_fault;   /* under mu, like the rest */
static int64_t h_since_ms, h_failed;

static void push(wjob **head, wjob **tail, wjob *j)
{
	j->next = NULL;
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
}

static wjob *pop(wjob **head, wjob **tail)
{
	wjob *j = *head;
	if (j) {
		*head = j->next;
		if (!*head)
			*tail = NULL;
	}
	return j;
}

wjob *writer_job(wj_kind kind, const char *id)
{
	wjob *j = srv_xcalloc(1, sizeof *j);
	j->kind = kind;
	snprintf(j->id, sizeof j->id, "%s", id);
	return j;
}

static void job_free(wjob *j)
{
	explicit_bzero(j->token, sizeof j->token);
	explicit_bzero(j->tokens, sizeof j->tokens);
	free((char *)j->chat.text);
	free(j->game.expansions);
	free(j->game.options);
	free(j->game.record);
	free((char *)j->move.entry);
	free((char *)j->result.scores);
	free((char *)j->result.by_kind);
	free((char *)j->result.winners);
	free((void *)j->result.mvoid);
	free((char *)j->clock.state);
	json_decref(j->ref);
	free(j->data);
	free(j);
}

static void run(wjob *j)
{
	int rc = -1;
	int64_t t0 = srv_mono_us();
	switch (j->kind) {
	case WJ_CREATE:
		rc = wst->ops->create_game(wst, &j->game, j->err);
		break;
	case WJ_SEAT:
		rc = wst->ops->update_seat(wst, j->id, &j->seat, j->err);
		break;
	case WJ_STATUS:
		rc = wst->ops->set_status(wst, j->id, j->status, j->at_ms, j->err);
		break;
	case WJ_MOVE:
		rc = wst->ops->add_move(wst, j->id, &j->move, j->has_result ? &j->result : NULL, j->err);
		break;
	case WJ_DELETE:
		rc = wst->ops->delete_game(wst, j->id, j->err);
		break;
	case WJ_CLOCK:
		rc = wst->ops->save_clock(wst, j->id, &j->clock, j->has_result ? &j->result : NULL,
		                          j->err);
		break;
	case WJ_CALL:
		rc = j->rc = j->call(wst, j);
		if (rc == STORE_DUPLICATE)
			rc = 0; /* an answer, not a fault of the database */
		break;
	case WJ_CHAT:
		rc = wst->ops->add_chat(wst, j->id, &j->chat, j->err);
		break;
	case WJ_REMATCH:
		rc = wst->ops->create_rematch(wst, j->old_id, &j->game, j->err);
		break;
	case WJ_UNDO:
		rc = wst->ops->undo_moves(wst, j->id, j->undo_have, j->undo_keep, j->undo_count,
		                          j->at_ms, j->err);
		break;
	}
	j->failed = rc != 0;
	j->conflict = rc == STORE_CONFLICT;
	if (!j->failed && j->kind != WJ_CALL) {
		j->seq = wst->ops->last_seq(wst, j->id);
		if (j->kind == WJ_REMATCH)
			j->old_seq = wst->ops->last_seq(wst, j->old_id);
	}
	j->us = srv_mono_us() - t0;
	if (j->failed && !j->conflict) {
		j->fault = wst->ops->last_fault(wst);
		if (j->fault == STORE_FAULT_NONE)
			j->fault = STORE_FAULT_OTHER;
	}
}

/* Under mu: the outcome of a write (or a probe) for the health. */
static void note(store_fault f, const char *err, int counts)
{
	if (f != STORE_FAULT_NONE) {
		if (counts)
			h_failed++;
		if (h_fault == STORE_FAULT_NONE) {
			h_since_ms = srv_now_ms();
			srv_error("storage: writes fail from now on (%s): %s", store_fault_text(f), err);
		}
		h_fault = f;
	} else if (h_fault != STORE_FAULT_NONE) {
		/* an error line too, so that --quiet logs the end of what it logged */
		srv_error("storage: writes work again after %lld ms",
		          (long long)(srv_now_ms() - h_since_ms));
		h_fault = STORE_FAULT_NONE;
		h_since_ms = 0;
	}
}

/* Under mu, with nothing to write: waits for a job; while the storage is
 * faulty, probes it every WRITER_PROBE_MS in between. */
static void wait_for_work(void)
{
	while (!stopping && !todo_head) {
		if (h_fault == STORE_FAULT_NONE) {
			pthread_cond_wait(&cv, &mu);
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += WRITER_PROBE_MS % 1000 * 1000000L;
		ts.tv_sec += WRITER_PROBE_MS / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&cv, &mu, &ts) != ETIMEDOUT || stopping || todo_head)
			continue;
		pthread_mutex_unlock(&mu);
		char err[STORE_ERR_SIZE];
		int rc = wst->ops->probe(wst, err);
		store_fault f = rc ? wst->ops->last_fault(wst) : STORE_FAULT_NONE;
		pthread_mutex_lock(&mu);
		note(rc && f == STORE_FAULT_NONE ? STORE_FAULT_OTHER : f, err, 0);
	}
}

/* What a job brings to a transaction, roughly: the text it writes. */
static size_t job_bytes(const wjob *j)
{
	size_t n = 256;
	if (j->game.record)
		n += strlen(j->game.record);
	if (j->move.entry)
		n += strlen(j->move.entry);
	if (j->chat.text)
		n += strlen(j->chat.text);
	if (j->clock.state)
		n += strlen(j->clock.state);
	if (j->kind == WJ_CALL)
		n += STORE_ANALYSIS_MAX / 8; /* its data's size is not known here */
	return n;
}

/* Under mu: takes the next group from the queue into *head (its jobs in
 * order, linked by next); returns how many (0: none waiting). */
static int take_group(wjob **head)
{
	wjob *tail = NULL;
	size_t bytes = 0;
	int n = 0;
	*head = NULL;
	while (todo_head && n < WRITER_GROUP_MAX &&
	       (n == 0 || bytes + job_bytes(todo_head) <= WRITER_GROUP_BYTES)) {
		wjob *j = pop(&todo_head, &todo_tail);
		bytes += job_bytes(j);
		j->next = NULL;
		if (tail)
			tail->next = j;
		else
			*head = j;
		tail = j;
		n++;
	}
	return n;
}

/* A job that was written but whose group's COMMIT failed: failed with the
 * COMMIT's fault (a conflict or a failure of its own stays as it was). */
static void fail_job(wjob *j, store_fault f, const char *err)
{
	if (j->failed)
		return;
	j->failed = 1;
	j->conflict = 0;
	j->fault = f;
	snprintf(j->err, sizeof j->err, "%s", err);
}

static int by_table(const void *a, const void *b)
{
	const wjob *x = *(wjob *const *)a, *y = *(wjob *const *)b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Writes n > 1 jobs in one transaction (see the top). They are written
 * in the order of their tables' ids (each table's in the order they came):
 * every write takes its game row's lock until the COMMIT, and processes
 * that take the locks of a group in one order cannot deadlock on them.
 * Their done callbacks still run in the order the jobs came. */
static void run_group(wjob *head, int n)
{
	char err[STORE_ERR_SIZE];
	int rc = wst->ops->group_begin(wst, err);
	int64_t t0 = srv_mono_us();
	if (rc == 0) {
		wjob *order[WRITER_GROUP_MAX];
		int k = 0;
		for (wjob *j = head; j && k < WRITER_GROUP_MAX; j = j->next) {
			j->order = k;
			order[k++] = j;
		}
		qsort(order, (size_t)k, sizeof order[0], by_table);
		for (int i = 0; i < k && i < n; i++)
			run(order[i]);
		t0 = srv_mono_us();
		rc = wst->ops->group_commit(wst, err);
	}
	int64_t commit_us = srv_mono_us() - t0;
	store_fault f = STORE_FAULT_NONE;
	if (rc) {
		f = wst->ops->last_fault(wst);
		if (f == STORE_FAULT_NONE)
			f = STORE_FAULT_OTHER;
	}
	int written = 0;
	for (wjob *j = head; j; j = j->next) {
		if (rc)
			fail_job(j, f, err);
		j->us += commit_us;
		written += !j->failed;
	}
	if (written)
		metrics_store_commit(written);
}

static void *writer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		wait_for_work();
		wjob *group;
		int n = take_group(&group);
		if (!n)
			break; /* stopping and nothing left to write */
		pthread_mutex_unlock(&mu);
		if (n == 1) {
			run(group);
			if (!group->failed)
				metrics_store_commit(1);
		} else {
			run_group(group, n);
		}
		pthread_mutex_lock(&mu);
		while (group) {
			wjob *j = group;
			group = j->next;
			metrics_store_write(j->us, j->failed && !j->conflict);
			note(j->failed && !j->conflict ? j->fault : STORE_FAULT_NONE, j->err, 1);
			push(&done_head, &done_tail, j);
		}
		if (!stopping)
			lws_cancel_service(wake_ctx);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

int writer_start(store *st, struct lws_context *ctx)
{
	wst = st;
	wake_ctx = ctx;
	stopping = 0;
	h_fault = STORE_FAULT_NONE;
	h_since_ms = h_failed = 0;
	if (pthread_create(&thread, NULL, writer_main, NULL))
		return -1;
	running = 1;
	return 0;
}

void writer_submit(wjob *j)
{
	pthread_mutex_lock(&mu);
	push(&todo_head, &todo_tail, j);
	backlog++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void (*drain_hook)(wjob *j);

void writer_on_drain(void (*fn)(wjob *j)) { drain_hook = fn; }

void writer_drain(void)
{
	for (;;) {
		pthread_mutex_lock(&mu);
		wjob *j = pop(&done_head, &done_tail);
		if (j)
			backlog--;
		pthread_mutex_unlock(&mu);
		if (!j)
			return;
		if (j->conflict)
			srv_event("table=%s event=conflict %s", j->id, j->err);
		else if (j->failed)
			srv_error("table=%s store: %s (%s)", j->id, j->err, store_fault_text(j->fault));
		if (drain_hook)
			drain_hook(j);
		if (j->done)
			j->done(j);
		job_free(j);
	}
}

void writer_health_get(writer_health *h)
{
	pthread_mutex_lock(&mu);
	h->fault = h_fault;
	h->since_ms = h_since_ms;
	h->failed_writes = h_failed;
	pthread_mutex_unlock(&mu);
	if (wst) {
		/* what the file looks like now: a deleted or read-only file shows
		 * before anyone tries to write */
		char err[STORE_ERR_SIZE];
		store_fault now = wst->ops->check(wst, err);
		if (now != STORE_FAULT_NONE) {
			if (h->fault == STORE_FAULT_NONE)
				h->since_ms = srv_now_ms();
			h->fault = now;
		}
	}
	h->ok = h->fault == STORE_FAULT_NONE;
}

int writer_ok(void)
{
	pthread_mutex_lock(&mu);
	int ok = h_fault == STORE_FAULT_NONE;
	pthread_mutex_unlock(&mu);
	return ok;
}

int writer_backlog(void)
{
	pthread_mutex_lock(&mu);
	int n = backlog;
	pthread_mutex_unlock(&mu);
	return n;
}

void writer_stop(void)
{
	if (running) {
		pthread_mutex_lock(&mu);
		stopping = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		pthread_join(thread, NULL);
		running = 0;
	}
	wjob *j;
	while ((j = pop(&done_head, &done_tail)))
		job_free(j);
	backlog = 0;
	if (wst)
		wst->ops->close(wst);
	wst = NULL;
}
