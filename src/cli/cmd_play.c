/*
 * cmd_play.c - 'carc play': a game in the terminal against bots, or with
 * friends on one keyboard.
 *
 * Each seat is "human" or a bot spec. On a human turn the board is drawn
 * with the squares where the current tile fits labelled a, b, c, ...; the
 * player picks a square, turns the tile through its legal rotations there,
 * picks a figure option or none, and confirms. Until confirmed every step
 * can be undone. Commands are short words read a line at a time, so a game
 * can also be driven from a script (tests/cli/test_play.sh does).
 *
 * The board: a tile is 3 x 3 cells of 2 characters. The middle cells of
 * the sides show the side's middle port (road, city or field), the corners
 * city or field, the centre a cloister, a road junction or what the tile
 * is mostly. A figure is shown as its player's number on the cell of the
 * port that names its segment. The last tile placed is marked.
 *
 * On exit (end of the game, 'quit', or end of input) the game is written
 * as a carc-record-1 record with the seats as an extra key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "carc.h"
#include "carc_bot.h"
#include "cli.h"

#define PLAY_MAX_LABELS 62

typedef struct play {
	carc_game g;
	int np;
	const char *seat[CARC_MAX_PLAYERS];
	carc_bot *bot[CARC_MAX_PLAYERS];
	carc_bot *hinter;
	const char *hint_spec;
	int color;
	const char *save;
	int nosave;
	int echo;        /* echo commands read from a pipe */
	int last_tile;   /* index of the tile placed last, -1 none */
	/* the human's choice in progress */
	carc_move pl[CARC_MAX_PLACEMENTS];
	int npl;
	int sq_x[PLAY_MAX_LABELS * 4], sq_y[PLAY_MAX_LABELS * 4];
	int nsq;
	int sel_sq;      /* selected square, -1 none */
	int sel_rot;     /* index into the square's rotations */
	int sel_fig;     /* -1 not chosen (none), else index into figure options */
	carc_move fo[64];
	int nfo;
} play;

static const char *const PCOL[CARC_MAX_PLAYERS] = {"\033[1;31m", "\033[1;34m", "\033[1;33m",
                                                   "\033[1;35m", "\033[1;36m", "\033[1;37m"};
static const char *const PNAME[CARC_MAX_PLAYERS] = {"red", "blue", "yellow", "purple",
                                                    "cyan", "white"};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carc play [SEAT...] [options]\n"
	        "\n"
	        "Plays a game in the terminal. Each SEAT is 'human' or a bot spec (see\n"
	        "'carc arena --help' for the bots); seats move in the order given.\n"
	        "Default: human mcts:time=1 (you move first against MCTS at 1 s a move).\n"
	        "Two or more 'human' seats share the keyboard.\n"
	        "\n"
	        "options:\n"
	        "  --seed S            the deal (default: from the clock)\n"
	        "  --save FILE         write the record there on exit\n"
	        "                      (default carc-play-SEED.json in this folder)\n"
	        "  --no-save           write no record\n"
	        "  --hint SPEC         the bot that answers 'hint' (default mcts:time=0.5)\n"
	        "  --no-farmers        play without farmers\n"
	        "  --farm-scoring E    international, city-once or first-edition\n"
	        "  --small-city        a completed two-tile city scores 2\n"
	        "  --color, --no-color colour on or off (default: on for a terminal)\n"
	        "\n"
	        "commands on your turn:\n"
	        "  a, b, ...     put the tile on that labelled square\n"
	        "  r             turn it to its next legal rotation there\n"
	        "  0, 1, 2, ...  figure: 0 none, or the numbered option\n"
	        "  ok (or an empty line)   confirm the move\n"
	        "  u             undo the last step (before confirming)\n"
	        "  hint          show the hint bot's move (then 'ok' to take it)\n"
	        "  board, score, tiles, help\n"
	        "  quit          save and leave\n");
}

/* ---- drawing ------------------------------------------------------------------ */

enum { CELL_FIELD, CELL_ROAD, CELL_CITY, CELL_CLOISTER, CELL_RIVER, CELL_JUNCTION, CELL_GARDEN };

static int port_kind(int type, int rot, int port)
{
	int s = carc_tile_port_segment(type, rot, port);
	int kind = CARC_FEAT_FIELD;
	if (s >= 0)
		carc_tile_segment(type, s, &kind, NULL, NULL, NULL);
	return kind;
}

static int kind_cell(int kind)
{
	switch (kind) {
	case CARC_FEAT_CITY: return CELL_CITY;
	case CARC_FEAT_ROAD: return CELL_ROAD;
	case CARC_FEAT_CLOISTER: return CELL_CLOISTER;
	case CARC_FEAT_GARDEN: return CELL_GARDEN;
	case CARC_FEAT_RIVER: return CELL_RIVER;
	default: return CELL_FIELD;
	}
}

/* Cell (r, c) of a 3 x 3 tile picture -> the ports it shows. */
static const int CELL_PORTS[3][3][2] = {
	{{0, 11}, {1, 1}, {2, 3}},
	{{10, 10}, {-1, -1}, {4, 4}},
	{{8, 9}, {7, 7}, {6, 5}},
};

static void tile_cells(int type, int rot, int cell[3][3])
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++) {
			if (r == 1 && c == 1)
				continue;
			int a = port_kind(type, rot, CELL_PORTS[r][c][0]);
			int b = port_kind(type, rot, CELL_PORTS[r][c][1]);
			if (r != 1 && c != 1) /* corners: city if either part is */
				cell[r][c] = (a == CARC_FEAT_CITY || b == CARC_FEAT_CITY) ? CELL_CITY
				                                                           : CELL_FIELD;
			else
				cell[r][c] = kind_cell(a);
		}
	int cs = carc_tile_port_segment(type, rot, CARC_PORT_CENTRE);
	if (cs >= 0) {
		int k;
		carc_tile_segment(type, cs, &k, NULL, NULL, NULL);
		cell[1][1] = kind_cell(k);
		return;
	}
	/* the middle: a road running through, a junction where roads end, a
	 * city of two sides or more, a river, else field */
	int nports[CARC_MAX_SEGS] = {0}, roads = 0, rivers = 0, through = 0, bigcity = 0;
	for (int d = 0; d < 4; d++) {
		int p = 3 * d + 1, s = carc_tile_port_segment(type, rot, p), k = port_kind(type, rot, p);
		if (s < 0)
			continue;
		nports[s]++;
		roads += k == CARC_FEAT_ROAD;
		rivers += k == CARC_FEAT_RIVER;
		if (k == CARC_FEAT_ROAD && nports[s] == 2)
			through = 1;
		if (k == CARC_FEAT_CITY && nports[s] == 2)
			bigcity = 1;
	}
	cell[1][1] = through ? CELL_ROAD
	             : roads >= 3 ? CELL_JUNCTION
	             : bigcity ? CELL_CITY
	             : roads ? CELL_JUNCTION
	             : rivers >= 2 ? CELL_RIVER
	                           : CELL_FIELD;
}

static void port_cell(int port, int *r, int *c)
{
	static const int PR[12] = {0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 1, 0};
	static const int PC[12] = {0, 1, 2, 2, 2, 2, 2, 1, 0, 0, 0, 0};
	if (port < 0 || port >= 12) {
		*r = *c = 1;
		return;
	}
	*r = PR[port];
	*c = PC[port];
}

/* One cell: its colour (or letters), a figure's player number, `mark`
 * for the last tile placed or the tile being placed. */
static void put_cell(const play *P, int cell, int fig_player, int mark, int vertical)
{
	static const char *const BG[] = {"\033[42m", "\033[47;30m", "\033[43;30m", "\033[41;97m",
	                                 "\033[44m", "\033[47;30m", "\033[45m"};
	static const char *const TXT[] = {"..", "==", "##", "[]", "~~", "<>", "()"};
	char t[16];
	if (fig_player >= 0)
		snprintf(t, sizeof t, "%d%c", fig_player + 1, P->color ? ' ' : '^');
	else if (cell == CELL_ROAD)
		snprintf(t, sizeof t, "%s", vertical ? "||" : "==");
	else if (P->color && cell != CELL_CLOISTER && cell != CELL_JUNCTION && cell != CELL_GARDEN)
		snprintf(t, sizeof t, "%s", mark ? "::" : "  ");
	else
		snprintf(t, sizeof t, "%s", mark && cell == CELL_FIELD ? "::" : TXT[cell]);
	if (!P->color) {
		fputs(t, stdout);
		return;
	}
	if (fig_player >= 0)
		printf("%s%s%s\033[0m", BG[cell], PCOL[fig_player], t);
	else
		printf("%s%s\033[0m", BG[cell], t);
}

/* Figures on tile ti: fig[r][c] = player or -1. */
static void tile_figures(const carc_game *g, int ti, int fig[3][3])
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			fig[r][c] = -1;
	/* NOTE: the API has no "figures on a tile" query; the public struct's
	 * fig[] is read here, as the board printer of the engine does. */
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		const carc_node *n = &g->node[f->node];
		if (n->tile != ti)
			continue;
		const carc_placed *t = &g->tiles[ti];
		int port = carc_tile_segment_port(t->type, t->rot, n->seg);
		int r, c;
		port_cell(port, &r, &c);
		fig[r][c] = f->owner;
	}
}

static void draw_board(play *P, int preview_sq, carc_move preview)
{
	const carc_game *g = &P->g;
	int minx = 0, maxx = 0, miny = 0, maxy = 0;
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *t = &g->tiles[i];
		if (t->x < minx) minx = t->x;
		if (t->x > maxx) maxx = t->x;
		if (t->y < miny) miny = t->y;
		if (t->y > maxy) maxy = t->y;
	}
	for (int s = 0; s < P->nsq; s++) {
		if (P->sq_x[s] < minx) minx = P->sq_x[s];
		if (P->sq_x[s] > maxx) maxx = P->sq_x[s];
		if (P->sq_y[s] < miny) miny = P->sq_y[s];
		if (P->sq_y[s] > maxy) maxy = P->sq_y[s];
	}
	printf("\n      ");
	for (int x = minx; x <= maxx; x++)
		printf("  %3d ", x);
	printf("\n");
	for (int y = miny; y <= maxy; y++) {
		for (int r = 0; r < 3; r++) {
			if (r == 1)
				printf(" %4d ", y);
			else
				printf("      ");
			for (int x = minx; x <= maxx; x++) {
				int ti = carc_tile_at(g, x, y);
				int sq = -1;
				for (int s = 0; s < P->nsq; s++)
					if (P->sq_x[s] == x && P->sq_y[s] == y)
						sq = s;
				if (ti >= 0 || (sq >= 0 && sq == preview_sq && preview != CARC_MOVE_NONE)) {
					int cell[3][3], fig[3][3];
					int mark;
					if (ti >= 0) {
						const carc_placed *t = &g->tiles[ti];
						tile_cells(t->type, t->rot, cell);
						tile_figures(g, ti, fig);
						mark = ti == P->last_tile;
					} else {
						tile_cells(carc_current_tile(g), carc_move_rot(preview), cell);
						for (int a = 0; a < 3; a++)
							for (int b2 = 0; b2 < 3; b2++)
								fig[a][b2] = -1;
						int seg = carc_move_seg(preview);
						if (seg != CARC_SEG_NONE) {
							int rr, cc;
							port_cell(carc_tile_segment_port(carc_current_tile(g),
							                                 carc_move_rot(preview), seg),
							          &rr, &cc);
							fig[rr][cc] = carc_to_move(g);
						}
						mark = 1;
					}
					for (int c = 0; c < 3; c++)
						put_cell(P, cell[r][c], fig[r][c], mark, c == 1 && r != 1);
				} else if (sq >= 0) {
					char lab = (char)(sq < 26 ? 'a' + sq : sq < 52 ? 'A' + sq - 26 : '0' + sq - 52);
					if (r == 1)
						printf(P->color ? "\033[1;7m  %c   \033[0m" : "[ %c  ]", lab);
					else
						printf(P->color ? "\033[2m......\033[0m" : "......");
				} else {
					printf("      ");
				}
			}
			printf("\n");
		}
	}
}

static void print_tile(const play *P, int type, int rot)
{
	int cell[3][3];
	tile_cells(type, rot, cell);
	for (int r = 0; r < 3; r++) {
		printf("    ");
		for (int c = 0; c < 3; c++)
			put_cell(P, cell[r][c], -1, 0, c == 1 && r != 1);
		printf("\n");
	}
}

static const char *player_label(const play *P, int p, char *buf, size_t size)
{
	if (P->color)
		snprintf(buf, size, "%sP%d %s\033[0m (%s)", PCOL[p], p + 1, PNAME[p], P->seat[p]);
	else
		snprintf(buf, size, "P%d %s (%s)", p + 1, PNAME[p], P->seat[p]);
	return buf;
}

static void print_scores(const play *P)
{
	const carc_game *g = &P->g;
	int s[CARC_MAX_PLAYERS];
	carc_game_scores(g, s);
	char lb[256];
	printf("scores:");
	for (int p = 0; p < P->np; p++)
		printf("  %s %d [%d followers]", player_label(P, p, lb, sizeof lb), s[p],
		       carc_supply(g, p, CARC_FIG_FOLLOWER));
	printf("\ntiles left: %d\n", carc_tiles_left(g));
}

static void print_tiles_left(const play *P)
{
	printf("tiles left (%d):", carc_tiles_left(&P->g));
	for (int t = 0; t < CARC_TILE_TYPES; t++) {
		int n = carc_tiles_left_of(&P->g, t);
		if (n)
			printf(" %s:%d", carc_tile_name(t), n);
	}
	printf("\n");
}

static void print_breakdown(const play *P)
{
	static const char *const KN[CARC_SCORE_KIND_COUNT] = {"road", "city", "cloister",
	                                                      "farm", "garden", "goods"};
	const carc_game *g = &P->g;
	char lb[256];
	printf("\nfinal scores:\n%-34s", "");
	for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
		printf(" %8s", KN[k]);
	printf(" %8s\n", "total");
	int s[CARC_MAX_PLAYERS], best = -1;
	carc_game_scores(g, s);
	for (int p = 0; p < P->np; p++) {
		if (s[p] > best)
			best = s[p];
		player_label(P, p, lb, sizeof lb);
		printf("%-34s", lb);
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			printf(" %8d", carc_score_by_kind(g, p, k));
		printf(" %8d\n", s[p]);
	}
	int nwin = 0;
	for (int p = 0; p < P->np; p++)
		nwin += s[p] == best;
	printf("%s:", nwin > 1 ? "shared victory" : "winner");
	for (int p = 0; p < P->np; p++)
		if (s[p] == best)
			printf(" %s", player_label(P, p, lb, sizeof lb));
	printf("\n");
}

static void describe_move(const play *P, const carc_game *before, carc_move m, char *buf,
                          size_t size)
{
	int type = carc_current_tile(before);
	if (m == CARC_MOVE_DISCARD) {
		snprintf(buf, size, "tile %s fits nowhere: set aside", carc_tile_name(type));
		return;
	}
	(void)P;
	int seg = carc_move_seg(m);
	size_t o = (size_t)snprintf(buf, size, "tile %s at (%d, %d) rot %d", carc_tile_name(type),
	                            carc_move_x(m), carc_move_y(m), carc_move_rot(m));
	if (seg == CARC_SEG_NONE) {
		if (o < size)
			snprintf(buf + o, size - o, ", no figure");
		return;
	}
	static const char *const FK[CARC_FEAT_KIND_COUNT] = {"city", "road", "field",
	                                                     "cloister", "garden", "river"};
	static const char *const FN[CARC_FIG_COUNT] = {"follower", "big follower", "builder",
	                                               "pig", "abbot"};
	int kind = 0;
	carc_tile_segment(type, seg, &kind, NULL, NULL, NULL);
	if (o < size)
		snprintf(buf + o, size - o, ", %s on the %s at %s", FN[carc_move_figure(m)],
		         FK[kind], carc_port_name(carc_tile_segment_port(type, carc_move_rot(m), seg)));
}

/* ---- the human's turn ------------------------------------------------------------- */

static void collect_squares(play *P)
{
	P->npl = carc_placements(&P->g, P->pl, CARC_MAX_PLACEMENTS);
	P->nsq = 0;
	for (int i = 0; i < P->npl; i++) {
		if (P->pl[i] == CARC_MOVE_DISCARD)
			continue;
		int x = carc_move_x(P->pl[i]), y = carc_move_y(P->pl[i]), s;
		for (s = 0; s < P->nsq; s++)
			if (P->sq_x[s] == x && P->sq_y[s] == y)
				break;
		if (s == P->nsq && P->nsq < PLAY_MAX_LABELS) {
			P->sq_x[P->nsq] = x;
			P->sq_y[P->nsq] = y;
			P->nsq++;
		}
	}
}

/* Placements at square s; returns the count, fills out[]. */
static int square_rots(const play *P, int s, carc_move *out)
{
	int n = 0;
	for (int i = 0; i < P->npl; i++)
		if (P->pl[i] != CARC_MOVE_DISCARD && carc_move_x(P->pl[i]) == P->sq_x[s] &&
		    carc_move_y(P->pl[i]) == P->sq_y[s])
			out[n++] = P->pl[i];
	return n;
}

static carc_move current_choice(play *P)
{
	if (P->sel_sq < 0)
		return CARC_MOVE_NONE;
	carc_move rots[4];
	int n = square_rots(P, P->sel_sq, rots);
	carc_move pl = rots[P->sel_rot % n];
	if (P->sel_fig >= 0 && P->sel_fig < P->nfo)
		return P->fo[P->sel_fig];
	return pl;
}

static void refresh_options(play *P)
{
	P->nfo = 0;
	if (P->sel_sq < 0)
		return;
	carc_move rots[4];
	int n = square_rots(P, P->sel_sq, rots);
	P->nfo = carc_figure_options(&P->g, rots[P->sel_rot % n], P->fo, 64);
}

static void show_choice(play *P)
{
	const carc_game *g = &P->g;
	carc_move m = current_choice(P);
	draw_board(P, P->sel_sq, m);
	printf("\n");
	char lb[256];
	printf("%s, your tile %s (%d left):\n", player_label(P, carc_to_move(g), lb, sizeof lb),
	       carc_tile_name(carc_current_tile(g)), carc_tiles_left(g));
	print_tile(P, carc_current_tile(g), m == CARC_MOVE_NONE ? 0 : carc_move_rot(m));
	if (P->sel_sq < 0) {
		printf("choose a square: a..%c (or 'help')\n",
		       (char)(P->nsq - 1 < 26 ? 'a' + P->nsq - 1 : P->nsq - 1 < 52 ? 'A' + P->nsq - 27 : '0' + P->nsq - 53));
		return;
	}
	carc_move rots[4];
	int nr = square_rots(P, P->sel_sq, rots);
	char d[200];
	describe_move(P, g, m, d, sizeof d);
	printf("%s\n", d);
	printf("rotations here: %d%s\n", nr, nr > 1 ? " ('r' to turn)" : "");
	printf("figure: 0 none%s", P->sel_fig < 0 ? " [chosen]" : "");
	static const char *const FK[CARC_FEAT_KIND_COUNT] = {"city", "road", "field",
	                                                     "cloister", "garden", "river"};
	static const char *const FN[CARC_FIG_COUNT] = {"", "big ", "builder ", "pig ", "abbot "};
	int type = carc_current_tile(g);
	for (int i = 0; i < P->nfo; i++) {
		int seg = carc_move_seg(P->fo[i]), kind = 0;
		carc_tile_segment(type, seg, &kind, NULL, NULL, NULL);
		printf(", %d %s%s %s%s", i + 1, FN[carc_move_figure(P->fo[i])], FK[kind],
		       carc_port_name(carc_tile_segment_port(type, carc_move_rot(P->fo[i]), seg)),
		       P->sel_fig == i ? " [chosen]" : "");
	}
	printf("\n'ok' to confirm, 'u' to undo\n");
}

static int read_line(play *P, char *buf, size_t size)
{
	printf("> ");
	fflush(stdout);
	if (!fgets(buf, (int)size, stdin))
		return -1;
	size_t n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = 0;
	char *s = buf;
	while (*s == ' ' || *s == '\t')
		s++;
	memmove(buf, s, strlen(s) + 1);
	if (P->echo)
		printf("%s\n", buf);
	return 0;
}

/* Selects the move m (from a hint) as the current choice. */
static void select_move(play *P, carc_move m)
{
	for (int s = 0; s < P->nsq; s++)
		if (P->sq_x[s] == carc_move_x(m) && P->sq_y[s] == carc_move_y(m)) {
			carc_move rots[4];
			int n = square_rots(P, s, rots);
			for (int r = 0; r < n; r++)
				if (rots[r] == carc_move_placement(m)) {
					P->sel_sq = s;
					P->sel_rot = r;
					refresh_options(P);
					P->sel_fig = -1;
					for (int i = 0; i < P->nfo; i++)
						if (P->fo[i] == m)
							P->sel_fig = i;
				}
		}
}

/* Returns the move, CARC_MOVE_NONE to quit. */
static carc_move human_turn(play *P)
{
	const carc_game *g = &P->g;
	char line[256];
	collect_squares(P);
	P->sel_sq = -1;
	P->sel_rot = 0;
	P->sel_fig = -1;
	P->nfo = 0;
	if (P->npl == 1 && P->pl[0] == CARC_MOVE_DISCARD) {
		char lb[256];
		printf("%s: tile %s fits nowhere and is set aside.\n",
		       player_label(P, carc_to_move(g), lb, sizeof lb), carc_tile_name(carc_current_tile(g)));
		return CARC_MOVE_DISCARD;
	}
	show_choice(P);
	for (;;) {
		if (read_line(P, line, sizeof line))
			return CARC_MOVE_NONE;
		if (!strcmp(line, "quit") || !strcmp(line, "q") || !strcmp(line, "exit"))
			return CARC_MOVE_NONE;
		if (!strcmp(line, "help") || !strcmp(line, "h") || !strcmp(line, "?")) {
			printf("a..: square   r: rotate   0..9: figure (0 none)   ok/empty: confirm\n"
			       "u: undo   hint: the bot's choice   board, score, tiles   quit\n");
			continue;
		}
		if (!strcmp(line, "board")) {
			show_choice(P);
			continue;
		}
		if (!strcmp(line, "score") || !strcmp(line, "scores")) {
			print_scores(P);
			continue;
		}
		if (!strcmp(line, "tiles")) {
			print_tiles_left(P);
			continue;
		}
		if (!strcmp(line, "hint")) {
			if (!P->hinter) {
				char err[256];
				P->hinter = carc_bot_new(P->hint_spec, (uint64_t)time(NULL), err, sizeof err);
				if (!P->hinter) {
					printf("hint: %s\n", err);
					continue;
				}
			}
			carc_move m = carc_bot_choose(P->hinter, g);
			char d[200];
			describe_move(P, g, m, d, sizeof d);
			printf("hint (%s): %s\n", carc_bot_spec(P->hinter), d);
			select_move(P, m);
			show_choice(P);
			continue;
		}
		if (!strcmp(line, "u") || !strcmp(line, "undo")) {
			if (P->sel_fig >= 0)
				P->sel_fig = -1;
			else if (P->sel_sq >= 0)
				P->sel_sq = -1, P->sel_rot = 0, P->nfo = 0;
			else
				printf("nothing to undo\n");
			show_choice(P);
			continue;
		}
		if (!strcmp(line, "r") || !strcmp(line, "rotate")) {
			if (P->sel_sq < 0) {
				printf("choose a square first\n");
				continue;
			}
			carc_move rots[4];
			int n = square_rots(P, P->sel_sq, rots);
			P->sel_rot = (P->sel_rot + 1) % n;
			P->sel_fig = -1;
			refresh_options(P);
			show_choice(P);
			continue;
		}
		if (!line[0] || !strcmp(line, "ok") || !strcmp(line, "y") || !strcmp(line, "yes")) {
			if (P->sel_sq < 0) {
				printf("choose a square first (a..)\n");
				continue;
			}
			return current_choice(P);
		}
		if (line[0] >= '0' && line[0] <= '9') {
			char *end;
			long k = strtol(line, &end, 10);
			if (*end || P->sel_sq < 0 || k < 0 || k > P->nfo) {
				printf(P->sel_sq < 0 ? "choose a square first\n"
				                     : "no figure option %s (0..%d)\n",
				       line, P->nfo);
				continue;
			}
			P->sel_fig = (int)k - 1;
			show_choice(P);
			continue;
		}
		if (!line[1] && ((line[0] >= 'a' && line[0] <= 'z') || (line[0] >= 'A' && line[0] <= 'Z'))) {
			int s = line[0] >= 'a' ? line[0] - 'a' : line[0] - 'A' + 26;
			if (s >= P->nsq) {
				printf("no square '%c' (a..%c)\n", line[0],
				       (char)(P->nsq - 1 < 26 ? 'a' + P->nsq - 1 : 'A' + P->nsq - 27));
				continue;
			}
			P->sel_sq = s;
			P->sel_rot = 0;
			P->sel_fig = -1;
			refresh_options(P);
			show_choice(P);
			continue;
		}
		printf("unknown command '%s' (try 'help')\n", line);
	}
}

/* ---- the game --------------------------------------------------------------------- */

static int save_record(play *P)
{
	if (P->nosave)
		return 0;
	char extra[2048];
	size_t o = (size_t)snprintf(extra, sizeof extra, "{\"seats\": [");
	for (int p = 0; p < P->np; p++) {
		o += (size_t)snprintf(extra + o, sizeof extra - o, "%s\"", p ? ", " : "");
		for (const char *c = P->seat[p]; *c && o + 4 < sizeof extra; c++) {
			if (*c == '"' || *c == '\\')
				extra[o++] = '\\';
			extra[o++] = *c >= 0x20 ? *c : '?';
		}
		o += (size_t)snprintf(extra + o, sizeof extra - o, "\"");
	}
	snprintf(extra + o, sizeof extra - o, "], \"program\": \"carc play\"}");
	char *json = carc_record_write(&P->g, extra);
	if (!json) {
		fprintf(stderr, "carc play: could not write the record\n");
		return 1;
	}
	char def[64];
	const char *path = P->save;
	if (!path) {
		snprintf(def, sizeof def, "carc-play-%llu.json", (unsigned long long)P->g.seed);
		path = def;
	}
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f || fputs(json, f) < 0 || fputc('\n', f) < 0) {
		fprintf(stderr, "carc play: cannot write %s: %s\n", path, strerror(errno));
		rc = 1;
	} else {
		printf("game saved to %s\n", path);
	}
	if (f && fclose(f))
		rc = 1;
	free(json);
	return rc;
}

int cmd_play(int argc, char **argv)
{
	play *P = calloc(1, sizeof *P);
	if (!P) {
		fprintf(stderr, "carc play: out of memory\n");
		return 1;
	}
	carc_rules rules;
	carc_rules_default(&rules);
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	P->hint_spec = "mcts:time=0.5";
	P->color = isatty(1);
	P->last_tile = -1;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			usage(stdout);
			free(P);
			return 0;
		} else if (!strcmp(o, "--color")) {
			P->color = 1;
		} else if (!strcmp(o, "--no-color")) {
			P->color = 0;
		} else if (!strcmp(o, "--no-save")) {
			P->nosave = 1;
		} else if (!strcmp(o, "--no-farmers")) {
			rules.farmers = 0;
		} else if (!strcmp(o, "--small-city")) {
			rules.small_city = 1;
		} else if (!strcmp(o, "--seed") || !strcmp(o, "--save") || !strcmp(o, "--hint") ||
		           !strcmp(o, "--farm-scoring")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "carc play: %s needs a value\n", o);
				free(P);
				return 2;
			}
			const char *v = argv[++i];
			if (!strcmp(o, "--seed")) {
				char *end;
				errno = 0;
				seed = strtoull(v, &end, 10);
				if (errno || *end || end == v || v[0] == '-') {
					fprintf(stderr, "carc play: --seed wants a whole number, not '%s'\n", v);
					free(P);
					return 2;
				}
			} else if (!strcmp(o, "--save")) {
				P->save = v;
			} else if (!strcmp(o, "--hint")) {
				P->hint_spec = v;
			} else {
				int fs = carc_farm_scoring_parse(v);
				if (fs < 0) {
					fprintf(stderr, "carc play: unknown farm scoring '%s' (international, city-once, first-edition)\n", v);
					free(P);
					return 2;
				}
				rules.farm_scoring = fs;
			}
		} else if (o[0] == '-' && o[1]) {
			fprintf(stderr, "carc play: unknown option '%s' (see carc play --help)\n", o);
			free(P);
			return 2;
		} else {
			if (P->np >= CARC_MAX_PLAYERS) {
				fprintf(stderr, "carc play: at most %d seats\n", CARC_MAX_PLAYERS);
				free(P);
				return 2;
			}
			P->seat[P->np++] = o;
		}
	}
	if (P->np == 0) {
		P->seat[0] = "human";
		P->seat[1] = "mcts:time=1";
		P->np = 2;
	} else if (P->np == 1) {
		fprintf(stderr, "carc play: give at least two seats (e.g. 'carc play human greedy')\n");
		free(P);
		return 2;
	}
	rules.players = P->np;
	char err[CARC_ERRMSG_SIZE];
	if (carc_game_init(&P->g, &rules, seed, NULL, 0, err) != CARC_OK) {
		fprintf(stderr, "carc play: %s\n", err);
		free(P);
		return 2;
	}
	for (int p = 0; p < P->np; p++) {
		if (!strcmp(P->seat[p], "human"))
			continue;
		char berr[256];
		P->bot[p] = carc_bot_new(P->seat[p], seed * 31 + (uint64_t)p + 1, berr, sizeof berr);
		if (!P->bot[p]) {
			fprintf(stderr, "carc play: seat %d: %s\n", p + 1, berr);
			rc = 2;
			goto out;
		}
	}
	{
		char hb[256];
		carc_bot *t = carc_bot_new(P->hint_spec, 1, hb, sizeof hb);
		if (!t) {
			fprintf(stderr, "carc play: --hint: %s\n", hb);
			rc = 2;
			goto out;
		}
		carc_bot_free(t);
	}
	P->echo = !isatty(0);
	printf("carc play: seed %llu, %d players, %s\n", (unsigned long long)seed, P->np,
	       rules.farmers ? carc_farm_scoring_name(rules.farm_scoring) : "no farmers");
	char lb[256];
	for (int p = 0; p < P->np; p++)
		printf("  %s\n", player_label(P, p, lb, sizeof lb));
	int quit = 0;
	while (!carc_game_over(&P->g)) {
		int p = carc_to_move(&P->g);
		carc_move m;
		if (P->bot[p]) {
			m = carc_bot_choose(P->bot[p], &P->g);
		} else {
			m = human_turn(P);
			if (m == CARC_MOVE_NONE) {
				quit = 1;
				break;
			}
		}
		char d[200];
		describe_move(P, &P->g, m, d, sizeof d);
		carc_game before;
		carc_game_copy(&before, &P->g);
		carc_events ev;
		if (carc_apply(&P->g, m, &ev, err) != CARC_OK) {
			printf("illegal move: %s\n", err);
			if (P->bot[p]) {
				rc = 1;
				break;
			}
			continue;
		}
		if (m != CARC_MOVE_DISCARD)
			P->last_tile = P->g.ntiles - 1;
		printf("%s: %s\n", player_label(P, p, lb, sizeof lb), d);
		for (int e = 0; e < ev.n; e++) {
			static const char *const KN[CARC_SCORE_KIND_COUNT] = {
				"road", "city", "cloister", "farm", "garden", "goods"};
			if (ev.ev[e].final)
				continue;
			printf("  scored a %s:", KN[ev.ev[e].kind]);
			for (int q = 0; q < P->np; q++)
				if (ev.ev[e].points[q])
					printf(" P%d +%d", q + 1, ev.ev[e].points[q]);
			printf("\n");
		}
		/* after the others' moves, show the board to the next human */
		(void)before;
	}
	if (carc_game_over(&P->g)) {
		P->nsq = 0;
		draw_board(P, -1, CARC_MOVE_NONE);
		print_breakdown(P);
	} else if (quit) {
		printf("game left at turn %d\n", P->g.nturns);
		print_scores(P);
	}
	if (save_record(P))
		rc = 1;
out:
	for (int p = 0; p < P->np; p++)
		carc_bot_free(P->bot[p]);
	carc_bot_free(P->hinter);
	free(P);
	return rc;
}
