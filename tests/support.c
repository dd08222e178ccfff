/* support.c - see support.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

carc_rules t_rules(int players)
{
	carc_rules r;
	carc_rules_default(&r);
	r.players = players;
	return r;
}

void t_game(carc_game *g, const carc_rules *r, const char *tiles)
{
	int pile[CARC_TILE_TYPES] = {0};
	char err[CARC_ERRMSG_SIZE];
	for (const char *p = tiles; *p; p++) {
		char name[2] = {*p, 0};
		int t = carc_tile_parse(name);
		assert_true(t >= 0);
		pile[t]++;
	}
	assert_int_equal(carc_game_init(g, r, 1, pile, CARC_TILE_TYPES, err), CARC_OK);
	/* fix the draw order to the given one */
	for (int i = 0; tiles[i]; i++) {
		char name[2] = {tiles[i], 0};
		int t = carc_tile_parse(name);
		/* pile[pos + i] := t by swapping it forward */
		for (int k = g->pos + i; k < g->npile; k++)
			if (g->pile[k] == t) {
				uint8_t s = g->pile[g->pos + i];
				g->pile[g->pos + i] = g->pile[k];
				g->pile[k] = s;
				break;
			}
	}
}

carc_status t_try(carc_game *g, int x, int y, int rot, const char *fig_port,
                  char err[CARC_ERRMSG_SIZE])
{
	int type = carc_current_tile(g);
	int seg = CARC_SEG_NONE;
	if (fig_port) {
		int port = carc_port_parse(fig_port);
		assert_true(port >= 0);
		seg = carc_tile_port_segment(type, rot, port);
		if (seg < 0) {
			snprintf(err, CARC_ERRMSG_SIZE, "tile has nothing at %s", fig_port);
			return CARC_ERR_ILLEGAL;
		}
	}
	return carc_apply(g, carc_move_make(x, y, rot, seg, CARC_FIG_FOLLOWER), NULL, err);
}

void t_play(carc_game *g, int x, int y, int rot, const char *fig_port)
{
	char err[CARC_ERRMSG_SIZE] = "";
	carc_status st = t_try(g, x, y, rot, fig_port, err);
	if (st != CARC_OK)
		fail_msg("move (%d, %d) rot %d %s: %s", x, y, rot, fig_port ? fig_port : "-", err);
	t_check(g);
}

void t_check(const carc_game *g)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_game_check(g, err) != CARC_OK)
		fail_msg("state check: %s", err);
}

const char *t_shared(const char *rel)
{
	static char buf[1024];
	const char *dir = getenv("SHARED_DIR");
	snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : "../shared", rel);
	return buf;
}
