/*
 * bots.c - the bot worker threads (see bots.h). Two queues under one
 * mutex: jobs in, moves out. A bot is made afresh for each move from a
 * seed that depends on the game, the seat and the turn only, so a game
 * resumed after a restart goes on with the very moves it would have seen.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "carc_bot.h"
#include "server.h"

typedef struct job {
	void *tag;
	int turn;
	uint64_t seed;
	char spec[128];
	carc_move move;
	struct job *next;
	carc_game game;
} job;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static job *jobs_head, *jobs_tail, *done_head, *done_tail;
static int stopping;
static int nthreads;
static pthread_t threads[64];
static struct lws_context *wake_ctx;

static void push(job **head, job **tail, job *j)
{
	j->next = NULL;
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
}

static job *pop(job **head, job **tail)
{
	job *j = *head;
	if (j) {
		*head = j->next;
		if (!*head)
			*tail = NULL;
	}
	return j;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!stopping && !jobs_head)
			pthread_cond_wait(&cv, &mu);
		if (stopping) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		job *j = pop(&jobs_head, &jobs_tail);
		pthread_mutex_unlock(&mu);

		char err[160];
		carc_bot *b = carc_bot_new(j->spec, j->seed, err, sizeof err);
		if (b) {
			j->move = carc_bot_choose(b, &j->game);
			carc_bot_free(b);
		} else {
			srv_error("bot '%s': %s", j->spec, err);
			j->move = CARC_MOVE_NONE;
		}
		pthread_mutex_lock(&mu);
		push(&done_head, &done_tail, j);
		pthread_mutex_unlock(&mu);
		lws_cancel_service(wake_ctx);
	}
}

int bots_start(int n, struct lws_context *ctx)
{
	wake_ctx = ctx;
	stopping = 0;
	if (n < 1)
		n = 1;
	if (n > (int)(sizeof threads / sizeof threads[0]))
		n = (int)(sizeof threads / sizeof threads[0]);
	for (nthreads = 0; nthreads < n; nthreads++)
		if (pthread_create(&threads[nthreads], NULL, worker, NULL))
			return -1;
	return 0;
}

void bots_stop(void)
{
	pthread_mutex_lock(&mu);
	stopping = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	nthreads = 0;
	job *j;
	while ((j = pop(&jobs_head, &jobs_tail)))
		free(j);
	while ((j = pop(&done_head, &done_tail)))
		free(j);
}

void bots_submit(void *tag, const carc_game *g, const char *spec, uint64_t seed, int turn)
{
	job *j = srv_xmalloc(sizeof *j);
	j->tag = tag;
	j->turn = turn;
	j->seed = seed;
	snprintf(j->spec, sizeof j->spec, "%s", spec);
	j->move = CARC_MOVE_NONE;
	carc_game_copy(&j->game, g);
	pthread_mutex_lock(&mu);
	push(&jobs_head, &jobs_tail, j);
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

int bots_poll(void **tag, int *turn, carc_move *move)
{
	pthread_mutex_lock(&mu);
	job *j = pop(&done_head, &done_tail);
	pthread_mutex_unlock(&mu);
	if (!j)
		return 0;
	*tag = j->tag;
	*turn = j->turn;
	*move = j->move;
	free(j);
	return 1;
}
