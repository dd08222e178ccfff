/*
 * test_features.c - the feature queries of carc.h (carc_feature_*,
 * carc_held_features, carc_field_cities) and the turn history.
 *
 * A scenario checks a city before and after it is completed by hand. Then
 * seeded random games, with the base game and with every expansion, check
 * after every move each query against what is computed here from the
 * board alone (tiles, their segments and ports, the figures):
 * - the segments of one feature share an id, and kind_of gives the
 *   segment's kind; find(id) == id;
 * - tiles: the distinct board tiles with a segment of the feature;
 * - open (road, city): the (tile, side) pairs where a segment of the
 *   feature reaches an empty square; a road or city is done iff it has
 *   no open side left;
 * - shields and CARC_SEGF_* flags: those of its segments united;
 * - neighbours of a cloister or garden: tiles among the 8 squares around;
 * - held features and carc_feature_get: the figures of carc_board_figures
 *   on the feature, by player, the majority weights, the pigs;
 * - the cities a field borders: the ids of the city segments its
 *   segments list (carc_tile_segment), each once;
 * - the ids of the position before still lead to the right feature;
 * - carc_turn_played gives back every move played and tile drawn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define GAMES 12

static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

/* Ports of segment s of a tile type turned by rot (as on the board). */
static unsigned board_ports(int type, int rot, int s)
{
	unsigned ports = 0;
	carc_tile_segment(type, s, NULL, &ports, NULL, NULL);
	unsigned edge = ports & 0xFFFu;
	return ((edge << (3 * rot)) | (edge >> (12 - 3 * rot))) & 0xFFFu;
}

/* ---- a scenario -------------------------------------------------------------- */

/*
 * D at (0,0). Red puts U at (1,0); blue puts E at (1,-1) with a follower
 * on its city (N1); red closes the city with E at (1,-2) turned twice.
 */
static void city_before_and_after(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	t_game(g, &r, "UEE");
	t_play(g, 1, 0, 0, NULL);
	t_play(g, 1, -1, 0, "N1");
	int e = carc_tile_at(g, 1, -1);
	assert_int_equal(e, 2);
	int type, rot;
	carc_board_tile(g, e, &type, NULL, NULL, &rot, NULL);
	int cs = carc_tile_port_segment(type, rot, carc_port_parse("N1"));
	assert_true(cs >= 0);
	int id = carc_feature_id(g, e, cs);
	assert_true(id >= 0);
	assert_int_equal(carc_feature_kind_of(g, id), CARC_FEAT_CITY);
	assert_int_equal(carc_feature_open(g, id), 1);
	assert_int_equal(carc_feature_tiles(g, id), 1);
	assert_int_equal(carc_feature_figures(g, id), 1);
	assert_int_equal(carc_feature_done(g, id), 0);
	carc_feature_info fi;
	assert_int_equal(carc_feature_get(g, id, 1, 1, &fi), 0);
	assert_int_equal(fi.id, id);
	assert_int_equal(fi.weight[1], 1);
	assert_int_equal(fi.weight[0], 0);
	assert_int_equal(fi.figures[1], 1);
	assert_int_equal(fi.tiles, 1);
	carc_feature_info held[8];
	assert_int_equal(carc_held_features(g, held, 8, 1), 1);
	assert_int_equal(held[0].id, id);
	assert_int_equal(held[0].kind, CARC_FEAT_CITY);

	t_play(g, 1, -2, 2, NULL);
	int top = carc_tile_at(g, 1, -2);
	carc_board_tile(g, top, &type, NULL, NULL, &rot, NULL);
	int ts = carc_tile_port_segment(type, rot, carc_port_parse("S1"));
	int now = carc_feature_id(g, top, ts);
	assert_int_equal(carc_feature_find(g, id), now);
	assert_int_equal(carc_feature_id(g, e, cs), now);
	assert_int_equal(carc_feature_open(g, now), 0);
	assert_int_equal(carc_feature_done(g, now), 1);
	assert_int_equal(carc_feature_tiles(g, now), 2);
	assert_int_equal(carc_feature_figures(g, now), 0); /* the follower came home */
	assert_int_equal(carc_held_features(g, held, 8, 1), 0);

	/* the turns as played */
	assert_int_equal(carc_turns_played(g), 3);
	int tt, pl;
	carc_move m = carc_turn_played(g, 1, &tt, &pl);
	assert_int_equal(tt, carc_tile_parse("E"));
	assert_int_equal(pl, 1);
	assert_int_equal(carc_move_x(m), 1);
	assert_int_equal(carc_move_y(m), -1);
	assert_int_equal(carc_move_figure(m), CARC_FIG_FOLLOWER);
	assert_int_equal(carc_turn_played(g, 3, NULL, NULL), CARC_MOVE_NONE);
	assert_int_equal(carc_turn_played(g, -1, NULL, NULL), CARC_MOVE_NONE);

	/* out of range */
	assert_int_equal(carc_feature_id(g, 99, 0), -1);
	assert_int_equal(carc_feature_id(g, 0, 40), -1);
	assert_int_equal(carc_feature_find(g, ST_MAX_NODES), -1);
	assert_int_equal(carc_feature_get(g, -1, 0, 0, &fi), -1);
	free(g);
}

/* ---- every query against the board, in random games ---------------------------- */

typedef struct expect {
	int tiles, open, shields, flags, neighbours, kind;
	int weight[CARC_MAX_PLAYERS], figures[CARC_MAX_PLAYERS], occupying, pigs;
	int nseen;
	uint64_t seen[(ST_MAX_TILES + 63) / 64];
} expect;

static void check_position(const carc_game *g, const int *prev_id, int prev_tiles,
                           expect *ex)
{
	const int nt = carc_board_tiles(g);
	static int idof[ST_MAX_TILES][CARC_MAX_SEGS];
	memset(ex, 0, sizeof(expect) * ST_MAX_NODES);
	for (int i = 0; i < nt; i++) {
		int type, x, y, rot;
		assert_int_equal(carc_board_tile(g, i, &type, &x, &y, &rot, NULL), 0);
		int nseg = carc_tile_segments(type);
		for (int s = 0; s < nseg; s++) {
			int id = carc_feature_id(g, i, s);
			assert_true(id >= 0 && id < ST_MAX_NODES);
			idof[i][s] = id;
			assert_int_equal(carc_feature_find(g, id), id);
			int kind;
			unsigned flags;
			carc_tile_segment(type, s, &kind, NULL, &flags, NULL);
			assert_int_equal(carc_feature_kind_of(g, id), kind);
			expect *e = &ex[id];
			e->kind = kind;
			if (!(e->seen[i >> 6] >> (i & 63) & 1)) {
				e->seen[i >> 6] |= 1ull << (i & 63);
				e->tiles++;
			}
			e->flags |= (int)(flags & 0xFFu & ~CARC_SEGF_SHIELD);
			if (flags & CARC_SEGF_SHIELD) {
				e->shields++;
				e->flags |= CARC_SEGF_SHIELD;
			}
			unsigned rp = board_ports(type, rot, s);
			for (int d = 0; d < 4; d++)
				if ((rp >> (3 * d) & 7u) && carc_tile_at(g, x + DX[d], y + DY[d]) < 0)
					e->open++;
			if (kind == CARC_FEAT_CLOISTER || kind == CARC_FEAT_GARDEN)
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++)
						if ((dx || dy) && carc_tile_at(g, x + dx, y + dy) >= 0)
							e->neighbours++;
		}
	}
	/* ids of the position before: the feature they belonged to, now */
	for (int i = 0; i < prev_tiles; i++) {
		int type;
		carc_board_tile(g, i, &type, NULL, NULL, NULL, NULL);
		for (int s = 0; s < carc_tile_segments(type); s++)
			assert_int_equal(carc_feature_find(g, prev_id[i * CARC_MAX_SEGS + s]),
			                 idof[i][s]);
	}
	/* figures, from the board */
	carc_figure_info figs[CARC_MAX_FIGURES];
	int nf = carc_board_figures(g, figs, CARC_MAX_FIGURES);
	int order[CARC_MAX_FIGURES], norder = 0;
	for (int k = 0; k < nf; k++) {
		int id = idof[figs[k].tile][figs[k].seg];
		expect *e = &ex[id];
		int occ = figs[k].kind == CARC_FIG_FOLLOWER || figs[k].kind == CARC_FIG_BIG ||
		          figs[k].kind == CARC_FIG_ABBOT;
		int w = (e->kind == CARC_FEAT_CLOISTER || e->kind == CARC_FEAT_GARDEN)
		            ? occ
		            : figs[k].kind == CARC_FIG_BIG ? 2 : figs[k].kind == CARC_FIG_FOLLOWER;
		e->weight[figs[k].owner] += w;
		e->figures[figs[k].owner]++;
		e->occupying += occ;
		if (figs[k].kind == CARC_FIG_PIG)
			e->pigs |= 1 << figs[k].owner;
		int dup = 0;
		for (int j = 0; j < norder; j++)
			dup |= order[j] == id;
		if (!dup)
			order[norder++] = id;
	}
	carc_feature_info held[CARC_MAX_FIGURES];
	int nh = carc_held_features(g, held, CARC_MAX_FIGURES, 1);
	assert_int_equal(nh, norder);
	const int np = carc_players(g);
	for (int id = 0; id < ST_MAX_NODES; id++) {
		const expect *e = &ex[id];
		if (!e->tiles)
			continue;
		carc_feature_info fi;
		assert_int_equal(carc_feature_get(g, id, 1, 1, &fi), 0);
		assert_int_equal(fi.id, id);
		assert_int_equal(fi.kind, e->kind);
		assert_int_equal(fi.tiles, e->tiles);
		assert_int_equal(carc_feature_tiles(g, id), e->tiles);
		assert_int_equal(fi.shields, e->shields);
		assert_int_equal(fi.flags, e->flags);
		assert_int_equal(fi.pigs, e->pigs);
		assert_int_equal(carc_feature_figures(g, id), e->occupying);
		for (int p = 0; p < np; p++) {
			assert_int_equal(fi.weight[p], e->weight[p]);
			assert_int_equal(fi.figures[p], e->figures[p]);
		}
		if (e->kind == CARC_FEAT_ROAD || e->kind == CARC_FEAT_CITY) {
			assert_int_equal(fi.open, e->open);
			assert_int_equal(carc_feature_open(g, id), e->open);
			assert_int_equal(fi.done, e->open == 0);
			assert_int_equal(carc_feature_done(g, id), e->open == 0);
		}
		if (e->kind == CARC_FEAT_CLOISTER || e->kind == CARC_FEAT_GARDEN)
			assert_int_equal(fi.neighbours, e->neighbours);
	}
	for (int k = 0; k < nh; k++) {
		assert_int_equal(held[k].id, order[k]);
		carc_feature_info fi;
		carc_feature_get(g, held[k].id, 1, 1, &fi);
		if (fi.kind != CARC_FEAT_ROAD && fi.kind != CARC_FEAT_CITY)
			fi.tiles = 0; /* counted for roads and cities only */
		assert_memory_equal(&fi, &held[k], sizeof fi);
	}
	/* cities of each field */
	for (int id = 0; id < ST_MAX_NODES; id++) {
		if (!ex[id].tiles || ex[id].kind != CARC_FEAT_FIELD)
			continue;
		int want[64], nw = 0;
		for (int i = 0; i < nt; i++) {
			int type;
			carc_board_tile(g, i, &type, NULL, NULL, NULL, NULL);
			for (int s = 0; s < carc_tile_segments(type); s++) {
				if (idof[i][s] != id)
					continue;
				unsigned cm = 0;
				carc_tile_segment(type, s, NULL, NULL, NULL, &cm);
				for (int c = 0; c < CARC_MAX_SEGS; c++) {
					if (!(cm >> c & 1u))
						continue;
					int dup = 0;
					for (int j = 0; j < nw; j++)
						dup |= want[j] == idof[i][c];
					if (!dup && nw < 64)
						want[nw++] = idof[i][c];
				}
			}
		}
		uint16_t got[64];
		int ng = carc_field_cities(g, id, got, 64);
		assert_int_equal(ng, nw);
		for (int j = 0; j < nw; j++) {
			int found = 0;
			for (int k = 0; k < ng; k++)
				found |= got[k] == want[j];
			assert_true(found);
			assert_int_equal(carc_feature_kind_of(g, want[j]), CARC_FEAT_CITY);
		}
	}
}

static void play_checked(unsigned expansions, int players, uint64_t seed)
{
	carc_rules r;
	carc_rules_default(&r);
	r.players = players;
	r.expansions = expansions;
	carc_game *g = malloc(sizeof *g);
	expect *ex = malloc(sizeof *ex * ST_MAX_NODES);
	int *prev = malloc(sizeof *prev * ST_MAX_TILES * CARC_MAX_SEGS);
	carc_move *moves = malloc(sizeof *moves * CARC_MAX_MOVES);
	assert_true(g && ex && prev && moves);
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_game_init(g, &r, seed, NULL, 0, err), CARC_OK);
	uint64_t s = seed;
	int prev_tiles = 0, turns = 0;
	carc_move played[ST_MAX_TILES];
	int drawn[ST_MAX_TILES], who[ST_MAX_TILES];
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
		assert_true(n > 0);
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		carc_move m = moves[(s >> 33) % (uint64_t)n];
		/* the ids of this position, for the next */
		prev_tiles = carc_board_tiles(g);
		for (int i = 0; i < prev_tiles; i++) {
			int type;
			carc_board_tile(g, i, &type, NULL, NULL, NULL, NULL);
			for (int k = 0; k < carc_tile_segments(type); k++)
				prev[i * CARC_MAX_SEGS + k] = carc_feature_id(g, i, k);
		}
		drawn[turns] = carc_current_tile(g);
		who[turns] = carc_to_move(g);
		played[turns++] = m;
		assert_int_equal(carc_apply(g, m, NULL, err), CARC_OK);
		check_position(g, prev, prev_tiles, ex);
	}
	assert_int_equal(carc_turns_played(g), turns);
	for (int k = 0; k < turns; k++) {
		int type, player;
		assert_int_equal(carc_turn_played(g, k, &type, &player), played[k]);
		assert_int_equal(type, drawn[k]);
		assert_int_equal(player, who[k]);
	}
	free(moves);
	free(prev);
	free(ex);
	free(g);
}

static void random_games_base(void **state)
{
	(void)state;
	for (int i = 0; i < GAMES; i++)
		play_checked(0, 2 + i % 4, 1000 + (uint64_t)i);
}

static void random_games_expansions(void **state)
{
	(void)state;
	const unsigned all =
	    CARC_EXP_RIVER | CARC_EXP_INNS | CARC_EXP_TRADERS | CARC_EXP_ABBOT;
	for (int i = 0; i < GAMES; i++)
		play_checked(all, 2 + i % 5, 2000 + (uint64_t)i);
	play_checked(CARC_EXP_INNS_TILES | CARC_EXP_ABBOT, 3, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(city_before_and_after),
		cmocka_unit_test(random_games_base),
		cmocka_unit_test(random_games_expansions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
