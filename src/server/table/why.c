/*
 * why.c - why a move lost points (see why.h): the facts of the position
 * after the better move and after the move played, and the reasons
 * chosen from them by the rules below (docs/web.md, "Why a move lost").
 *
 * Every loop is over one tile's segments (CARC_MAX_SEGS), one move's
 * events (CARC_MAX_EVENTS), the players, or the game's turns and figures
 * (why_future_build): nothing grows with client data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "carc_bot.h"
#include "gamejson.h"
#include "why.h"

/* The evaluation's parts by name: the first six are the scoring kinds
 * (the engine's names), then the evaluation's own two. */
static const char *part_name(int part)
{
	return part < CARC_SCORE_KIND_COUNT ? carc_name(CARC_NAMES_SCORE, part)
	       : part == CARC_PART_FOLLOWERS ? "followers"
	                                     : "builders";
}

/* The evaluation part a feature kind's points go to, -1 for a river. */
static int part_of(int kind)
{
	switch (kind) {
	case CARC_FEAT_ROAD: return CARC_PART_ROAD;
	case CARC_FEAT_CITY: return CARC_PART_CITY;
	case CARC_FEAT_CLOISTER: return CARC_PART_CLOISTER;
	case CARC_FEAT_GARDEN: return CARC_PART_GARDEN;
	case CARC_FEAT_FIELD: return CARC_PART_FARM;
	default: return -1;
	}
}

/* The feature kind a completed feature's scoring kind is, -1 for others. */
static int feat_of_score(int kind)
{
	switch (kind) {
	case CARC_SCORE_ROAD: return CARC_FEAT_ROAD;
	case CARC_SCORE_CITY: return CARC_FEAT_CITY;
	case CARC_SCORE_CLOISTER: return CARC_FEAT_CLOISTER;
	case CARC_SCORE_GARDEN: return CARC_FEAT_GARDEN;
	default: return -1;
	}
}

static int is_follower(int fig)
{
	return fig == CARC_FIG_FOLLOWER || fig == CARC_FIG_BIG || fig == CARC_FIG_ABBOT;
}

void why_future_free(why_future *f)
{
	free(f->mover);
	free(f->tile);
	free(f->turn);
	free(f->supply);
	free(f->back);
	memset(f, 0, sizeof *f);
}

int why_future_build(const carc_game *start, const carc_game *rec, why_future *f)
{
	memset(f, 0, sizeof *f);
	int n = carc_steps_played(rec);
	carc_game *g = carc_game_clone(start);
	f->mover = calloc((size_t)n + 1, 1);
	f->tile = calloc((size_t)n + 1, 1);
	f->turn = calloc((size_t)n + 1, sizeof *f->turn);
	f->supply = calloc((size_t)n + 1, 1);
	f->back = calloc((size_t)n + 1, sizeof *f->back);
	if (!g || !f->mover || !f->tile || !f->turn || !f->supply || !f->back) {
		carc_game_free(g);
		why_future_free(f);
		return -1;
	}
	struct { int tile, seg, owner, k; } pend[CARC_MAX_FIGURES];
	int np = 0;
	for (int k = 0; k < n; k++) {
		carc_step_info si;
		carc_step_played(rec, k, &si);
		int player = si.player;
		carc_move m = si.move;
		int tile_step = si.kind == CARC_STEP_TILE;
		if ((tile_step && carc_set_current_tile(g, si.tile) != CARC_OK) ||
		    carc_to_move(g) != player || carc_apply(g, m, NULL, NULL) != CARC_OK) {
			carc_game_free(g);
			why_future_free(f);
			return -1;
		}
		f->mover[k] = (uint8_t)player;
		f->tile[k] = (uint8_t)tile_step;
		f->turn[k] = (int16_t)si.turn;
		f->back[k] = -1;
		if (tile_step && !carc_move_is_discard(m) && carc_move_seg(m) != CARC_SEG_NONE &&
		    is_follower(carc_move_figure(m)) && np < CARC_MAX_FIGURES) {
			pend[np].tile = carc_board_tiles(g) - 1;
			pend[np].seg = carc_move_seg(m);
			pend[np].owner = player;
			pend[np].k = k;
			np++;
			f->back[k] = (int16_t)n; /* until it is seen gone */
		}
		/* the pending figures still on the board after turn k (the final
		 * scoring takes figures off too: those stayed to the end) */
		if (carc_game_over(g))
			break;
		carc_figure_info fig[CARC_MAX_FIGURES];
		int nf = carc_board_figures(g, fig, CARC_MAX_FIGURES);
		for (int i = 0; i < np;) {
			int on = 0;
			for (int j = 0; j < nf && !on; j++)
				on = fig[j].tile == pend[i].tile && fig[j].seg == pend[i].seg &&
				     fig[j].owner == pend[i].owner;
			if (on) {
				i++;
				continue;
			}
			f->back[pend[i].k] = (int16_t)k;
			pend[i] = pend[--np];
		}
		if (!carc_game_over(g))
			f->supply[k + 1] = (uint8_t)carc_supply(g, carc_to_move(g), CARC_FIG_FOLLOWER);
	}
	f->supply[0] = (uint8_t)carc_supply(start, carc_to_move(start), CARC_FIG_FOLLOWER);
	f->n = n;
	carc_game_free(g);
	return 0;
}

/* One of the two positions compared. */
typedef struct side {
	carc_game *g;
	carc_events ev;
	double parts[CARC_MAX_PLAYERS][CARC_PART_COUNT];
	int tile;     /* board index of the tile placed, -1: set aside */
	int seg, fig; /* the figure placed (segment, kind), -1: none */
	double now[CARC_SCORE_KIND_COUNT]; /* the mover's points from the move itself */
} side;

static int side_make(side *s, const carc_game *g, carc_move m, int p)
{
	s->g = carc_game_clone(g);
	if (!s->g)
		return -1;
	carc_apply_unchecked(s->g, m, &s->ev);
	carc_eval_parts(s->g, s->parts);
	s->tile = s->seg = s->fig = -1;
	if (!carc_move_is_discard(m)) {
		s->tile = carc_board_tiles(s->g) - 1;
		if (carc_move_seg(m) != CARC_SEG_NONE) {
			s->seg = carc_move_seg(m);
			s->fig = carc_move_figure(m);
		}
	}
	memset(s->now, 0, sizeof s->now);
	for (int i = 0; i < s->ev.n && i < CARC_MAX_EVENTS; i++)
		if (s->ev.ev[i].type == CARC_EV_SCORED && !s->ev.ev[i].final &&
		    s->ev.ev[i].kind < CARC_SCORE_KIND_COUNT)
			s->now[s->ev.ev[i].kind] += s->ev.ev[i].points[p];
	return 0;
}

static double r1(double v)
{
	return round(v * 10) / 10;
}

/* Square and port of segment seg of board tile `tile` of g, and which
 * position it is in ("best" or "played"). */
static void put_place(json_t *o, const carc_game *g, int tile, int seg, const char *on)
{
	int type, x, y, rot, pl;
	if (carc_board_tile(g, tile, &type, &x, &y, &rot, &pl))
		return;
	int port = carc_tile_segment_port(type, rot, seg);
	json_object_set_new(o, "on", json_string(on));
	json_object_set_new(o, "x", json_integer(x));
	json_object_set_new(o, "y", json_integer(y));
	json_object_set_new(o, "at", json_string(port >= 0 ? carc_port_name(port) : "?"));
}

static int feature_of(const side *s, int seg, carc_feature_info *fi)
{
	int id = carc_feature_id(s->g, s->tile, seg);
	return id < 0 ? -1 : carc_feature_get(s->g, id, 1, 1, fi);
}

/* The other player with the largest weight on the feature, -1: none. */
static int holder_other(const carc_feature_info *fi, int p, int np)
{
	int q = -1;
	for (int i = 0; i < np; i++)
		if (i != p && fi->weight[i] && (q < 0 || fi->weight[i] > fi->weight[q]))
			q = i;
	return q;
}

typedef struct reasons {
	int n;
	double w[16];
	json_t *o[16];
	int kind[16];
	const char *code[16];
} reasons;

static json_t *add(reasons *rs, const char *code, int kind, double w)
{
	if (rs->n >= 16)
		return NULL;
	json_t *o = json_object();
	json_object_set_new(o, "code", json_string(code));
	json_object_set_new(o, "kind", json_string(carc_name(CARC_NAMES_FEATURE, kind)));
	rs->w[rs->n] = w;
	rs->o[rs->n] = o;
	rs->kind[rs->n] = kind;
	rs->code[rs->n] = code;
	rs->n++;
	return o;
}

static int has_kind(const reasons *rs, int kind)
{
	for (int i = 0; i < rs->n; i++)
		if (rs->kind[i] == kind)
			return 1;
	return 0;
}

static json_t *kinds_json(const double *v, int n, const char *(*name)(int), double min)
{
	json_t *o = json_object();
	for (int i = 0; i < n; i++)
		if (fabs(v[i]) >= min)
			json_object_set_new(o, name(i), json_real(r1(v[i])));
	return o;
}

/* close: the better move completes a feature that pays the mover now,
 * and the move played completes nothing like it. */
static void r_close(reasons *rs, const side *b, const side *pl, int p)
{
	int best = -1;
	for (int i = 0; i < b->ev.n && i < CARC_MAX_EVENTS; i++) {
		const carc_event *e = &b->ev.ev[i];
		if (e->final || e->points[p] <= 0 || feat_of_score(e->kind) < 0)
			continue;
		/* a cloister or garden scored before its 8 neighbours are there:
		 * an abbot taken back (recall says it), not a completion */
		if ((e->kind == CARC_SCORE_CLOISTER || e->kind == CARC_SCORE_GARDEN) && e->tiles < 9)
			continue;
		int same = 0;
		for (int j = 0; j < pl->ev.n && j < CARC_MAX_EVENTS && !same; j++) {
			const carc_event *d = &pl->ev.ev[j];
			same = !d->final && d->kind == e->kind && d->tiles == e->tiles &&
			       d->points[p] == e->points[p];
		}
		if (!same && (best < 0 || e->points[p] > b->ev.ev[best].points[p]))
			best = i;
	}
	if (best < 0)
		return;
	const carc_event *e = &b->ev.ev[best];
	json_t *o = add(rs, "close", feat_of_score(e->kind), e->points[p]);
	if (!o)
		return;
	/* named on the better tile when it is part of the feature (a city or
	 * road it closes), else on the feature's own tile (a cloister) */
	int id = carc_feature_find(b->g, carc_feature_id(b->g, e->tile, e->seg));
	int tile = e->tile, seg = e->seg, type, x, y, rot, who;
	if (b->tile >= 0 && !carc_board_tile(b->g, b->tile, &type, &x, &y, &rot, &who))
		for (int s = 0; s < carc_tile_segments(type) && s < CARC_MAX_SEGS; s++)
			if (carc_feature_find(b->g, carc_feature_id(b->g, b->tile, s)) == id) {
				tile = b->tile;
				seg = s;
				break;
			}
	put_place(o, b->g, tile, seg, "best");
	json_object_set_new(o, "tiles", json_integer(e->tiles));
	json_object_set_new(o, "points", json_integer(e->points[p]));
}

/* claim / contest: the better move's figure, or its tile joining the
 * mover's feature to another player's. */
static void r_join(reasons *rs, const side *b, const side *pl, int p, int np)
{
	if (b->tile < 0)
		return;
	int type, x, y, rot, who;
	carc_board_tile(b->g, b->tile, &type, &x, &y, &rot, &who);
	int nseg = carc_tile_segments(type);
	int seen[CARC_MAX_SEGS], nseen = 0;
	for (int s = 0; s < nseg && s < CARC_MAX_SEGS; s++) {
		carc_feature_info fi;
		if (feature_of(b, s, &fi) || part_of(fi.kind) < 0 || fi.done)
			continue;
		int dup = 0;
		for (int i = 0; i < nseen; i++)
			dup |= seen[i] == fi.id;
		if (dup)
			continue;
		seen[nseen++] = fi.id;
		int part = part_of(fi.kind);
		double gain = b->parts[p][part] - pl->parts[p][part];
		/* the figure the better move put here, if it still stands (one on
		 * a feature the move completes has come back already) */
		int mine = s == b->seg && is_follower(b->fig) && fi.weight[p];
		int q = holder_other(&fi, p, np);
		if (fi.kind == CARC_FEAT_CLOISTER || fi.kind == CARC_FEAT_GARDEN) {
			if (fi.neighbours == 8)
				continue; /* completed: "close" says it */
		}
		if (mine && q < 0) {
			if (gain < WHY_GAIN_MIN)
				continue;
			json_t *o = add(rs, "claim", fi.kind, gain);
			if (!o)
				return;
			put_place(o, b->g, b->tile, s, "best");
			json_object_set_new(o, "figure", json_string(carc_name(CARC_NAMES_FIGURE, b->fig)));
			json_object_set_new(o, "tiles", json_integer(fi.tiles));
			json_object_set_new(o, "open", json_integer(fi.open));
			json_object_set_new(o, "gain", json_real(r1(gain)));
		} else if (fi.weight[p] && q >= 0) {
			double drop = pl->parts[q][part] - b->parts[q][part];
			double w = gain + (drop > 0 ? drop : 0);
			if (w < WHY_GAIN_MIN)
				continue;
			json_t *o = add(rs, "contest", fi.kind, w);
			if (!o)
				return;
			put_place(o, b->g, b->tile, s, "best");
			json_object_set_new(o, "rival", json_integer(q));
			json_object_set_new(o, "mine", json_integer(fi.weight[p]));
			json_object_set_new(o, "theirs", json_integer(fi.weight[q]));
			json_object_set_new(o, "tiles", json_integer(fi.tiles));
			json_object_set_new(o, "gain", json_real(r1(gain)));
			if (mine)
				json_object_set_new(o, "figure", json_string(carc_name(CARC_NAMES_FIGURE, b->fig)));
		} else if (fi.weight[p] && !mine) {
			/* the better tile adds to the mover's own feature */
			if (gain < WHY_GAIN_MIN || has_kind(rs, fi.kind))
				continue;
			json_t *o = add(rs, "value", fi.kind, gain);
			if (!o)
				return;
			put_place(o, b->g, b->tile, s, "best");
			json_object_set_new(o, "gain", json_real(r1(gain)));
		} else if (!fi.weight[p] && q >= 0 &&
		           (fi.kind == CARC_FEAT_CITY || fi.kind == CARC_FEAT_ROAD)) {
			/* block: the other's points of this kind fall (a road or a
			 * city the tile leaves harder to complete) */
			double drop = pl->parts[q][part] - b->parts[q][part];
			if (drop < WHY_OTHER_MIN)
				continue;
			json_t *o = add(rs, "block", fi.kind, drop);
			if (!o)
				return;
			put_place(o, b->g, b->tile, s, "best");
			json_object_set_new(o, "rival", json_integer(q));
			json_object_set_new(o, "open", json_integer(fi.open));
			json_object_set_new(o, "tiles", json_integer(fi.tiles));
			json_object_set_new(o, "loss", json_real(r1(drop)));
		}
	}
}

/* gift: the move played adds to another player's feature, or completes
 * it, while the mover has no part in it. */
static void r_gift(reasons *rs, const side *pl, const side *b, int p, int np)
{
	if (pl->tile < 0)
		return;
	int type, x, y, rot, who;
	carc_board_tile(pl->g, pl->tile, &type, &x, &y, &rot, &who);
	int nseg = carc_tile_segments(type);
	int seen[CARC_MAX_SEGS], nseen = 0;
	for (int s = 0; s < nseg && s < CARC_MAX_SEGS; s++) {
		carc_feature_info fi;
		if (feature_of(pl, s, &fi) || part_of(fi.kind) < 0 || fi.weight[p])
			continue;
		int q = holder_other(&fi, p, np), dup = 0;
		for (int i = 0; i < nseen; i++)
			dup |= seen[i] == fi.id;
		if (q < 0 || dup)
			continue;
		seen[nseen++] = fi.id;
		int part = part_of(fi.kind), now = 0;
		for (int i = 0; i < pl->ev.n && i < CARC_MAX_EVENTS; i++) {
			const carc_event *e = &pl->ev.ev[i];
			if (!e->final && e->points[q] > 0 && e->points[p] == 0 &&
			    carc_feature_find(pl->g, carc_feature_id(pl->g, e->tile, e->seg)) == fi.id)
				now += e->points[q];
		}
		double gain = pl->parts[q][part] - b->parts[q][part];
		double w = gain > now ? gain : now;
		if (w < WHY_OTHER_MIN)
			continue;
		json_t *o = add(rs, "gift", fi.kind, w);
		if (!o)
			return;
		put_place(o, pl->g, pl->tile, s, "played");
		json_object_set_new(o, "rival", json_integer(q));
		json_object_set_new(o, "points", json_integer(now));
		json_object_set_new(o, "gain", json_real(r1(gain)));
		json_object_set_new(o, "tiles", json_integer(fi.tiles));
	}
}

/* tied / spent: the follower the move played put down. */
static void r_follower(reasons *rs, const side *pl, const side *b, int p, const why_future *f,
                       int k)
{
	if (pl->tile < 0 || !is_follower(pl->fig))
		return;
	carc_feature_info fi;
	if (feature_of(pl, pl->seg, &fi))
		return;
	double keep = b->parts[p][CARC_PART_FOLLOWERS] - pl->parts[p][CARC_PART_FOLLOWERS];
	if (f && k < f->n && f->back[k] >= 0) {
		int back = f->back[k], held = 0, idle = 0;
		for (int j = k + 1; j <= back && j < f->n; j++)
			if (f->mover[j] == p && f->tile[j]) { /* the mover's turns */
				held++;
				idle += f->supply[j] == 0;
			}
		if ((idle >= 1 || held >= WHY_TIED_MIN) && (b->fig < 0 || keep >= WHY_GAIN_MIN)) {
			/* ranked by what keeping it is worth, a little more for each
			 * turn without a follower (at most WHY_IDLE_CAP of them count:
			 * the other followers the player tied up share the blame) */
			int cap = idle < WHY_IDLE_CAP ? idle : WHY_IDLE_CAP;
			json_t *o = add(rs, "tied", fi.kind, (keep > 0 ? keep : 0) + 0.25 * cap + 0.1);
			if (!o)
				return;
			put_place(o, pl->g, pl->tile, pl->seg, "played");
			json_object_set_new(o, "figure", json_string(carc_name(CARC_NAMES_FIGURE, pl->fig)));
			json_object_set_new(o, "held", json_integer(held));
			json_object_set_new(o, "idle", json_integer(idle));
			json_object_set_new(o, "back",
			                    back < f->n ? json_integer(f->turn[back] + 1) : json_null());
			json_object_set_new(o, "gain", json_real(r1(keep)));
			return;
		}
	}
	if (b->fig < 0 && keep >= WHY_GAIN_MIN) {
		json_t *o = add(rs, "spent", fi.kind, keep);
		if (!o)
			return;
		put_place(o, pl->g, pl->tile, pl->seg, "played");
		json_object_set_new(o, "figure", json_string(carc_name(CARC_NAMES_FIGURE, pl->fig)));
		json_object_set_new(o, "gain", json_real(r1(keep)));
	}
}

/* goods: the better move completes a city with goods and the mover
 * takes them (Traders & Builders), named at that city on the better tile. */
static void r_goods(reasons *rs, const side *b, const side *pl, int p)
{
	double gain = b->parts[p][CARC_PART_GOODS] - pl->parts[p][CARC_PART_GOODS];
	if (b->tile < 0 || gain < WHY_GAIN_MIN)
		return;
	int took[CARC_GOODS_COUNT] = {0}, any = 0;
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		took[k] = carc_goods_held(b->g, p, k) - carc_goods_held(pl->g, p, k);
		any |= took[k] > 0;
	}
	if (!any)
		return;
	int type, x, y, rot, who, seg = -1;
	carc_board_tile(b->g, b->tile, &type, &x, &y, &rot, &who);
	for (int s = 0; s < carc_tile_segments(type) && s < CARC_MAX_SEGS; s++) {
		carc_feature_info fi;
		if (!feature_of(b, s, &fi) && fi.kind == CARC_FEAT_CITY && (seg < 0 || fi.done))
			seg = s;
	}
	if (seg < 0)
		return;
	json_t *o = add(rs, "goods", CARC_FEAT_CITY, gain);
	if (!o)
		return;
	put_place(o, b->g, b->tile, seg, "best");
	static const char *const GOODS[CARC_GOODS_COUNT] = {"", "wine", "grain", "cloth"};
	json_t *t = json_object();
	for (int k = 1; k < CARC_GOODS_COUNT; k++)
		if (took[k] > 0)
			json_object_set_new(t, GOODS[k], json_integer(took[k]));
	json_object_set_new(o, "goods", t);
	json_object_set_new(o, "gain", json_real(r1(gain)));
}

/* recall: the move played took the mover's abbot back (points now) while
 * the better move leaves it standing; named where it stands in B. */
static void r_recall(reasons *rs, const side *b, const side *pl, carc_move best,
                     carc_move played, int p)
{
	if (carc_move_is_discard(played) || !carc_move_recall(played) ||
	    (!carc_move_is_discard(best) && carc_move_recall(best)))
		return;
	carc_figure_info f[CARC_MAX_FIGURES];
	int n = carc_board_figures(b->g, f, CARC_MAX_FIGURES);
	for (int i = 0; i < n && i < CARC_MAX_FIGURES; i++) {
		if (f[i].kind != CARC_FIG_ABBOT || f[i].owner != p)
			continue;
		int id = carc_feature_id(b->g, f[i].tile, f[i].seg);
		int kind = id < 0 ? -1 : carc_feature_kind_of(b->g, id);
		if (kind != CARC_FEAT_CLOISTER && kind != CARC_FEAT_GARDEN)
			return;
		int part = part_of(kind);
		double gain = b->parts[p][part] - pl->parts[p][part];
		int now = (int)(pl->now[CARC_SCORE_CLOISTER] + pl->now[CARC_SCORE_GARDEN]);
		if (gain < WHY_GAIN_MIN)
			return;
		json_t *o = add(rs, "recall", kind, gain);
		if (!o)
			return;
		put_place(o, b->g, f[i].tile, f[i].seg, "best");
		json_object_set_new(o, "points", json_integer(now));
		json_object_set_new(o, "gain", json_real(r1(gain)));
		return;
	}
}

/* A segment of side s's tile whose feature is of kind `kind`, -1: none. */
static int seg_of_kind(const side *s, int kind)
{
	if (s->tile < 0)
		return -1;
	int type, x, y, rot, who;
	carc_board_tile(s->g, s->tile, &type, &x, &y, &rot, &who);
	for (int i = 0; i < carc_tile_segments(type) && i < CARC_MAX_SEGS; i++) {
		int k;
		if (!carc_tile_segment(type, i, &k, NULL, NULL, NULL) && k == kind)
			return i;
	}
	return -1;
}

/* value: the kind whose expected points gain most with the better move
 * (the fallback, and the reason when nothing above names that kind). */
static void r_value(reasons *rs, const side *b, const side *pl, int p, int force)
{
	static const int kinds[] = {CARC_FEAT_CITY, CARC_FEAT_ROAD, CARC_FEAT_CLOISTER,
	                            CARC_FEAT_GARDEN, CARC_FEAT_FIELD};
	int bk = -1;
	double bg = 0;
	for (int i = 0; i < 5; i++) {
		int part = part_of(kinds[i]);
		double g = b->parts[p][part] - pl->parts[p][part];
		if ((seg_of_kind(b, kinds[i]) >= 0 || seg_of_kind(pl, kinds[i]) >= 0) &&
		    (bk < 0 || g > bg)) {
			bk = kinds[i];
			bg = g;
		}
	}
	if (bk < 0 || (!force && (bg < WHY_GAIN_MIN || has_kind(rs, bk))))
		return;
	/* forced (nothing else named a kind): no gain is shown below 0 */
	json_t *o = add(rs, "value", bk, bg > 0 ? bg : 0);
	if (!o)
		return;
	int s = seg_of_kind(b, bk);
	if (s >= 0)
		put_place(o, b->g, b->tile, s, "best");
	else
		put_place(o, pl->g, pl->tile, seg_of_kind(pl, bk), "played");
	json_object_set_new(o, "gain", json_real(r1(bg > 0 ? bg : 0)));
}

json_t *why_turn(const carc_game *g, carc_move best, carc_move played, const why_future *f,
                 int k)
{
	const int p = carc_to_move(g), np = carc_players(g);
	side b = {0}, pl = {0};
	if (side_make(&b, g, best, p) || side_make(&pl, g, played, p)) {
		free(b.g);
		free(pl.g);
		return NULL;
	}
	/* the best other player after the move played */
	int rival = -1;
	double rv = 0;
	for (int q = 0; q < np; q++) {
		if (q == p)
			continue;
		double v = 0;
		for (int i = 0; i < CARC_PART_COUNT; i++)
			v += pl.parts[q][i];
		if (rival < 0 || v > rv) {
			rival = q;
			rv = v;
		}
	}
	double end[CARC_PART_COUNT], rend[CARC_PART_COUNT];
	for (int i = 0; i < CARC_PART_COUNT; i++) {
		end[i] = b.parts[p][i] - pl.parts[p][i];
		rend[i] = b.parts[rival][i] - pl.parts[rival][i];
	}
	reasons rs = {0};
	r_close(&rs, &b, &pl, p);
	r_join(&rs, &b, &pl, p, np);
	r_gift(&rs, &pl, &b, p, np);
	r_follower(&rs, &pl, &b, p, f, k);
	r_goods(&rs, &b, &pl, p);
	r_recall(&rs, &b, &pl, best, played, p);
	r_value(&rs, &b, &pl, p, 0);
	if (!rs.n)
		r_value(&rs, &b, &pl, p, 1);
	/* the largest first; the rest dropped */
	for (int i = 1; i < rs.n; i++)
		for (int j = i; j > 0 && rs.w[j] > rs.w[j - 1]; j--) {
			double tw = rs.w[j];
			rs.w[j] = rs.w[j - 1];
			rs.w[j - 1] = tw;
			json_t *to = rs.o[j];
			rs.o[j] = rs.o[j - 1];
			rs.o[j - 1] = to;
		}
	json_t *list = json_array();
	for (int i = 0; i < rs.n; i++) {
		if (i < WHY_MAX_REASONS)
			json_array_append_new(list, rs.o[i]);
		else
			json_decref(rs.o[i]);
	}
	json_t *now = json_pack("{s:o, s:o}", "best", kinds_json(b.now, CARC_SCORE_KIND_COUNT, part_name, 0.5),
	                        "played", kinds_json(pl.now, CARC_SCORE_KIND_COUNT, part_name, 0.5));
	json_t *o = json_pack("{s:o, s:o, s:i, s:o, s:o}", "now", now, "end",
	                      kinds_json(end, CARC_PART_COUNT, part_name, WHY_GAIN_MIN), "rival", rival,
	                      "rival_end", kinds_json(rend, CARC_PART_COUNT, part_name, WHY_GAIN_MIN),
	                      "reasons", list);
	free(b.g);
	free(pl.g);
	return o;
}
