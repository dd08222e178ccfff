/*
 * metrics.h - counters for GET /api/metrics (the Prometheus text format,
 * version 0.0.4). Counters are bumped where things happen (a move stored,
 * a write's time on the storage thread) with atomics, so any thread may
 * bump them; gauges (tables, connections, bots) are read by api_monitor.c
 * when the page is asked for and handed to metrics_render.
 */
#ifndef CARC_SERVER_METRICS_H
#define CARC_SERVER_METRICS_H

#include <stdint.h>

#include "server.h"

/* A move accepted and stored by this process (own = 1), or one loaded
 * from another process (own = 0). */
void metrics_move(int own);
/* A store write took `us` microseconds (failed: it was refused). */
void metrics_store_write(int64_t us, int failed);
/* The storage thread committed one transaction holding `jobs` writes
 * (1 outside a group; see writer.c's group commit). */
void metrics_store_commit(int jobs);
/* A store read on the event loop took `us` microseconds. */
void metrics_store_read(int64_t us);

/* An analysis of a finished game ended: stored (failed = 0) or not. */
void metrics_analysis(int failed);

typedef struct metrics_gauges {
	const char *store;       /* "sqlite", "postgresql" */
	int tables, playing, open_tables, over_tables;
	int ws_conns;            /* WebSocket clients at tables */
	int writes_queued;       /* jobs of the storage thread not yet done */
	int storage_ok;
	int64_t failed_writes;
	int bots_pausing;        /* bots waiting for their pause */
	int bots_thinking;       /* bot jobs handed to the pool, queued or thinking */
	int bot_tables_held;     /* tables whose bots this process plays (PostgreSQL) */
	long long bots_over_budget; /* bot moves played by the fallback: their owner was over
	                             * --bot-cpu-per-addr */
	long long bots_preempted;   /* bot-only moves stopped early for a person's table */
	int analyses;            /* analyses computing or being stored */
	double uptime_s;
} metrics_gauges;

/* Appends the page to b. */
void metrics_render(const metrics_gauges *g, srv_sb *b);

#endif
