/*
 * dragon.c - the rules of Princess & Dragon (../shared/reference/
 * expansions-3-5.md §1; decisions in docs/rules-decisions.md): the draw
 * that holds dragon tiles back until a volcano is placed, the action step
 * (fairy, magic portal, princess), the dragon's movement and what it eats,
 * and the fairy's points. game.c calls in at the turn's seams; score.c
 * asks pd_fairy_bonus when a feature is scored.
 *
 * Decisions (carc_move) of the two steps:
 *   action  bits 28..29 what (ACT_*), 0..7 board tile index, 8..11 segment
 *           of that tile's type, 12..14 figure kind (portal); 0 = nothing
 *   dragon  the board tile index of the square entered
 */
#include <string.h>

#include "engine.h"

#define ACT_NONE 0u
#define ACT_FAIRY 1u
#define ACT_PORTAL 2u
#define ACT_PRINCESS 3u

static inline carc_move act_make(unsigned what, int tile, int seg, int fig)
{
	return (what << 28) | (unsigned)tile | ((unsigned)seg << 8) | ((unsigned)fig << 12);
}
static inline unsigned act_what(carc_move m) { return (m >> 28) & 3u; }
static inline int act_tile(carc_move m) { return (int)(m & 0xFFu); }
static inline int act_seg(carc_move m) { return (int)((m >> 8) & 15u); }
static inline int act_fig(carc_move m) { return (int)((m >> 12) & 7u); }

int pd_on(const carc_game *g) { return (g->rules.expansions & CARC_EXP_PRINCESS) != 0; }

static int symbol_of(int type) { return tile_defs[type].symbol; }

/* ---- keys of the hash ----------------------------------------------------------------- */

static uint64_t dragon_key(int tile) { return eng_mix64(0xD7A6000000ull ^ (uint64_t)tile); }
static uint64_t fairy_key(int tile, int slot)
{
	return eng_mix64(0xFA1E000000ull ^ ((uint64_t)tile << 8) ^ (uint64_t)slot);
}

static void set_dragon(carc_game *g, int tile)
{
	if (g->dragon != 255)
		g->hash ^= dragon_key(g->dragon);
	g->dragon = (uint8_t)tile;
	g->hash ^= dragon_key(tile);
}

static void set_fairy(carc_game *g, int tile, int slot)
{
	if (g->fairy != 255)
		g->hash ^= fairy_key(g->fairy, g->fairy_fig);
	g->fairy = (uint8_t)tile;
	g->fairy_fig = (uint8_t)slot;
	g->hash ^= fairy_key(tile, slot);
}

/* A figure leaves the board (score.c): the fairy stays on its tile, next
 * to nobody. */
void pd_figure_removed(carc_game *g, int slot)
{
	if (g->fairy_fig == slot)
		set_fairy(g, g->fairy, 255);
}

/* ---- the draw ------------------------------------------------------------------------- */

/* Dragon tiles wait in the pile while the dragon is not in play. */
int pd_held_back(const carc_game *g, int type)
{
	return pd_on(g) && g->dragon == 255 && symbol_of(type) == CARC_SYM_DRAGON;
}

/* The tile at g->pos is one that may be drawn now: the first such tile of
 * the rest of the pile is brought forward (the others keep their order).
 * Returns 0 when only held-back tiles are left: the pile counts as empty
 * (they are taken out of it, never drawn). */
int pd_fix_draw(carc_game *g)
{
	if (!pd_on(g) || g->dragon != 255 || g->pos >= g->npile)
		return g->pos < g->npile;
	int k = g->pos;
	while (k < g->npile && pd_held_back(g, g->pile[k]))
		k++;
	if (k == g->npile) {
		for (int i = g->pos; i < g->npile; i++)
			g->remaining[g->pile[i]]--;
		g->pos = g->npile;
		return 0;
	}
	uint8_t t = g->pile[k];
	memmove(g->pile + g->pos + 1, g->pile + g->pos, (size_t)(k - g->pos));
	g->pile[g->pos] = t;
	return 1;
}

/* Tiles that will not come while the dragon is out of play. */
int pd_held_count(const carc_game *g)
{
	int n = 0;
	if (!pd_on(g) || g->dragon != 255)
		return 0;
	for (int t = 0; t < TILE_TYPES; t++)
		if (symbol_of(t) == CARC_SYM_DRAGON)
			n += g->remaining[t];
	return n;
}

/* ---- figures -------------------------------------------------------------------------- */

static int is_follower(int kind)
{
	return kind == CARC_FIG_FOLLOWER || kind == CARC_FIG_BIG || kind == CARC_FIG_ABBOT;
}

/* The figure slot standing on segment seg of board tile t whose kind
 * `ok` accepts, -1 if none. */
static int figure_at(const carc_game *g, int t, int seg, int (*ok)(int))
{
	int node = g->tiles[t].node0 + seg;
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner != 255 && g->fig[i].node == node && ok(g->fig[i].kind))
			return i;
	return -1;
}

/* The root's record of who has a follower on it, after figures left. */
static void refresh_owners(carc_game *g, int r)
{
	unsigned o = 0;
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner != 255 && fig_weight(g->fig[i].kind) &&
		    eng_find(g, g->fig[i].node) == r)
			o |= 1u << g->fig[i].owner;
	g->node[r].owners = (uint8_t)o;
}

/* Figures leave (the slots marked in gone): each goes home, then every
 * builder or pig whose owner has no follower left in its feature. */
static void send_home(carc_game *g, const uint8_t *gone, carc_events *ev)
{
	uint16_t roots[ST_MAX_FIGURES];
	int nr = 0;
	for (int i = 0; i < g->nfig; i++)
		if (gone[i] && g->fig[i].owner != 255) {
			roots[nr++] = (uint16_t)eng_find(g, g->fig[i].node);
			eng_remove_figure(g, i, 0, ev);
		}
	for (int k = 0; k < nr; k++)
		refresh_owners(g, roots[k]);
	for (int i = 0; i < g->nfig; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || (f->kind != CARC_FIG_BUILDER && f->kind != CARC_FIG_PIG))
			continue;
		if (!(g->node[eng_find(g, f->node)].owners >> f->owner & 1))
			eng_remove_figure(g, i, 0, ev);
	}
}

/* ---- the action step ------------------------------------------------------------------------ */

/* May a follower (portal) go on segment s of board tile t: a feature with
 * no figure that is not finished, not on the dragon's tile. */
static int portal_target(const carc_game *g, int t, int s)
{
	const tile_def *d = &tile_defs[g->tiles[t].type];
	int kind = d->seg[s].kind;
	if (t == g->dragon || t == g->placed || kind == CARC_FEAT_RIVER ||
	    (kind == CARC_FEAT_FIELD && !g->rules.farmers))
		return 0;
	int r = eng_find(g, g->tiles[t].node0 + s);
	if (g->node[r].figures)
		return 0;
	if (kind == CARC_FEAT_ROAD || kind == CARC_FEAT_CITY)
		return g->node[r].open && !(g->node[r].flags & NODE_DONE);
	if (kind == CARC_FEAT_CLOISTER || kind == CARC_FEAT_GARDEN)
		for (int c = 0; c < g->nclo; c++)
			if (g->clo[c].tile == t && g->clo[c].seg == s)
				return !g->clo[c].done && g->clo[c].neighbours < 8;
	return 1;
}

static int knight_kind(int kind) { return kind == CARC_FIG_FOLLOWER || kind == CARC_FIG_BIG; }

/* The decisions of the action step into buf (all of them when buf is
 * NULL: only counted); "nothing" first. */
static int action_moves(const carc_game *g, carc_move *buf, int max)
{
	int n = 0, p = g->step_player;
#define PUT(m)                                    \
	do {                                          \
		if (buf && n < max)                       \
			buf[n] = (m);                         \
		n++;                                      \
	} while (0)
	PUT(act_make(ACT_NONE, 0, 0, 0));
	/* the fairy: next to one of the mover's followers */
	for (int i = 0; i < g->nfig; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == p && is_follower(f->kind) && i != g->fairy_fig)
			PUT(act_make(ACT_FAIRY, g->node[f->node].tile, g->node[f->node].seg, 0));
	}
	int sym = symbol_of(g->tiles[g->placed].type);
	const uint8_t *sup = g->supply[p];
	if (sym == CARC_SYM_PORTAL && (sup[CARC_FIG_FOLLOWER] || sup[CARC_FIG_BIG] ||
	                               sup[CARC_FIG_ABBOT]))
		for (int t = 0; t < g->ntiles; t++) {
			const tile_def *d = &tile_defs[g->tiles[t].type];
			for (int s = 0; s < d->nseg; s++) {
				if (!portal_target(g, t, s))
					continue;
				int k = d->seg[s].kind;
				int holy = k == CARC_FEAT_CLOISTER || k == CARC_FEAT_GARDEN;
				for (int f = CARC_FIG_FOLLOWER; f <= CARC_FIG_BIG; f++)
					if (sup[f] && k != CARC_FEAT_GARDEN)
						PUT(act_make(ACT_PORTAL, t, s, f));
				if (holy && sup[CARC_FIG_ABBOT])
					PUT(act_make(ACT_PORTAL, t, s, CARC_FIG_ABBOT));
			}
		}
	if (sym == CARC_SYM_PRINCESS) {
		const tile_def *d = &tile_defs[g->tiles[g->placed].type];
		for (int s = 0; s < d->nseg; s++) {
			if (!(d->seg[s].flags & CARC_SEGF_PRINCESS))
				continue;
			int r = eng_find(g, g->tiles[g->placed].node0 + s);
			for (int i = 0; i < g->nfig; i++) {
				const carc_figure_at *f = &g->fig[i];
				if (f->owner != 255 && knight_kind(f->kind) && eng_find(g, f->node) == r)
					PUT(act_make(ACT_PRINCESS, g->node[f->node].tile, g->node[f->node].seg, 0));
			}
		}
	}
#undef PUT
	return n;
}

/* Is there anything but "nothing" to decide in an action step now? */
static int action_wanted(const carc_game *g) { return action_moves(g, NULL, 0) > 1; }

static carc_status action_check(const carc_game *g, carc_move m, char *err)
{
	unsigned what = act_what(m);
	if (m & ~0x30007FFFu) {
		eng_seterr(err, "%u is not a decision of the action step", m);
		return CARC_ERR_ILLEGAL;
	}
	if (what == ACT_NONE) {
		if (m == 0)
			return CARC_OK;
		eng_seterr(err, "%u is not a decision of the action step", m);
		return CARC_ERR_ILLEGAL;
	}
	int t = act_tile(m), s = act_seg(m), p = g->step_player;
	if (t >= g->ntiles || s >= tile_defs[g->tiles[t].type].nseg) {
		eng_seterr(err, "no such place on the board");
		return CARC_ERR_ILLEGAL;
	}
	int sym = symbol_of(g->tiles[g->placed].type);
	if (what == ACT_FAIRY) {
		int i = figure_at(g, t, s, is_follower);
		if (i < 0 || g->fig[i].owner != p || act_fig(m)) {
			eng_seterr(err, "the fairy goes next to one of your own followers");
			return CARC_ERR_ILLEGAL;
		}
		if (i == g->fairy_fig) {
			eng_seterr(err, "the fairy stands next to that follower already");
			return CARC_ERR_ILLEGAL;
		}
		return CARC_OK;
	}
	if (what == ACT_PORTAL) {
		int f = act_fig(m), k = tile_defs[g->tiles[t].type].seg[s].kind;
		if (sym != CARC_SYM_PORTAL) {
			eng_seterr(err, "only a magic portal tile sends a follower elsewhere");
			return CARC_ERR_ILLEGAL;
		}
		if (f != CARC_FIG_FOLLOWER && f != CARC_FIG_BIG && f != CARC_FIG_ABBOT) {
			eng_seterr(err, "only a follower, a big follower or an abbot goes through the portal");
			return CARC_ERR_ILLEGAL;
		}
		if (f >= CARC_FIG_COUNT || !g->supply[p][f]) {
			eng_seterr(err, "you have no %s left", eng_figure_words(f));
			return CARC_ERR_ILLEGAL;
		}
		if (!portal_target(g, t, s)) {
			eng_seterr(err, t == g->dragon ? "no figure may go on the dragon's tile"
			                               : t == g->placed
			                                   ? "a figure on the tile just placed goes with the tile"
			                                   : "that feature is taken or finished");
			return CARC_ERR_ILLEGAL;
		}
		int holy = k == CARC_FEAT_CLOISTER || k == CARC_FEAT_GARDEN;
		if (f == CARC_FIG_ABBOT ? !holy : k == CARC_FEAT_GARDEN) {
			eng_seterr(err, "a %s cannot stand there", eng_figure_words(f));
			return CARC_ERR_ILLEGAL;
		}
		return CARC_OK;
	}
	/* the princess */
	int i = figure_at(g, t, s, knight_kind);
	if (sym != CARC_SYM_PRINCESS || i < 0 || act_fig(m)) {
		eng_seterr(err, "the princess sends home a knight of the city she joined");
		return CARC_ERR_ILLEGAL;
	}
	const tile_def *d = &tile_defs[g->tiles[g->placed].type];
	int r = eng_find(g, g->fig[i].node);
	for (int k = 0; k < d->nseg; k++)
		if ((d->seg[k].flags & CARC_SEGF_PRINCESS) &&
		    eng_find(g, g->tiles[g->placed].node0 + k) == r)
			return CARC_OK;
	eng_seterr(err, "the princess sends home a knight of the city she joined");
	return CARC_ERR_ILLEGAL;
}

static void action_apply(carc_game *g, carc_move m, carc_events *ev)
{
	int t = act_tile(m), s = act_seg(m);
	switch (act_what(m)) {
	case ACT_FAIRY:
		set_fairy(g, t, figure_at(g, t, s, is_follower));
		break;
	case ACT_PORTAL:
		eng_place_figure(g, g->tiles[t].node0 + s, g->step_player, act_fig(m));
		break;
	case ACT_PRINCESS: {
		uint8_t gone[ST_MAX_FIGURES] = {0};
		gone[figure_at(g, t, s, knight_kind)] = 1;
		send_home(g, gone, ev);
		break;
	}
	default:
		break;
	}
}

/* ---- the dragon ---------------------------------------------------------------------------- */

#define DRAGON_STEPS 6

/* The squares the dragon may enter now (board tile indices), into out[4]. */
static int dragon_moves(const carc_game *g, carc_move *out)
{
	int n = 0;
	const carc_placed *at = &g->tiles[g->dragon];
	for (int d = 0; d < 4; d++) {
		int t = carc_tile_at(g, at->x + DX[d], at->y + DY[d]);
		if (t < 0 || t == g->fairy)
			continue;
		int seen = 0;
		for (int k = 0; k < g->nvisited; k++)
			seen |= g->visited[k] == t;
		if (!seen)
			out[n++] = (carc_move)t;
	}
	return n;
}

/* The dragon enters board tile t: every figure there goes home (and the
 * builders and pigs left alone by that). */
static void dragon_enter(carc_game *g, int t, carc_events *ev)
{
	uint8_t gone[ST_MAX_FIGURES] = {0};
	set_dragon(g, t);
	g->visited[g->nvisited++] = (uint8_t)t;
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner != 255 && g->node[g->fig[i].node].tile == t)
			gone[i] = 1;
	send_home(g, gone, ev);
}

/* Who makes the dragon's next step, or -1 when the movement is over. */
static int dragon_next(const carc_game *g)
{
	carc_move m[4];
	if (g->nvisited - 1 >= DRAGON_STEPS || !dragon_moves(g, m))
		return -1;
	return (g->player + g->nvisited - 1) % g->rules.players;
}

/* ---- the turn's seams (game.c) ----------------------------------------------------------------- */

/* Start of a turn's tile step: the fairy's point. */
void pd_turn_start(carc_game *g, carc_events *ev)
{
	if (!pd_on(g) || g->bonus || g->fairy_fig == 255 || g->fig[g->fairy_fig].owner != g->player)
		return;
	const carc_figure_at *f = &g->fig[g->fairy_fig];
	eng_add_fairy_points(g, f->owner, 1, g->node[f->node].tile, g->node[f->node].seg, ev);
}

/* The tile step placed board tile t (a figure on it: placed_figure):
 * the volcano calls the dragon. Returns the kind of the turn's next step
 * (ST_STEP_ACTION, ST_STEP_DRAGON), or ST_STEP_NONE when the turn is
 * scored now. */
int pd_after_tile(carc_game *g, int t, int acted)
{
	g->placed = (uint8_t)t;
	g->nvisited = 0;
	if (!pd_on(g))
		return ST_STEP_NONE;
	int sym = symbol_of(g->tiles[t].type);
	if (sym == CARC_SYM_VOLCANO)
		set_dragon(g, t);
	if (!acted && action_wanted(g))
		return ST_STEP_ACTION;
	return pd_after_action(g);
}

/* After the action (or none): the dragon moves when a dragon tile was
 * placed and it is in play. Returns ST_STEP_DRAGON (with its first
 * square to choose), or ST_STEP_NONE. */
int pd_after_action(carc_game *g)
{
	if (symbol_of(g->tiles[g->placed].type) != CARC_SYM_DRAGON || g->dragon == 255)
		return ST_STEP_NONE;
	g->visited[0] = g->dragon;
	g->nvisited = 1;
	int who = dragon_next(g);
	if (who < 0) {
		g->nvisited = 0;
		return ST_STEP_NONE;
	}
	g->step_player = (uint8_t)who;
	return ST_STEP_DRAGON;
}

/* Makes a decision of the action or dragon step. Returns the kind of the
 * turn's next step, or ST_STEP_NONE when the turn is to be scored. */
int pd_apply(carc_game *g, carc_move m, carc_events *ev)
{
	if (g->step == ST_STEP_ACTION) {
		action_apply(g, m, ev);
		g->step_player = g->player;
		return pd_after_action(g);
	}
	dragon_enter(g, (int)m, ev);
	int who = dragon_next(g);
	if (who < 0) {
		g->nvisited = 0;
		g->step_player = g->player;
		return ST_STEP_NONE;
	}
	g->step_player = (uint8_t)who;
	return ST_STEP_DRAGON;
}

int pd_moves(const carc_game *g, carc_move *buf, int max)
{
	if (g->step == ST_STEP_ACTION) {
		int n = action_moves(g, buf, max);
		return n < max ? n : max;
	}
	carc_move m[4];
	int n = dragon_moves(g, m);
	for (int i = 0; i < n && i < max; i++)
		buf[i] = m[i];
	return n < max ? n : max;
}

carc_status pd_check(const carc_game *g, carc_move m, char *err)
{
	if (g->step == ST_STEP_ACTION)
		return action_check(g, m, err);
	carc_move opt[4];
	int n = dragon_moves(g, opt);
	for (int i = 0; i < n; i++)
		if (opt[i] == m)
			return CARC_OK;
	if (m < g->ntiles && m == g->fairy)
		eng_seterr(err, "the dragon never enters the fairy's tile");
	else if (m < g->ntiles)
		eng_seterr(err, "the dragon goes one square to a tile beside it that it has not visited "
		                "in this movement");
	else
		eng_seterr(err, "no tile there for the dragon");
	return CARC_ERR_ILLEGAL;
}

/* ---- decisions as JSON (view.c) ------------------------------------------------------------ */

/* The place of a decision: its board tile and segment (the dragon's:
 * segment -1), the figure kind (portal) and the action's name; 0, or -1
 * for "nothing". */
int pd_decision(const carc_game *g, int kind, carc_move m, int *tile, int *seg, int *fig,
                const char **what)
{
	static const char *const WHAT[4] = {"none", "fairy", "portal", "princess"};
	(void)g;
	if (kind == ST_STEP_DRAGON) {
		*tile = (int)m;
		*seg = -1;
		*fig = -1;
		*what = "dragon";
		return 0;
	}
	*what = WHAT[act_what(m)];
	if (act_what(m) == ACT_NONE)
		return -1;
	*tile = act_tile(m);
	*seg = act_seg(m);
	*fig = act_what(m) == ACT_PORTAL ? act_fig(m) : -1;
	return 0;
}

/* The decision of what (fairy, portal, princess) at board tile t, segment
 * s with figure fig; "none" is pd_encode(g, "none", ...). CARC_MOVE_NONE
 * for an unknown what. */
carc_move pd_encode(const char *what, int t, int s, int fig)
{
	if (!strcmp(what, "none"))
		return act_make(ACT_NONE, 0, 0, 0);
	if (!strcmp(what, "fairy"))
		return act_make(ACT_FAIRY, t, s, 0);
	if (!strcmp(what, "portal"))
		return act_make(ACT_PORTAL, t, s, fig);
	if (!strcmp(what, "princess"))
		return act_make(ACT_PRINCESS, t, s, 0);
	return CARC_MOVE_NONE;
}

/* What a decision of the action or dragon step would send home (figure
 * slots marked in gone): for previews. */
void pd_would_eat(const carc_game *g, carc_move m, uint8_t *gone)
{
	carc_game *c = carc_game_clone(g);
	memset(gone, 0, ST_MAX_FIGURES);
	if (!c)
		return;
	carc_events ev;
	ev.n = 0;
	if (g->step == ST_STEP_DRAGON)
		dragon_enter(c, (int)m, &ev);
	else if (act_what(m) == ACT_PRINCESS)
		action_apply(c, m, &ev);
	/* the slots that emptied */
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner != 255 && (i >= c->nfig || c->fig[i].owner == 255))
			gone[i] = 1;
	carc_game_free(c);
}

/* ---- the API ------------------------------------------------------------------------------------ */

int carc_dragon_tile(const carc_game *g) { return g->dragon == 255 ? -1 : g->dragon; }

int carc_fairy_tile(const carc_game *g, int *figure)
{
	if (figure) {
		*figure = -1;
		if (g->fairy_fig != 255) /* its index in carc_board_figures' list */
			for (int i = 0, k = 0; i < g->nfig; i++)
				if (g->fig[i].owner != 255) {
					if (i == g->fairy_fig)
						*figure = k;
					k++;
				}
	}
	return g->fairy == 255 ? -1 : g->fairy;
}

int carc_dragon_visited(const carc_game *g, int *tiles)
{
	for (int k = 0; k < g->nvisited; k++)
		tiles[k] = g->visited[k];
	return g->nvisited;
}

int carc_tile_symbol(int type)
{
	return type >= 0 && type < TILE_TYPES ? tile_defs[type].symbol : CARC_SYM_NONE;
}
