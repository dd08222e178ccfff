/*
 * move_json.c - a decision's JSON as jansson values (see move_json.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "move_json.h"

#include "carc_jansson.h"

json_t *mj_move(const carc_game *g, carc_move m)
{
	char *text = carc_move_json(g, m);
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	return o ? o : json_null();
}

carc_status mj_parse(const carc_game *g, const json_t *o, carc_move *m, char *err,
                     size_t errsize)
{
	char e[CARC_ERRMSG_SIZE];
	if (!json_is_object(o)) {
		snprintf(err, errsize, "a move must be a JSON object");
		return CARC_ERR_PARSE;
	}
	carc_status st = carc_move_from_json(g, o, m, e);
	if (st != CARC_OK)
		snprintf(err, errsize, "%s", e);
	return st;
}
