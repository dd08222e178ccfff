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
	int pile[TILE_TYPES] = {0};
	char err[CARC_ERRMSG_SIZE];
	for (const char *p = tiles; *p; p++) {
		char name[2] = {*p, 0};
		int t = carc_tile_parse(name);
		assert_true(t >= 0);
		pile[t]++;
	}
	assert_int_equal(carc_game_init(g, r, 1, pile, TILE_TYPES, err), CARC_OK);
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

const char *t_spec(const char *rel)
{
	static char buf[1024];
	snprintf(buf, sizeof buf, "spec/%s", rel);
	return buf;
}

carc_move t_move(const carc_game *g, int x, int y, int rot, const char *fig_port)
{
	int seg = CARC_SEG_NONE;
	if (fig_port) {
		int port = carc_port_parse(fig_port);
		if (port < 0)
			fail_msg("no port named %s", fig_port);
		seg = carc_tile_port_segment(carc_current_tile(g), rot, port);
		if (seg < 0)
			fail_msg("tile %s has nothing at %s", carc_tile_name(carc_current_tile(g)),
			         fig_port);
	}
	return carc_move_make(x, y, rot, seg, CARC_FIG_FOLLOWER);
}

void t_play_ev(carc_game *g, int x, int y, int rot, const char *fig_port,
               carc_events *ev)
{
	char err[CARC_ERRMSG_SIZE] = "";
	carc_status st = carc_apply(g, t_move(g, x, y, rot, fig_port), ev, err);
	if (st != CARC_OK)
		fail_msg("move (%d, %d) rot %d %s: %s", x, y, rot, fig_port ? fig_port : "-", err);
	t_check(g);
}

void t_scores(const carc_game *g, const int *want)
{
	int got[CARC_MAX_PLAYERS];
	carc_game_scores(g, got);
	for (int p = 0; p < g->rules.players; p++)
		if (got[p] != want[p])
			fail_msg("player %d scores %d, expected %d", p, got[p], want[p]);
}

void t_illegal(carc_game *g, carc_move m)
{
	carc_game *before = malloc(sizeof *before);
	assert_non_null(before);
	memcpy(before, g, sizeof *g);
	char err[CARC_ERRMSG_SIZE] = "";
	carc_status st = carc_check_move(g, m, err);
	if (st != CARC_ERR_ILLEGAL)
		fail_msg("move 0x%08x: check says %d, expected CARC_ERR_ILLEGAL", m, st);
	assert_true(err[0] != 0);
	carc_events ev;
	err[0] = 0;
	st = carc_apply(g, m, &ev, err);
	if (st != CARC_ERR_ILLEGAL)
		fail_msg("move 0x%08x: apply says %d, expected CARC_ERR_ILLEGAL", m, st);
	assert_true(err[0] != 0);
	if (memcmp(before, g, sizeof *g) != 0)
		fail_msg("move 0x%08x (%s) was rejected but changed the game", m, err);
	free(before);
}
