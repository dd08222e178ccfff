/*
 * writer.c - the storage thread (see writer.h). One mutex guards two
 * queues: jobs to write (FIFO, so a table is created before its seats and
 * its moves are written in turn order) and jobs written.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "writer.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static wjob *todo_head, *todo_tail, *done_head, *done_tail;
static int stopping, running, backlog;
static pthread_t thread;
static store *wst;
static struct lws_context *wake_ctx;

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
	free(j->game.expansions);
	free(j->game.options);
	free(j->game.record);
	free((char *)j->move.entry);
	free((char *)j->result.scores);
	free((char *)j->result.by_kind);
	free((char *)j->result.winners);
	json_decref(j->ref);
	free(j);
}

static void run(wjob *j)
{
	int rc = -1;
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
	}
	j->failed = rc != 0;
}

static void *writer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!stopping && !todo_head)
			pthread_cond_wait(&cv, &mu);
		wjob *j = pop(&todo_head, &todo_tail);
		if (!j)
			break; /* stopping and nothing left to write */
		pthread_mutex_unlock(&mu);
		run(j);
		pthread_mutex_lock(&mu);
		push(&done_head, &done_tail, j);
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
		if (j->failed)
			srv_error("table=%s store: %s", j->id, j->err);
		if (j->done)
			j->done(j);
		job_free(j);
	}
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
