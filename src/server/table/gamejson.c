/*
 * gamejson.c - the engine's views in the server's messages (see
 * gamejson.h and docs/protocol.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamejson.h"

void gj_rules(srv_sb *b, const carc_rules *r, const char *expansions_json)
{
	sb_printf(b, "{\"players\":%d,\"farmers\":%s,\"farm_scoring\":\"%s\",\"small_city\":%s,"
	             "\"expansions\":",
	          r->players, r->farmers ? "true" : "false", carc_farm_scoring_name(r->farm_scoring),
	          r->small_city ? "true" : "false");
	sb_adds(b, expansions_json);
	sb_add(b, "}", 1);
}

void gj_parts(srv_sb *b, const carc_game *g, unsigned parts, int first)
{
	char *m = carc_view_members(g, parts);
	if (!m) {
		fprintf(stderr, "carc: out of memory writing a game view\n");
		abort(); /* the one OOM policy (srv_xmalloc's) */
	}
	if (!first && *m)
		sb_add(b, ",", 1);
	sb_adds(b, m);
	free(m);
}

static json_t *loads_or_die(char *text)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	if (!o) {
		fprintf(stderr, "carc: out of memory reading the engine's JSON\n");
		abort();
	}
	return o;
}

char *gj_member(const carc_game *g, const char *key)
{
	json_t *o = loads_or_die(carc_view_json(g, CARC_VIEW_SCORES | CARC_VIEW_FINAL));
	json_t *v = json_object_get(o, key);
	if (!v)
		v = json_object_get(json_object_get(o, "final"), key);
	char *s = json_dumps(v ? v : json_null(), JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s ? s : srv_xstrdup("null");
}

char *gj_log_entry(const carc_game *g, const carc_events *ev)
{
	char *s = carc_view_step(g, ev);
	if (!s) {
		fprintf(stderr, "carc: out of memory writing a log entry\n");
		abort();
	}
	return s;
}

json_t *gj_tiles(void)
{
	return loads_or_die(carc_tiles_json());
}

json_t *gj_vocabulary(void)
{
	return loads_or_die(carc_vocabulary_json());
}
