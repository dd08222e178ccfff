/*
 * engine.h - internals shared by the core modules (not part of the API).
 *
 * Board squares live in an open-addressing hash (g->hmap) from (x, y) to a
 * placed tile or a frontier cell; an entry is never deleted (a frontier
 * square only ever turns into a tile). Features are union-find trees over
 * segment nodes; a root carries the feature's open sides, followers,
 * shields and flags, and every node is on a circular list of its feature's
 * members so that a feature can be walked when it is scored.
 */
#ifndef CARC_ENGINE_H
#define CARC_ENGINE_H

#include <stdint.h>

#include "carc.h"
#include "state.h"
#include "tiles.h"
#include "tiletab.h"

#define NODE_DONE 0x80u /* a completed road or city, already scored */

#define HM_FRONTIER 0x200u
#define HM_VAL_MASK 0x3FFu

static inline uint32_t hm_key(int x, int y)
{
	return ((uint32_t)(x + 1024) << 11) | (uint32_t)(y + 1024);
}

static inline unsigned hm_slot(uint32_t key)
{
	return (key * 0x9E3779B1u) >> (32 - ST_HASH_BITS);
}

/* The slot holding key, or the empty slot where it would go. */
static inline unsigned hm_probe(const carc_game *g, uint32_t key)
{
	unsigned i = hm_slot(key);
	for (;;) {
		uint32_t e = g->hmap[i];
		if (!e || (e >> 10) == key)
			return i;
		i = (i + 1) & (ST_HASH_SIZE - 1);
	}
}

/* Entry for (x, y): the low 10 bits of hmap, or -1 if the square is not
 * on the board nor next to it. */
static inline int hm_get(const carc_game *g, int x, int y)
{
	uint32_t e = g->hmap[hm_probe(g, hm_key(x, y))];
	return e ? (int)(e & HM_VAL_MASK) : -1;
}

static inline int eng_find(const carc_game *g, int n)
{
	while (g->node[n].parent != n)
		n = g->node[n].parent;
	return n;
}

static inline int eng_find_compress(carc_game *g, int n)
{
	while (g->node[n].parent != n) {
		g->node[n].parent = g->node[g->node[n].parent].parent;
		n = g->node[n].parent;
	}
	return n;
}

static const int8_t DX[4] = {0, 1, 0, -1};
static const int8_t DY[4] = {-1, 0, 1, 0};

static inline int fig_weight(int kind)
{
	return kind == CARC_FIG_BIG ? 2 : (kind == CARC_FIG_FOLLOWER ? 1 : 0);
}

/* A figure that occupies a feature (no one else may put one there). */
static inline int fig_occupies(int kind)
{
	return kind == CARC_FIG_FOLLOWER || kind == CARC_FIG_BIG ||
	       kind == CARC_FIG_ABBOT;
}

/* River tiles: 0 not a river tile, 1 a river piece (two river sides),
 * 2 a river end (one side: the spring or the lake). */
static inline int river_class(int type) { return TT_RIVER[type]; }

static inline unsigned river_sides(int type, int rot)
{
	unsigned e = TT_EDGES[type][rot], m = 0;
	for (int d = 0; d < 4; d++)
		if (((e >> (2 * d)) & 3u) == EDGE_RIVER)
			m |= 1u << d;
	return m;
}

uint64_t eng_mix64(uint64_t x);
/* The message of a refusal into err (CARC_ERRMSG_SIZE bytes; NULL: none
 * wanted). */
void eng_seterr(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* game.c: the decisions of the current step when it is not a tile step */
int eng_step_moves(const carc_game *g, carc_move *buf, int max);
/* names.c: a figure kind in words for messages ("big follower") */
const char *eng_figure_words(int kind);
/* game.c: puts player p's figure of kind `kind` on node (no rule
 * checked; the figure slots are never overrun: carc_game_init refused a
 * game whose figures could not all stand on the board at once). */
void eng_place_figure(carc_game *g, int node, int p, int kind);
/* board.c */
int eng_place_tile(carc_game *g, int x, int y, int type, int rot, int player);
uint64_t eng_tile_key(int x, int y, int type, int rot);
uint64_t eng_fig_key(const carc_game *g, int node, int owner, int kind);
/* score.c */
/* Takes the figure in slot back to its owner's supply (a "returned" event
 * into ev when not NULL). */
void eng_remove_figure(carc_game *g, int slot, int final, carc_events *ev);
/* Scores the road or city with root r, completed (placer: who placed the
 * completing tile, takes its goods) or at the end (placer -1). */
void eng_score_feature(carc_game *g, int r, int complete, int placer, carc_events *ev);
void eng_score_cloister(carc_game *g, int c, int complete, int final, carc_events *ev);
void eng_final_scoring(carc_game *g, carc_events *ev);
/* Points of the road or city with root r of `tiles` tiles, completed or
 * at the end. */
int eng_feature_points(const carc_game *g, int r, int tiles, int complete);
/* Distinct tiles of the feature with root r (walks it); the goods symbols
 * on it added into goods[CARC_GOODS_COUNT] unless NULL. */
int eng_feature_tiles(const carc_game *g, int r, int *goods);
/* Cities the field with root r borders (completed only if done_only), each
 * root once; returns the count (at most max written). */
int eng_field_cities(const carc_game *g, int r, int done_only, uint16_t *out, int max);
/* score.c: points of the fairy (1 at a turn's start, 3 with its
 * follower's feature) to player p, an event at board tile t, segment s */
void eng_add_fairy_points(carc_game *g, int p, int pts, int t, int s, carc_events *ev);
/* dragon.c: Princess & Dragon (see there) */
int pd_on(const carc_game *g);
void pd_figure_removed(carc_game *g, int slot);
int pd_held_back(const carc_game *g, int type);
int pd_fix_draw(carc_game *g);
int pd_held_count(const carc_game *g);
void pd_turn_start(carc_game *g, carc_events *ev);
int pd_after_tile(carc_game *g, int t, int acted);
int pd_after_action(carc_game *g);
int pd_apply(carc_game *g, carc_move m, carc_events *ev);
int pd_moves(const carc_game *g, carc_move *buf, int max);
carc_status pd_check(const carc_game *g, carc_move m, char *err);
int pd_decision(const carc_game *g, int kind, carc_move m, int *tile, int *seg, int *fig,
                const char **what);
carc_move pd_encode(const char *what, int t, int s, int fig);
void pd_would_eat(const carc_game *g, carc_move m, uint8_t *gone);
/* tiles.c */
int eng_type_in_rules(const carc_rules *r, int type);

#endif
