/*
 * match.h - quick match: "play a person now" (docs/server.md "Quick
 * match", docs/protocol.md "Quick match"). A logged-in person chooses the
 * players (2-4), a rule set and a clock from a few presets; the queue in
 * the store (store.h, match_*) seats people of the same choice whose
 * ratings are close enough at a new rated table, made like any table
 * (tables_new_as, tables_create_job). Several processes on one PostgreSQL
 * database share the queue; nobody is seated twice.
 *
 * The endpoints: POST /api/match (join), GET /api/match (poll, the
 * heartbeat), POST /api/match/leave. Everything here runs on the
 * event-loop thread but the queue's calls, which the storage thread runs.
 */
#ifndef CARC_SERVER_MATCH_H
#define CARC_SERVER_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "request.h"
#include "server.h"

/* How a late answer goes out (net_http_answer): takes the body. */
typedef void (*match_answer_fn)(uint64_t serial, int status, const char *ctype, char *body,
                                size_t len, const char *cookie, const char *disposition);

/* Installs the answer hook; the API calls it at start. */
void match_setup(match_answer_fn answer);

/* The endpoints under /api/match: 1 when rq is one of them (rs is filled,
 * or its status is 0 when the answer follows), 0 otherwise. cfg is the
 * server's (borrowed for its life: the storage thread reads it too). */
int match_http(const srv_config *cfg, const api_req *rq, api_resp *rs);

/* The rating window of someone who has waited `waited_ms`: rating points
 * two people may be apart (docs/server.md "Quick match"). */
double match_window(const srv_config *cfg, int64_t waited_ms);

#endif
