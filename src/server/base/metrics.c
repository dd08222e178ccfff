/*
 * metrics.c - the counters behind /api/metrics (see metrics.h). Latency
 * histograms have fixed buckets in seconds; moves per second is the rate
 * over the last MOVES_WINDOW_S seconds (Prometheus computes its own from
 * carc_moves_total; the gauge is for a look with curl).
 */
#include <stdatomic.h>
#include <stdio.h>

#include "metrics.h"

static const double BUCKETS[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25,
                                 0.5, 1, 2.5};
#define NBUCKETS ((int)(sizeof BUCKETS / sizeof BUCKETS[0]))

typedef struct histo {
	atomic_llong bucket[NBUCKETS]; /* not cumulative: summed when rendered */
	atomic_llong count, sum_us;
} histo;

static histo writes, reads;
static atomic_llong moves_own, moves_other, writes_failed, analyses_done, analyses_failed;
static atomic_llong commits, jobs_committed;

#define MOVES_WINDOW_S 10
static atomic_llong per_second[MOVES_WINDOW_S]; /* moves in second k % window */
static atomic_llong second_of[MOVES_WINDOW_S];

static void observe(histo *h, int64_t us)
{
	int i = 0;
	while (i < NBUCKETS && (double)us > BUCKETS[i] * 1e6)
		i++;
	if (i < NBUCKETS)
		atomic_fetch_add(&h->bucket[i], 1);
	atomic_fetch_add(&h->count, 1);
	atomic_fetch_add(&h->sum_us, us);
}

void metrics_move(int own)
{
	atomic_fetch_add(own ? &moves_own : &moves_other, 1);
	if (!own)
		return;
	long long sec = (long long)(srv_mono_us() / 1000000);
	int k = (int)(sec % MOVES_WINDOW_S);
	if (atomic_exchange(&second_of[k], sec) != sec)
		atomic_store(&per_second[k], 0);
	atomic_fetch_add(&per_second[k], 1);
}

void metrics_store_write(int64_t us, int failed)
{
	observe(&writes, us);
	if (failed)
		atomic_fetch_add(&writes_failed, 1);
}

void metrics_store_commit(int jobs)
{
	atomic_fetch_add(&commits, 1);
	atomic_fetch_add(&jobs_committed, jobs);
}

void metrics_store_read(int64_t us) { observe(&reads, us); }

void metrics_analysis(int failed) { atomic_fetch_add(failed ? &analyses_failed : &analyses_done, 1); }

static void render_histo(srv_sb *b, const char *name, const char *help, histo *h)
{
	sb_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	long long cum = 0;
	for (int i = 0; i < NBUCKETS; i++) {
		cum += atomic_load(&h->bucket[i]);
		sb_printf(b, "%s_bucket{le=\"%g\"} %lld\n", name, BUCKETS[i], cum);
	}
	long long n = atomic_load(&h->count);
	sb_printf(b, "%s_bucket{le=\"+Inf\"} %lld\n%s_sum %.6f\n%s_count %lld\n", name, n, name,
	          (double)atomic_load(&h->sum_us) / 1e6, name, n);
}

static void gauge(srv_sb *b, const char *name, const char *help, double v)
{
	sb_printf(b, "# HELP %s %s\n# TYPE %s gauge\n%s %g\n", name, help, name, name, v);
}

void metrics_render(const metrics_gauges *g, srv_sb *b)
{
	long long sec = (long long)(srv_mono_us() / 1000000), recent = 0;
	/* the full seconds of the window before this one */
	for (int k = 0; k < MOVES_WINDOW_S; k++) {
		long long s = atomic_load(&second_of[k]);
		if (s < sec && s >= sec - MOVES_WINDOW_S)
			recent += atomic_load(&per_second[k]);
	}
	sb_printf(b, "# HELP carc_info The server's storage backend.\n# TYPE carc_info gauge\n"
	          "carc_info{store=\"%s\"} 1\n", g->store);
	sb_printf(b, "# HELP carc_tables Tables in this process's memory, by status.\n"
	          "# TYPE carc_tables gauge\n"
	          "carc_tables{status=\"open\"} %d\ncarc_tables{status=\"playing\"} %d\n"
	          "carc_tables{status=\"over\"} %d\ncarc_tables{status=\"all\"} %d\n",
	          g->open_tables, g->playing, g->over_tables, g->tables);
	sb_printf(b, "# HELP carc_moves_total Moves: stored by this process (own), or made by "
	          "another process and loaded here (other).\n# TYPE carc_moves_total counter\n"
	          "carc_moves_total{by=\"own\"} %lld\ncarc_moves_total{by=\"other\"} %lld\n",
	          atomic_load(&moves_own), atomic_load(&moves_other));
	gauge(b, "carc_moves_per_second", "Moves stored by this process per second, over the last "
	      "10 s.", (double)recent / MOVES_WINDOW_S);
	render_histo(b, "carc_store_write_seconds", "Time of one store write (a move, a seat, a "
	             "table) on the storage thread, commit included.", &writes);
	render_histo(b, "carc_store_read_seconds", "Time of one store read on the event loop "
	             "(a table loaded).", &reads);
	sb_printf(b, "# HELP carc_store_failed_writes_total Writes the database refused.\n"
	          "# TYPE carc_store_failed_writes_total counter\ncarc_store_failed_writes_total "
	          "%lld\n", atomic_load(&writes_failed));
	sb_printf(b, "# HELP carc_store_commits_total Transactions the storage thread committed "
	          "(one per group of writes).\n# TYPE carc_store_commits_total counter\n"
	          "carc_store_commits_total %lld\n", atomic_load(&commits));
	sb_printf(b, "# HELP carc_store_jobs_total Writes committed by the storage thread, in "
	          "those transactions (jobs / commits: the mean group).\n"
	          "# TYPE carc_store_jobs_total counter\ncarc_store_jobs_total %lld\n",
	          atomic_load(&jobs_committed));
	gauge(b, "carc_storage_ok", "1 while the database takes writes.", g->storage_ok);
	gauge(b, "carc_store_queue", "Writes waiting for the storage thread.", g->writes_queued);
	gauge(b, "carc_connections", "WebSocket clients at tables.", g->ws_conns);
	gauge(b, "carc_bots_pausing", "Bots waiting for their pause before thinking.",
	      g->bots_pausing);
	gauge(b, "carc_bot_queue", "Bot moves handed to the bot pool: queued or thinking.",
	      g->bots_thinking);
	gauge(b, "carc_bot_tables_held", "Tables whose bots this process plays (several "
	      "processes: the advisory lock of each).", g->bot_tables_held);
	sb_printf(b, "# HELP carc_bot_moves_over_budget_total Bot moves played by the fallback "
	          "(greedy) because the address that made their table was over "
	          "--bot-cpu-per-addr.\n# TYPE carc_bot_moves_over_budget_total counter\n"
	          "carc_bot_moves_over_budget_total %lld\n", g->bots_over_budget);
	sb_printf(b, "# HELP carc_bot_moves_cut_short_total Bot-only tables' moves stopped early "
	          "(their best so far played) to free a worker for a person's table.\n"
	          "# TYPE carc_bot_moves_cut_short_total counter\n"
	          "carc_bot_moves_cut_short_total %lld\n", g->bots_preempted);
	sb_printf(b, "# HELP carc_analyses_total Analyses of finished games: stored (done) or "
	          "given up (failed).\n# TYPE carc_analyses_total counter\n"
	          "carc_analyses_total{result=\"done\"} %lld\ncarc_analyses_total{result=\"failed\"} "
	          "%lld\n", atomic_load(&analyses_done), atomic_load(&analyses_failed));
	gauge(b, "carc_analyses_running", "Analyses of finished games computing or being stored.",
	      g->analyses);
	gauge(b, "carc_uptime_seconds", "Seconds since the start.", g->uptime_s);
}
