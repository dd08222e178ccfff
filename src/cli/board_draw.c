/*
 * board_draw.c - the terminal board (see board_draw.h).
 *
 * A tile block is computed cell by cell from the engine's tile model:
 * the cell's port region (triangle between the diagonals = side, thirds
 * along the side = part) names a port, and carc_tile_port_segment gives
 * the segment holding that port at the tile's rotation. Roads and rivers
 * only own the line from their middle port to the centre; the cells beside
 * that line go to the neighbouring parts (the fields on either side). The
 * centre cell shows the cloister or garden, else where the roads meet,
 * else the segment owning the most ports. Coordinates inside a block are
 * doubled and centred (U = 2c + 1 - cw) so the geometry is exact in
 * integers.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "board_draw.h"

enum {
	ST_EMPTY = 0,
	ST_FIELD,
	ST_CITY,
	ST_ROAD,
	ST_RIVER,
	ST_CLOISTER,
	ST_MARK, /* shield, inn, cathedral, a tile's symbol, a square's label */
	ST_DRAGON,
	ST_FAIRY,
	ST_FIG, /* + player */
};

typedef struct cell {
	char c;
	uint8_t st;
	uint8_t bold;
	uint8_t cut; /* drawn as field to part two cities of the tile */
	int8_t seg;  /* segment index of the tile type, -1: none (a junction) */
} cell;

static const char *const COLOUR_NAME[CARC_MAX_PLAYERS] = {"red", "blue", "green",
                                                          "yellow", "magenta", "cyan"};
static const char *const COLOUR_FG[CARC_MAX_PLAYERS] = {"31", "34", "32", "33", "35", "36"};

const char *bd_player_colour(int p)
{
	return p >= 0 && p < CARC_MAX_PLAYERS ? COLOUR_NAME[p] : "?";
}

const char *bd_score_kind_name(int kind)
{
	return carc_name(CARC_NAMES_SCORE, kind);
}


static void colour_on(FILE *f, int p, int color)
{
	if (color && p >= 0 && p < CARC_MAX_PLAYERS)
		fprintf(f, "\033[1;%sm", COLOUR_FG[p]);
}

static void colour_off(FILE *f, int color)
{
	if (color)
		fputs("\033[0m", f);
}

void bd_player_label(FILE *f, int p, int color)
{
	colour_on(f, p, color);
	fprintf(f, "player %d (%s)", p + 1, bd_player_colour(p));
	colour_off(f, color);
}

void bd_print_step(FILE *f, const carc_game *g, int k, int color)
{
	carc_step_info si;
	if (carc_step_played(g, k, &si))
		return;
	carc_move m = si.move;
	bd_player_label(f, si.player, color);
	if (si.kind != CARC_STEP_TILE) { /* the engine's words for other steps */
		char text[160];
		bd_step_text(g, k, text, sizeof text);
		fprintf(f, ": %s", text);
		return;
	}
	if (m == CARC_MOVE_DISCARD) {
		fprintf(f, " draws %s, which fits nowhere: set aside", carc_tile_name(si.tile));
		return;
	}
	int rot = carc_move_rot(m), seg = carc_move_seg(m);
	fprintf(f, " places %s at (%d,%d) rot %d", carc_tile_name(si.tile), carc_move_x(m),
	        carc_move_y(m), rot);
	if (carc_move_recall(m))
		fprintf(f, ", takes the abbot back");
	if (seg == CARC_SEG_NONE)
		return;
	int kind = -1;
	const char *fig = carc_name(CARC_NAMES_FIGURE_WORDS, carc_move_figure(m));
	carc_tile_segment(si.tile, seg, &kind, NULL, NULL, NULL);
	const char *feat = carc_name(CARC_NAMES_FEATURE, kind);
	fprintf(f, ", %s on the %s (%s)", fig ? fig : "figure", feat ? feat : "?",
	        carc_port_name(carc_tile_segment_port(si.tile, rot, seg)));
}

int bd_step_text(const carc_game *g, int k, char *buf, size_t size)
{
	carc_step_info si;
	if (!size)
		return -1;
	buf[0] = 0;
	if (carc_step_played(g, k, &si))
		return -1;
	snprintf(buf, size, "%s %u", carc_name(CARC_NAMES_STEP, si.kind), (unsigned)si.move);
	carc_rules r;
	carc_game_rules(g, &r);
	int types = carc_limit(CARC_LIMIT_TILE_TYPES);
	int *pile = malloc((size_t)types * sizeof *pile);
	carc_game *b = NULL;
	if (pile) {
		int standard = carc_game_pile(g, pile);
		b = carc_game_new(&r, carc_game_seed(g), standard ? NULL : pile, types, NULL);
	}
	free(pile);
	int rc = b ? 0 : -1;
	/* the tile of each turn is the one played then (a record written with
	 * its seed hidden deals another order) */
	for (int j = 0; j <= k && rc == 0; j++) {
		carc_step_info sj;
		carc_step_played(g, j, &sj);
		if (sj.kind == CARC_STEP_TILE && carc_current_tile(b) != sj.tile &&
		    carc_set_current_tile(b, sj.tile) != CARC_OK)
			rc = -1;
		else if (j == k)
			carc_move_text(b, sj.move, buf, size);
		else if (carc_apply(b, sj.move, NULL, NULL) != CARC_OK)
			rc = -1;
	}
	carc_game_free(b);
	return rc;
}

/* The fairy's place as "(x,y) at": its follower's port, or the square
 * alone; 0 when it is not on the board. */
static int fairy_place(const carc_game *g, char *buf, size_t size)
{
	int fig = -1, t = carc_fairy_tile(g, &fig), x, y;
	if (t < 0 || carc_board_tile(g, t, NULL, &x, &y, NULL, NULL))
		return 0;
	carc_figure_info figs[CARC_MAX_FIGURES];
	int n = carc_board_figures(g, figs, CARC_MAX_FIGURES);
	if (fig >= 0 && fig < n) {
		int type, rot;
		carc_board_tile(g, figs[fig].tile, &type, NULL, NULL, &rot, NULL);
		snprintf(buf, size, "(%d,%d) %s", x, y,
		         carc_port_name(carc_tile_segment_port(type, rot, figs[fig].seg)));
	} else {
		snprintf(buf, size, "(%d,%d), alone", x, y);
	}
	return 1;
}

/* The dragon's square, its path in the movement under way and the
 * fairy's place in words; 0 (buf "") when neither is on the board. */
static int pieces_text(const carc_game *g, char *buf, size_t size)
{
	size_t o = 0;
	int d = carc_dragon_tile(g), x, y;
	buf[0] = 0;
	if (d >= 0 && !carc_board_tile(g, d, NULL, &x, &y, NULL, NULL)) {
		o += (size_t)snprintf(buf + o, size - o, "%s at (%d,%d)",
		                      carc_name(CARC_NAMES_STEP, CARC_STEP_DRAGON), x, y);
		int path[8], n = carc_dragon_visited(g, path);
		for (int k = 0; k < n && o < size; k++) {
			carc_board_tile(g, path[k], NULL, &x, &y, NULL, NULL);
			o += (size_t)snprintf(buf + o, size - o, "%s(%d,%d)", k ? " " : ", path ", x, y);
		}
	}
	char fp[48];
	if (o < size && fairy_place(g, fp, sizeof fp))
		o += (size_t)snprintf(buf + o, size - o, "%s%s at %s", o ? "; " : "",
		                      carc_name(CARC_NAMES_SCORE, CARC_SCORE_FAIRY), fp);
	return o > 0;
}

int bd_print_pieces(FILE *f, const carc_game *g)
{
	char buf[200];
	if (!pieces_text(g, buf, sizeof buf))
		return 0;
	fputs(buf, f);
	return 1;
}

void bd_print_event(FILE *f, const carc_game *g, const carc_event *e, int color)
{
	const char *kind = bd_score_kind_name(e->kind);
	if (e->kind == CARC_SCORE_FARM || e->kind == CARC_SCORE_GOODS || e->kind == CARC_SCORE_FAIRY)
		fprintf(f, "%s:", kind ? kind : "?");
	else
		fprintf(f, "%s of %d tile%s:", kind ? kind : "?", e->tiles, e->tiles == 1 ? "" : "s");
	int any = 0;
	for (int p = 0; p < carc_players(g); p++) {
		if (!e->points[p])
			continue;
		fputs(any ? ", " : " ", f);
		colour_on(f, p, color);
		fprintf(f, "%s %+d", bd_player_colour(p), e->points[p]);
		colour_off(f, color);
		any = 1;
	}
	if (!any)
		fputs(" nobody", f);
}

/* ---- one tile --------------------------------------------------------------- */

static int seg_kind(int type, int seg)
{
	int kind = -1;
	carc_tile_segment(type, seg, &kind, NULL, NULL, NULL);
	return kind;
}

static unsigned seg_flags(int type, int seg)
{
	unsigned flags = 0;
	carc_tile_segment(type, seg, NULL, NULL, &flags, NULL);
	return flags;
}

/* Ports of segment `seg` at rotation rot (a port p moves to p + 3 rot). */
static unsigned seg_ports(int type, int rot, int seg)
{
	unsigned ports = 0, out = 0;
	carc_tile_segment(type, seg, NULL, &ports, NULL, NULL);
	for (int p = 0; p < 12; p++)
		if (ports & (1u << p))
			out |= 1u << ((p + 3 * rot) % 12);
	return out;
}

static int popcount12(unsigned m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

static int is_line_kind(int kind)
{
	return kind == CARC_FEAT_ROAD || kind == CARC_FEAT_RIVER;
}

static void set_cell(cell *c, int type, int seg)
{
	c->seg = (int8_t)seg;
	switch (seg < 0 ? -1 : seg_kind(type, seg)) {
	case CARC_FEAT_CITY: c->c = '#'; c->st = ST_CITY; break;
	case CARC_FEAT_FIELD: c->c = '.'; c->st = ST_FIELD; break;
	case CARC_FEAT_CLOISTER: c->c = '^'; c->st = ST_CLOISTER; break;
	case CARC_FEAT_GARDEN: c->c = '%'; c->st = ST_CLOISTER; break;
	case CARC_FEAT_RIVER: c->c = '~'; c->st = ST_RIVER; break;
	case CARC_FEAT_ROAD: c->c = '+'; c->st = ST_ROAD; break;
	default: c->c = '?'; c->st = ST_FIELD; break;
	}
}

/* Side (0 N, 1 E, 2 S, 3 W) of cell (c, r) and its position along that
 * side, clockwise, in doubled units (negative: part 0's end). */
static int cell_side(int c, int r, int cw, int ch, int *along, int *scale)
{
	int U = 2 * c + 1 - cw, V = 2 * r + 1 - ch;
	int aU = abs(U), aV = abs(V);
	/* |v| >= |u| in block-normalised units: |V|/ch >= |U|/cw */
	if (aV * cw >= aU * ch) {
		*scale = cw;
		if (V < 0) {
			*along = U;
			return 0;
		}
		*along = -U;
		return 2;
	}
	*scale = ch;
	if (U > 0) {
		*along = V;
		return 1;
	}
	*along = -V;
	return 3;
}

/* Which third of a side a position falls in: |along|/scale > 1/3 of the
 * half-width means an outer part. */
static int along_part(int along, int scale)
{
	if (3 * abs(along) > scale)
		return along < 0 ? 0 : 2;
	return 1;
}

static void centre_cell(cell *out, int type, int rot)
{
	int s = carc_tile_port_segment(type, rot, CARC_PORT_CENTRE);
	if (s >= 0) {
		set_cell(out, type, s);
		return;
	}
	int nseg = carc_tile_segments(type), ends = 0, best = -1, bestn = -1;
	for (s = 0; s < nseg; s++) {
		int kind = seg_kind(type, s);
		unsigned ports = seg_ports(type, rot, s);
		if (is_line_kind(kind)) {
			if (popcount12(ports) == 2) {
				/* a through road or river: straight or bent at the centre */
				int s1 = -1, s2 = -1;
				for (int p = 0; p < 12; p++)
					if (ports & (1u << p)) {
						if (s1 < 0)
							s1 = p / 3;
						else
							s2 = p / 3;
					}
				set_cell(out, type, s);
				if (kind == CARC_FEAT_ROAD)
					out->c = (s2 - s1 == 2) ? (s1 == 0 ? '|' : '-') : '+';
				return;
			}
			ends++;
			continue;
		}
		int n = popcount12(ports);
		/* the most ports wins; a tie goes to a field (the quieter picture) */
		if (n > bestn || (n == bestn && kind == CARC_FEAT_FIELD)) {
			best = s;
			bestn = n;
		}
	}
	if (ends >= 2) {
		set_cell(out, type, -1);
		out->c = 'o';
		out->st = ST_ROAD;
		return;
	}
	/* a field touching no edge (between city caps) has only the centre */
	s = carc_tile_port_segment(type, rot, CARC_PORT_INNER);
	set_cell(out, type, s >= 0 ? s : best);
}

/* Fills the cw x ch block of a tile (row-major) from the tile model. */
static void tile_cells(int type, int rot, int cw, int ch, cell *out)
{
	for (int r = 0; r < ch; r++)
		for (int c = 0; c < cw; c++) {
			cell *o = &out[r * cw + c];
			o->bold = 0;
			if (c == cw / 2 && r == ch / 2) {
				centre_cell(o, type, rot);
				continue;
			}
			int along, scale;
			int side = cell_side(c, r, cw, ch, &along, &scale);
			int part = along_part(along, scale);
			int seg = carc_tile_port_segment(type, rot, side * 3 + part);
			if (seg >= 0 && is_line_kind(seg_kind(type, seg))) {
				if (along == 0) {
					set_cell(o, type, seg);
					if (o->st == ST_ROAD)
						o->c = (side % 2 == 0) ? '|' : '-';
					continue;
				}
				seg = carc_tile_port_segment(type, rot, side * 3 + (along < 0 ? 0 : 2));
			}
			set_cell(o, type, seg);
		}
	/* Two cities of one tile that meet (caps on neighbouring sides) would
	 * look like one: where they touch, the cells of the later segment are
	 * drawn as field. The cell keeps its segment (for the next cells'
	 * test) but is no place for a figure. */
	for (int r = 0; r < ch; r++)
		for (int c = 0; c < cw; c++) {
			cell *o = &out[r * cw + c];
			o->cut = 0;
			if (o->st != ST_CITY)
				continue;
			static const int8_t NB[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
			for (int k = 0; k < 4; k++) {
				int nc = c + NB[k][0], nr = r + NB[k][1];
				if (nc < 0 || nc >= cw || nr < 0 || nr >= ch)
					continue;
				const cell *n = &out[nr * cw + nc];
				if (n->seg >= 0 && n->seg < o->seg &&
				    seg_kind(type, n->seg) == CARC_FEAT_CITY)
					o->cut = 1;
			}
		}
	for (int i = 0; i < cw * ch; i++)
		if (out[i].cut) {
			out[i].c = '.';
			out[i].st = ST_FIELD;
		}
}

/* Anchor of segment s: where its record port lies, a quarter of the way
 * in from the edge (doubled, centred coordinates scaled to the block). */
static void seg_anchor(int type, int rot, int s, int cw, int ch, int *ax, int *ay)
{
	int p = carc_tile_segment_port(type, rot, s);
	*ax = 0;
	*ay = 0;
	if (p < 0 || p >= 12)
		return;
	int side = p / 3, t = (p % 3) - 1; /* -1, 0, 1 along, clockwise */
	/* along offset a third of the half-width, depth half of it */
	int ox = (2 * cw) / 3, oy = (2 * ch) / 3, dx = cw / 2, dy = ch / 2;
	switch (side) {
	case 0: *ax = t * ox; *ay = -dy; break;
	case 1: *ax = dx; *ay = t * oy; break;
	case 2: *ax = -t * ox; *ay = dy; break;
	default: *ax = -dx; *ay = -t * oy; break;
	}
}

/* The cell of segment s nearest its anchor that carries no mark yet
 * (any cell of s if all are marked); -1 if s has no cell. */
static int seg_cell(const cell *blk, int type, int rot, int s, int cw, int ch)
{
	int ax, ay, best = -1, bestd = 0, bestfree = 0;
	seg_anchor(type, rot, s, cw, ch, &ax, &ay);
	for (int r = 0; r < ch; r++)
		for (int c = 0; c < cw; c++) {
			const cell *k = &blk[r * cw + c];
			if (k->seg != s || k->cut)
				continue;
			int U = 2 * c + 1 - cw, V = 2 * r + 1 - ch;
			int d = (U - ax) * (U - ax) * ch * ch + (V - ay) * (V - ay) * cw * cw;
			int fr = k->st != ST_MARK && k->st < ST_FIG;
			if (best < 0 || fr > bestfree || (fr == bestfree && d < bestd)) {
				best = r * cw + c;
				bestd = d;
				bestfree = fr;
			}
		}
	return best;
}

/* Shields, inns and cathedrals. */
static void tile_marks(cell *blk, int type, int rot, int cw, int ch)
{
	int nseg = carc_tile_segments(type);
	for (int s = 0; s < nseg; s++) {
		unsigned fl = seg_flags(type, s);
		static const struct {
			unsigned flag;
			char c;
		} MARKS[] = {{CARC_SEGF_SHIELD, '*'},
		             {CARC_SEGF_INN, 'i'},
		             {CARC_SEGF_CATHEDRAL, 'x'},
		             {CARC_SEGF_PRINCESS, 'q'}};
		for (size_t m = 0; m < sizeof MARKS / sizeof MARKS[0]; m++) {
			if (!(fl & MARKS[m].flag))
				continue;
			int k = seg_cell(blk, type, rot, s, cw, ch);
			if (k >= 0) {
				blk[k].c = MARKS[m].c;
				blk[k].st = ST_MARK;
			}
		}
	}
}

/* ---- the board ----------------------------------------------------------------- */

void bd_opts_default(bd_opts *o, FILE *f)
{
	o->color = 0;
	o->cw = 7;
	o->ch = 5;
	o->highlight = -1;
	o->width = 0;
	o->nmarks = 0;
	struct winsize ws;
	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0)
		o->width = ws.ws_col;
}

static void board_bounds(const carc_game *g, int *x0, int *y0, int *x1, int *y1)
{
	*x0 = *y0 = *x1 = *y1 = 0;
	for (int i = 0; i < carc_board_tiles(g); i++) {
		int x, y;
		carc_board_tile(g, i, NULL, &x, &y, NULL, NULL);
		if (x < *x0) *x0 = x;
		if (x > *x1) *x1 = x;
		if (y < *y0) *y0 = y;
		if (y > *y1) *y1 = y;
	}
}

static int num_width(int v)
{
	char b[16];
	return snprintf(b, sizeof b, "%d", v);
}

/* ---- the scores panel ---------------------------------------------------- */

#define PANEL_LINES (CARC_MAX_PLAYERS + 5)
#define PANEL_COLS 160

typedef struct panel {
	int n;
	char text[PANEL_LINES][PANEL_COLS];
	int vis[PANEL_LINES]; /* visible width (no escape codes) */
} panel;

int bd_kind_shown(const carc_game *g, int k)
{
	if (k <= CARC_SCORE_FARM)
		return 1;
	for (int p = 0; p < carc_players(g); p++)
		if (carc_score_by_kind(g, p, k))
			return 1;
	return 0;
}

/* Appends printf text to line l, in colour fg (NULL: none) if color. */
static void panel_add(panel *pn, int l, int color, const char *fg, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void panel_add(panel *pn, int l, int color, const char *fg, const char *fmt, ...)
{
	char tmp[PANEL_COLS];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= PANEL_COLS)
		n = PANEL_COLS - 1;
	size_t len = strlen(pn->text[l]);
	if (color && fg)
		snprintf(pn->text[l] + len, PANEL_COLS - len, "\033[1;%sm%s\033[0m", fg, tmp);
	else
		snprintf(pn->text[l] + len, PANEL_COLS - len, "%s", tmp);
	pn->vis[l] += n;
}

/* Scores of every player; when the game is over, the points by kind. */
static void make_panel(const carc_game *g, int color, panel *pn)
{
	memset(pn, 0, sizeof *pn);
	int over = carc_game_over(g), np = carc_players(g), scores[CARC_MAX_PLAYERS];
	carc_game_scores(g, scores);
	if (over)
		panel_add(pn, pn->n++, 0, NULL, "final scores after %d turns", carc_turns_played(g));
	else
		panel_add(pn, pn->n++, 0, NULL, "after turn %d, %d tiles left", carc_turns_played(g),
		          carc_tiles_left(g));
	if (over) {
		int l = pn->n++;
		panel_add(pn, l, 0, NULL, "%10s", "");
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			if (bd_kind_shown(g, k))
				panel_add(pn, l, 0, NULL, " %8s", bd_score_kind_name(k));
		panel_add(pn, l, 0, NULL, " %6s", "total");
	}
	for (int p = 0; p < np; p++) {
		int l = pn->n++;
		panel_add(pn, l, color, COLOUR_FG[p], "%d %-8s", p + 1, COLOUR_NAME[p]);
		if (over) {
			for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
				if (bd_kind_shown(g, k))
					panel_add(pn, l, 0, NULL, " %8d", carc_score_by_kind(g, p, k));
			panel_add(pn, l, 0, NULL, " %6d", scores[p]);
		} else {
			panel_add(pn, l, 0, NULL, " %4d  (%d followers", scores[p],
			          carc_supply(g, p, CARC_FIG_FOLLOWER));
			for (int k = CARC_FIG_FOLLOWER + 1; k < CARC_FIG_COUNT; k++)
				if (carc_supply(g, p, k) > 0)
					panel_add(pn, l, 0, NULL, " +%s", carc_name(CARC_NAMES_FIGURE_WORDS, k));
			panel_add(pn, l, 0, NULL, ")");
			if (p == carc_to_move(g))
				panel_add(pn, l, 0, NULL, "  <- to move");
		}
	}
	char pieces[PANEL_COLS];
	if (pieces_text(g, pieces, sizeof pieces))
		panel_add(pn, pn->n++, 0, NULL, "%s", pieces);
}

static int panel_width(const panel *pn)
{
	int w = 0;
	for (int i = 0; i < pn->n; i++)
		if (pn->vis[i] > w)
			w = pn->vis[i];
	return w;
}

void bd_fit(const carc_game *g, bd_opts *o)
{
	o->cw = 7;
	o->ch = 5;
	if (o->width <= 0)
		return;
	int x0, y0, x1, y1;
	board_bounds(g, &x0, &y0, &x1, &y1);
	panel pn;
	make_panel(g, 0, &pn);
	int lw = (num_width(y0) > num_width(y1) ? num_width(y0) : num_width(y1)) + 1;
	if (lw + (x1 - x0 + 1) * 7 + 2 + panel_width(&pn) > o->width) {
		o->cw = 5;
		o->ch = 3;
	}
}

int bd_set_size(bd_opts *o, const char *name)
{
	if (!strcmp(name, "large")) {
		o->cw = 7;
		o->ch = 5;
	} else if (!strcmp(name, "small")) {
		o->cw = 5;
		o->ch = 3;
	} else {
		return -1;
	}
	return 0;
}

static const char *style_code(const cell *k)
{
	switch (k->st) {
	case ST_FIELD: return "2;32";
	case ST_CITY: return "33";
	case ST_ROAD: return "1";
	case ST_RIVER: return "1;36";
	case ST_CLOISTER: return "1;35";
	case ST_MARK: return "1;33";
	case ST_DRAGON: return "1;7;31";
	case ST_FAIRY: return "1;7;35";
	default: return NULL;
	}
}

static void put_cell(FILE *f, const cell *k, int color, char *cur, size_t curlen)
{
	char code[32] = "";
	if (color) {
		if (k->st >= ST_FIG)
			snprintf(code, sizeof code, "1;7;%s", COLOUR_FG[k->st - ST_FIG]);
		else if (style_code(k))
			snprintf(code, sizeof code, "%s%s", k->bold ? "1;" : "", style_code(k));
		if (strcmp(code, cur) != 0) {
			fputs("\033[0m", f);
			if (code[0])
				fprintf(f, "\033[%sm", code);
			snprintf(cur, curlen, "%s", code);
		}
	}
	fputc(k->c, f);
}

/* Princess & Dragon's pieces on board tile i (block blk): the dragon, the
 * fairy (beside the cell of its follower, fairy_cell, when it has one),
 * the dragon's path, and the labels of squares to choose from. */
static void draw_pieces(const carc_game *g, int i, cell *blk, int cw, int ch, int fairy_tile,
                        int fairy_cell, const bd_opts *o)
{
	const int TR = cw - 1, BL = (ch - 1) * cw, BR = ch * cw - 1;
	int path[8], n = carc_dragon_visited(g, path);
	for (int k = 0; k < n; k++)
		if (path[k] == i) {
			blk[BR].c = '=';
			blk[BR].st = ST_MARK;
		}
	if (carc_dragon_tile(g) == i) {
		blk[TR].c = 'D';
		blk[TR].st = ST_DRAGON;
	}
	if (fairy_tile == i) {
		int k = BL;
		if (fairy_cell >= 0) {
			/* the cell beside the follower, on its row, that holds no figure */
			int c = fairy_cell % cw, alt[2] = {c + 1 < cw ? fairy_cell + 1 : -1,
			                                   c > 0 ? fairy_cell - 1 : -1};
			for (int a = 0; a < 2; a++)
				if (alt[a] >= 0 && blk[alt[a]].st < ST_DRAGON) {
					k = alt[a];
					break;
				}
		}
		blk[k].c = 'f';
		blk[k].st = ST_FAIRY;
	}
	int x, y;
	carc_board_tile(g, i, NULL, &x, &y, NULL, NULL);
	for (int m = 0; m < o->nmarks && m < (int)(sizeof o->marks / sizeof o->marks[0]); m++)
		if (o->marks[m].x == x && o->marks[m].y == y) {
			blk[BL].c = o->marks[m].c;
			blk[BL].st = ST_MARK;
		}
}

void bd_draw(FILE *f, const carc_game *g, const bd_opts *o)
{
	int cw = o->cw, ch = o->ch;
	int x0, y0, x1, y1;
	board_bounds(g, &x0, &y0, &x1, &y1);
	int nx = x1 - x0 + 1, ny = y1 - y0 + 1;
	int W = nx * cw, H = ny * ch;
	cell *cv = calloc((size_t)W * (size_t)H, sizeof *cv);
	cell *blk = malloc((size_t)cw * (size_t)ch * sizeof *blk);
	if (!cv || !blk) {
		free(cv);
		free(blk);
		fprintf(f, "(out of memory drawing the board)\n");
		return;
	}
	for (int i = 0; i < W * H; i++) {
		cv[i].c = ' ';
		cv[i].seg = -1;
	}

	carc_figure_info figs[CARC_MAX_FIGURES];
	int nfig = carc_board_figures(g, figs, CARC_MAX_FIGURES);
	int fairy_fig = -1, fairy_tile = carc_fairy_tile(g, &fairy_fig);
	for (int i = 0; i < carc_board_tiles(g); i++) {
		int ttype, tx, ty, trot;
		carc_board_tile(g, i, &ttype, &tx, &ty, &trot, NULL);
		tile_cells(ttype, trot, cw, ch, blk);
		/* the tile's symbol first: marks and figures keep clear of it */
		static const char SYM_CHAR[] = {0, 'v', 'd', '@', 0};
		int sym = carc_tile_symbol(ttype);
		if (sym > 0 && sym < (int)sizeof SYM_CHAR && SYM_CHAR[sym]) {
			blk[0].c = SYM_CHAR[sym];
			blk[0].st = ST_MARK;
		}
		tile_marks(blk, ttype, trot, cw, ch);
		int fairy_cell = -1;
		for (int fi = 0; fi < nfig; fi++) {
			const carc_figure_info *fa = &figs[fi];
			if (fa->tile != i)
				continue;
			int k = seg_cell(blk, ttype, trot, fa->seg, cw, ch);
			if (k < 0) /* a segment with no cell of its own: an inner field
			              under a garden */
				k = (ch / 2) * cw + cw / 2;
			/* a follower shows its player's number; other figures a letter */
			static const char FIG_CHAR[CARC_FIG_COUNT] = {0, 'B', 'b', 'p', 'a'};
			blk[k].c = fa->kind < CARC_FIG_COUNT && FIG_CHAR[fa->kind]
			                   ? FIG_CHAR[fa->kind]
			                   : (char)('1' + fa->owner);
			blk[k].st = (uint8_t)(ST_FIG + (fa->owner < CARC_MAX_PLAYERS ? fa->owner : 0));
			if (fi == fairy_fig)
				fairy_cell = k;
		}
		draw_pieces(g, i, blk, cw, ch, fairy_tile, fairy_cell, o);
		int bx = (tx - x0) * cw, by = (ty - y0) * ch;
		for (int r = 0; r < ch; r++)
			for (int c = 0; c < cw; c++) {
				cell k = blk[r * cw + c];
				k.bold = (i == o->highlight);
				cv[(by + r) * W + bx + c] = k;
			}
	}
	free(blk);

	panel pn;
	make_panel(g, o->color, &pn);
	int lw = (num_width(y0) > num_width(y1) ? num_width(y0) : num_width(y1)) + 1;
	int beside = !(o->width > 0 && lw + W + 2 + panel_width(&pn) > o->width);

	/* x coordinates, centred over each column of tiles */
	fprintf(f, "%*s", lw, "");
	for (int x = x0; x <= x1; x++) {
		int w = num_width(x), pad = (cw - w) / 2;
		fprintf(f, "%*s%d", pad, "", x);
		if (x < x1)
			fprintf(f, "%*s", cw - w - pad, "");
	}
	fputc('\n', f);
	for (int row = 0; row < H; row++) {
		if (row % ch == ch / 2)
			fprintf(f, "%*d ", lw - 1, y0 + row / ch);
		else
			fprintf(f, "%*s", lw, "");
		char cur[32] = "";
		int end = W;
		if (!beside || row >= pn.n)
			while (end > 0 && cv[row * W + end - 1].c == ' ')
				end--;
		for (int c = 0; c < end; c++)
			put_cell(f, &cv[row * W + c], o->color, cur, sizeof cur);
		if (o->color && cur[0])
			fputs("\033[0m", f);
		if (beside && row < pn.n)
			fprintf(f, "  %s", pn.text[row]);
		fputc('\n', f);
	}
	if (!beside || H < pn.n) {
		fputc('\n', f);
		for (int l = beside ? H : 0; l < pn.n; l++)
			fprintf(f, "%*s%s\n", beside ? lw + W + 2 : 0, "", pn.text[l]);
	}
	free(cv);
}
