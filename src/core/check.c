/*
 * check.c - carc_game_check: recomputes the whole state from the board and
 * compares it with what the engine keeps incrementally.
 *
 * It shares nothing with the incremental code but the tile tables: features
 * are found again by a flood fill over ports, open sides by looking at the
 * squares around, the frontier by scanning the neighbours of every tile.
 * Debug and test builds assert it after every move (CARC_DEBUG_CHECK).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

static carc_status fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static carc_status fail(char *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, CARC_ERRMSG_SIZE, fmt, ap);
		va_end(ap);
	}
	return CARC_ERR_ARG;
}

/* A dense grid over the board's bounding box (with a margin of 2), built
 * from the tile list alone: the check's own view of the board. The box of
 * n connected tiles has width + height <= n + 1, so its area is bounded. */
#define GRID_MAX (((ST_MAX_TILES + 1) / 2 + 5) * ((ST_MAX_TILES + 1) / 2 + 6))
typedef struct grid {
	int x0, y0, w, h;
	int16_t cell[GRID_MAX];
} grid;

static int grid_build(grid *gr, const carc_game *g)
{
	int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *t = &g->tiles[i];
		x0 = t->x < x0 ? t->x : x0;
		y0 = t->y < y0 ? t->y : y0;
		x1 = t->x > x1 ? t->x : x1;
		y1 = t->y > y1 ? t->y : y1;
	}
	gr->x0 = x0 - 2;
	gr->y0 = y0 - 2;
	gr->w = x1 - x0 + 5;
	gr->h = y1 - y0 + 5;
	if (gr->w * gr->h > GRID_MAX)
		return -1;
	for (int i = 0; i < gr->w * gr->h; i++)
		gr->cell[i] = -1;
	for (int i = 0; i < g->ntiles; i++) {
		int16_t *c = &gr->cell[(g->tiles[i].y - gr->y0) * gr->w + g->tiles[i].x - gr->x0];
		if (*c >= 0)
			return -2 - i;
		*c = (int16_t)i;
	}
	return 0;
}

/* tile index at (x, y), -1 if none */
static int scan_tile_g(const grid *gr, int x, int y)
{
	x -= gr->x0;
	y -= gr->y0;
	if (x < 0 || y < 0 || x >= gr->w || y >= gr->h)
		return -1;
	return gr->cell[y * gr->w + x];
}
#define scan_tile(g, x, y) scan_tile_g(&board, (x), (y))

carc_status carc_game_check(const carc_game *g, char err[CARC_ERRMSG_SIZE])
{
	static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
	int nbr[ST_MAX_TILES][4];
	/* Princess & Dragon: in the action and dragon steps what the turn's
	 * tile completed waits for the turn's scoring */
	const int pending = !g->over && (g->step == ST_STEP_ACTION || g->step == ST_STEP_DRAGON);
	grid board;
	int gb = grid_build(&board, g);
	if (gb == -1)
		return fail(err, "the board spreads wider than %d tiles allow", g->ntiles);
	if (gb < -1)
		return fail(err, "two tiles at (%d, %d)", g->tiles[-2 - gb].x, g->tiles[-2 - gb].y);

	/* board squares */
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *t = &g->tiles[i];
		if (hm_get(g, t->x, t->y) != i)
			return fail(err, "square map lost tile %d at (%d, %d)", i, t->x, t->y);
		for (int d = 0; d < 4; d++)
			nbr[i][d] = scan_tile(g, t->x + dx[d], t->y + dy[d]);
	}

	/* frontier: exactly the empty squares next to a tile, with the edges
	 * their neighbours demand */
	int nfront = 0;
	for (int i = 0; i < g->ntiles; i++)
		for (int d = 0; d < 4; d++) {
			if (nbr[i][d] >= 0)
				continue;
			int x = g->tiles[i].x + dx[d], y = g->tiles[i].y + dy[d];
			int v = hm_get(g, x, y);
			if (v < 0 || !(v & HM_FRONTIER))
				return fail(err, "square (%d, %d) is missing from the frontier", x, y);
			const carc_cell *c = &g->frontier[v & (HM_FRONTIER - 1)];
			if (c->x != x || c->y != y)
				return fail(err, "frontier entry for (%d, %d) points elsewhere", x, y);
			unsigned req = 0, mask = 0;
			for (int e = 0; e < 4; e++) {
				int t = scan_tile(g, x + dx[e], y + dy[e]);
				if (t < 0)
					continue;
				unsigned code = TT_EDGES[g->tiles[t].type][g->tiles[t].rot] >>
				                (2 * ((e + 2) & 3)) & 3u;
				req |= code << (2 * e);
				mask |= 3u << (2 * e);
			}
			if (c->req != req || c->mask != mask)
				return fail(err, "frontier (%d, %d) demands %02x/%02x, neighbours say %02x/%02x",
				            x, y, c->req, c->mask, req, mask);
		}
	for (int f = 0; f < g->nfrontier; f++) {
		const carc_cell *c = &g->frontier[f];
		if (scan_tile(g, c->x, c->y) >= 0)
			return fail(err, "frontier square (%d, %d) holds a tile", c->x, c->y);
		int touching = 0;
		for (int d = 0; d < 4; d++)
			touching |= scan_tile(g, c->x + dx[d], c->y + dy[d]) >= 0;
		if (!touching)
			return fail(err, "frontier square (%d, %d) touches no tile", c->x, c->y);
		nfront++;
	}
	(void)nfront;

	/* features: flood fill over ports */
	if (g->nnodes > ST_MAX_NODES)
		return fail(err, "%d nodes", g->nnodes);
	uint16_t label[ST_MAX_NODES], stack[ST_MAX_NODES];
	int open[ST_MAX_NODES], nlab = 0;
	for (int n = 0; n < g->nnodes; n++)
		label[n] = 0xFFFF;
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *t = &g->tiles[i];
		if (t->node0 + tile_defs[t->type].nseg > g->nnodes)
			return fail(err, "tile %d nodes out of range", i);
		for (int s = 0; s < tile_defs[t->type].nseg; s++) {
			int n = t->node0 + s;
			if (g->node[n].tile != i || g->node[n].seg != s)
				return fail(err, "node %d does not name tile %d segment %d", n, i, s);
		}
	}
	for (int start = 0; start < g->nnodes; start++) {
		if (label[start] != 0xFFFF)
			continue;
		int sp = 0, lab = nlab++;
		open[lab] = 0;
		label[start] = (uint16_t)lab;
		stack[sp++] = (uint16_t)start;
		while (sp) {
			int n = stack[--sp];
			int ti = g->node[n].tile, s = g->node[n].seg;
			const carc_placed *t = &g->tiles[ti];
			int kind = tile_defs[t->type].seg[s].kind;
			unsigned own = tile_defs[t->type].seg[s].ports;
			own = ((own << (3 * t->rot)) | (own >> (12 - 3 * t->rot))) & 0xFFFu;
			for (; own; own &= own - 1) {
				int p = __builtin_ctz(own);
				int d = p / 3, k = p % 3;
				int nb = nbr[ti][d];
				if (nb < 0) {
					if (k == 1 && kind != CARC_FEAT_FIELD)
						open[lab]++;
					continue;
				}
				const carc_placed *u = &g->tiles[nb];
				int q = 3 * ((d + 2) & 3) + 2 - k;
				int m = u->node0 + TT_PORTSEG[u->type][u->rot][q];
				if (label[m] == 0xFFFF) {
					label[m] = (uint16_t)lab;
					stack[sp++] = (uint16_t)m;
				}
			}
		}
	}
	int rootlab[ST_MAX_NODES], labroot[ST_MAX_NODES];
	for (int n = 0; n < g->nnodes; n++)
		rootlab[n] = labroot[n] = -1;
	for (int n = 0; n < g->nnodes; n++) {
		int r = eng_find(g, n), l = label[n];
		if (rootlab[r] < 0)
			rootlab[r] = l;
		if (labroot[l] < 0)
			labroot[l] = r;
		if (rootlab[r] != l || labroot[l] != r)
			return fail(err, "node %d (tile %d seg %d): union-find and flood fill disagree",
			            n, g->node[n].tile, g->node[n].seg);
		if (g->node[n].kind != tile_defs[g->tiles[g->node[n].tile].type].seg[g->node[n].seg].kind)
			return fail(err, "node %d has the wrong kind", n);
	}

	/* per feature sums */
	int shields[ST_MAX_NODES], figs[ST_MAX_NODES], members[ST_MAX_NODES];
	unsigned owners[ST_MAX_NODES];
	memset(shields, 0, sizeof shields);
	memset(figs, 0, sizeof figs);
	memset(members, 0, sizeof members);
	memset(owners, 0, sizeof owners);
	for (int n = 0; n < g->nnodes; n++) {
		const carc_placed *t = &g->tiles[g->node[n].tile];
		if (tile_defs[t->type].seg[g->node[n].seg].flags & CARC_SEGF_SHIELD)
			shields[label[n]]++;
	}
	for (int i = g->nfig; i < ST_MAX_FIGURES; i++)
		if (g->fig[i].owner != 255)
			return fail(err, "figure slot %d is used above the mark %d", i, g->nfig);
	int on_board[CARC_MAX_PLAYERS][CARC_FIG_COUNT];
	memset(on_board, 0, sizeof on_board);
	for (int i = 0; i < ST_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		if (f->owner >= g->rules.players || f->kind >= CARC_FIG_COUNT ||
		    f->node >= g->nnodes)
			return fail(err, "figure slot %d is corrupt", i);
		on_board[f->owner][f->kind]++;
		if (fig_occupies(f->kind))
			figs[label[f->node]]++;
		if (fig_weight(f->kind))
			owners[label[f->node]] |= 1u << f->owner;
	}
	/* builders and pigs stand with a follower of their owner */
	for (int i = 0; i < ST_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || (f->kind != CARC_FIG_BUILDER && f->kind != CARC_FIG_PIG))
			continue;
		if (!(owners[label[f->node]] >> f->owner & 1))
			return fail(err, "player %d's %s stands without a follower of its owner", f->owner,
			            f->kind == CARC_FIG_PIG ? "pig" : "builder");
		int k = g->node[f->node].kind;
		if (f->kind == CARC_FIG_PIG ? k != CARC_FEAT_FIELD
		                            : k != CARC_FEAT_ROAD && k != CARC_FEAT_CITY)
			return fail(err, "player %d's figure %d stands on the wrong kind of feature",
			            f->owner, f->kind);
	}
	for (int n = 0; n < g->nnodes; n++) {
		int r = eng_find(g, n);
		members[label[n]]++;
		if (r != n)
			continue;
		const carc_node *rn = &g->node[n];
		int l = label[n];
		if (rn->kind != CARC_FEAT_FIELD && rn->kind != CARC_FEAT_CLOISTER &&
		    rn->kind != CARC_FEAT_GARDEN && rn->open != open[l])
			return fail(err, "feature at tile %d seg %d: %d open sides kept, %d on the board",
			            rn->tile, rn->seg, rn->open, open[l]);
		if (rn->shields != shields[l])
			return fail(err, "feature at tile %d seg %d: %d shields kept, %d on the board",
			            rn->tile, rn->seg, rn->shields, shields[l]);
		if (rn->figures != figs[l])
			return fail(err, "feature at tile %d seg %d: %d figures kept, %d on the board",
			            rn->tile, rn->seg, rn->figures, figs[l]);
		if (rn->owners != owners[l])
			return fail(err, "feature at tile %d seg %d: owners %02x kept, %02x on the board",
			            rn->tile, rn->seg, rn->owners, owners[l]);
		if ((rn->kind == CARC_FEAT_ROAD || rn->kind == CARC_FEAT_CITY) &&
		    open[l] == 0 && !pending) {
			if (!(rn->flags & NODE_DONE))
				return fail(err, "completed feature at tile %d seg %d was not scored",
				            rn->tile, rn->seg);
			if (figs[l])
				return fail(err, "completed feature at tile %d seg %d still has figures",
				            rn->tile, rn->seg);
		}
		if ((rn->flags & NODE_DONE) && open[l])
			return fail(err, "feature at tile %d seg %d scored but open", rn->tile, rn->seg);
	}
	/* member lists hold exactly the feature */
	for (int n = 0; n < g->nnodes; n++) {
		if (eng_find(g, n) != n)
			continue;
		int cnt = 0, i = n;
		do {
			if (eng_find(g, i) != n)
				return fail(err, "member list of node %d strays", n);
			i = g->node[i].next;
			if (++cnt > g->nnodes)
				return fail(err, "member list of node %d loops", n);
		} while (i != n);
		if (cnt != members[label[n]])
			return fail(err, "member list of node %d has %d, feature has %d", n, cnt,
			            members[label[n]]);
	}

	/* cloisters and gardens */
	int ncentre = 0;
	for (int i = 0; i < g->ntiles; i++)
		if (TT_PORTSEG[g->tiles[i].type][g->tiles[i].rot][CARC_PORT_CENTRE] != 255)
			ncentre++;
	if (ncentre != g->nclo)
		return fail(err, "%d cloisters kept, %d on the board", g->nclo, ncentre);
	for (int c = 0; c < g->nclo; c++) {
		const carc_placed *t = &g->tiles[g->clo[c].tile];
		int around = 0;
		for (int y = -1; y <= 1; y++)
			for (int x = -1; x <= 1; x++)
				if ((x || y) && scan_tile(g, t->x + x, t->y + y) >= 0)
					around++;
		if (around != g->clo[c].neighbours)
			return fail(err, "cloister at (%d, %d): %d neighbours kept, %d on the board",
			            t->x, t->y, g->clo[c].neighbours, around);
		int node = t->node0 + g->clo[c].seg;
		if (around == 8 && !pending && (!g->clo[c].done || figs[label[node]]))
			return fail(err, "surrounded cloister at (%d, %d) not scored", t->x, t->y);
	}

	/* figures conserved, scores add up */
	for (int p = 0; p < g->rules.players; p++) {
		int total = 0;
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			if (g->supply[p][k] + on_board[p][k] != carc_rules_supply(&g->rules, k))
				return fail(err, "player %d: figure kind %d: %d in supply and %d on the board",
				            p, k, g->supply[p][k], on_board[p][k]);
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			total += g->by_kind[p][k];
		if (total != g->score[p])
			return fail(err, "player %d: score %d, kinds add up to %d", p, g->score[p], total);
	}
	int left = 0;
	for (int t = 0; t < TILE_TYPES; t++)
		left += g->remaining[t];
	if (left != g->npile - g->pos)
		return fail(err, "%d tiles counted left, pile says %d", left, g->npile - g->pos);
	/* the steps: one tile step a turn, each turn's steps together */
	int turns = 0;
	for (int k = 0; k < g->nsteps; k++) {
		const carc_step_rec *sr = &g->steps[k];
		if (sr->kind == ST_STEP_TILE) {
			if (turns >= g->nturns || g->turn[turns].step != k)
				return fail(err, "step %d is a tile step that turn %d does not name", k, turns);
			turns++;
		}
		if (sr->turn != turns - 1 || sr->kind >= ST_STEP_KINDS)
			return fail(err, "step %d: turn %d, kind %d", k, sr->turn, sr->kind);
	}
	if (turns != g->nturns)
		return fail(err, "%d tile steps, %d turns", turns, g->nturns);
	if (!g->over && (g->step >= ST_STEP_KINDS || g->step_player >= g->rules.players))
		return fail(err, "the current step is kind %d of player %d", g->step, g->step_player);
	/* the neutral figures stand on the board; the fairy's follower is one */
	if ((g->dragon != 255 && g->dragon >= g->ntiles) || (g->fairy != 255 && g->fairy >= g->ntiles))
		return fail(err, "the dragon (%d) or the fairy (%d) is off the board", g->dragon, g->fairy);
	if (g->fairy_fig != 255) {
		const carc_figure_at *f = &g->fig[g->fairy_fig];
		if (g->fairy == 255 || f->owner == 255 || g->node[f->node].tile != g->fairy ||
		    (f->kind != CARC_FIG_FOLLOWER && f->kind != CARC_FIG_BIG && f->kind != CARC_FIG_ABBOT))
			return fail(err, "the fairy stands next to figure slot %d, not a follower on its tile",
			            g->fairy_fig);
	}
	if (g->dragon != 255 && g->dragon == g->fairy)
		return fail(err, "the dragon and the fairy share a tile");
	return CARC_OK;
}
