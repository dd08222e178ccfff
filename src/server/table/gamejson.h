/*
 * gamejson.h - the JSON a client gets of a game: the engine's views
 * (carc_view_*, carc_tiles_json) spliced into the server's messages, and
 * the rules object of a table's options. The engine writes every name and
 * every rule; nothing here knows a figure, a feature or a kind of step.
 *
 * The gj_* writers append JSON text to a srv_sb the caller owns.
 */
#ifndef CARC_SERVER_GAMEJSON_H
#define CARC_SERVER_GAMEJSON_H

#include <jansson.h>
#include <stddef.h>

#include "carc.h"
#include "server.h"

/* The rules object; expansions_json is the JSON array text of the names. */
void gj_rules(srv_sb *b, const carc_rules *r, const char *expansions_json);
/* The members of the engine's view (carc_view_members) for `parts`,
 * without braces, after a comma unless `first`. */
void gj_parts(srv_sb *b, const carc_game *g, unsigned parts, int first);
/* One member of the engine's view as its own text (malloc'd, the caller
 * frees): "scores", "by_kind" (CARC_VIEW_SCORES), "winners" (of "final"). */
char *gj_member(const carc_game *g, const char *key);
/* The log entry of the step just made, with its events (malloc'd). */
char *gj_log_entry(const carc_game *g, const carc_events *ev);
/* Tile definitions of the engine (a new reference). */
json_t *gj_tiles(void);
/* Every name the engine gives (a new reference): carc_vocabulary_json. */
json_t *gj_vocabulary(void);

#endif
