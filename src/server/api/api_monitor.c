/*
 * api_monitor.c - what a monitor asks: the health (/api/health, /healthz)
 * and the counters (/api/metrics). api.c answers both before the request
 * budget (never limited) and gives the metrics only to loopback clients
 * or on their own listener (--metrics-listen). The health answers a
 * snapshot at most --health-cache old under a flood (below).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "api_internal.h"
#include "bots.h"
#include "cluster.h"
#include "metrics.h"
#include "tables.h"
#include "writer.h"

static int64_t started_us;
static const char *store_kind = "sqlite";

void api_set_start(int64_t mono_us, const char *store_name)
{
	started_us = mono_us;
	store_kind = store_name;
}

/* The server's health: ok only while the database takes writes (a load
 * balancer sees 503 otherwise); "storage" says why not, in plain words. */
static void health_compute(const writer_health *hp, api_resp *rs)
{
	writer_health hh = *hp, *h = &hh;
	int tables, playing, conns;
	tables_counts(&tables, &playing, &conns);
	json_t *storage = json_pack("{s:b, s:b, s:I}", "ok", h->ok, "read_only",
	                            h->fault == STORE_FAULT_READ_ONLY, "failed_writes",
	                            (json_int_t)h->failed_writes);
	if (!h->ok) {
		json_object_set_new(storage, "error", json_string(store_fault_text(h->fault)));
		json_object_set_new(storage, "since_ms", json_integer(h->since_ms));
	}
	api_reply(rs, h->ok ? 200 : 503,
	          json_pack("{s:b, s:s, s:o, s:i, s:i, s:i, s:i, s:I}", "ok", h->ok, "store",
	                    store_kind, "storage", storage, "tables", tables, "playing", playing,
	                    "connections", conns, "writes_queued", writer_backlog(), "uptime_s",
	                    (json_int_t)((srv_mono_us() - started_us) / 1000000)));
}

/* The health under a flood. Each --health-cache window (1 s) answers its
 * first HEALTH_FRESH requests fresh, so that a monitor (and a test) sees
 * exact numbers, and the rest with the snapshot of the last of them: the
 * counts walk every table in memory (tables_counts), a flood of health
 * checks from anyone must not. The storage's state is read for every
 * request (writer_health_get: a lock and a stat of the file) and a change
 * of it makes a new snapshot, so a fault shows at once. */
#define HEALTH_FRESH 10
static struct {
	char *body;
	size_t len;
	int status;
	int64_t window_us; /* when the window began */
	int fresh;         /* answers computed in this window */
	writer_health h;
} health_snap;

void api_get_health(const srv_config *cfg, api_resp *rs)
{
	writer_health h;
	writer_health_get(&h);
	int64_t now = srv_mono_us();
	int changed = !health_snap.body || h.ok != health_snap.h.ok ||
	              h.fault != health_snap.h.fault || h.failed_writes != health_snap.h.failed_writes;
	if (changed || now - health_snap.window_us >= (int64_t)cfg->health_cache_ms * 1000) {
		health_snap.window_us = now;
		health_snap.fresh = 0;
	}
	if (health_snap.fresh < HEALTH_FRESH || changed) {
		api_resp fresh;
		memset(&fresh, 0, sizeof fresh);
		health_compute(&h, &fresh);
		free(health_snap.body);
		health_snap.body = fresh.body;
		health_snap.len = fresh.body_len;
		health_snap.status = fresh.status;
		health_snap.h = h;
		health_snap.fresh++;
	}
	rs->status = health_snap.status;
	rs->ctype = "application/json";
	rs->body = srv_xmalloc(health_snap.len + 1);
	memcpy(rs->body, health_snap.body ? health_snap.body : "", health_snap.len);
	rs->body[health_snap.len] = 0;
	rs->body_len = health_snap.len;
}

/* GET /api/metrics: the Prometheus text format (metrics.c). */
void api_get_metrics(api_resp *rs)
{
	metrics_gauges g = {.store = store_kind};
	int by_status[STORE_STATUS_COUNT];
	tables_counts(&g.tables, &g.playing, &g.ws_conns);
	tables_metrics(by_status, &g.bots_pausing, &g.bots_thinking);
	g.open_tables = by_status[STORE_OPEN];
	g.over_tables = by_status[STORE_OVER];
	writer_health h;
	writer_health_get(&h);
	g.storage_ok = h.ok;
	g.failed_writes = h.failed_writes;
	g.writes_queued = writer_backlog();
	g.bot_tables_held = cluster_bots_held();
	g.bots_over_budget = (long long)bots_over_budget();
	g.bots_preempted = (long long)bots_preempted();
	g.analyses = analysis_running();
	g.uptime_s = (double)(srv_mono_us() - started_us) / 1e6;
	srv_sb b;
	sb_init(&b);
	metrics_render(&g, &b);
	rs->status = 200;
	rs->body_len = b.len;
	rs->body = sb_take(&b);
	rs->ctype = "text/plain; version=0.0.4; charset=utf-8";
}
