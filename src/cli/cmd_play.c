/*
 * cmd_play.c - 'carc play': a game in the terminal against bots, or with
 * friends on one keyboard.
 *
 * Each seat is "human" or a bot spec. On a human turn the board is drawn
 * (the shared renderer, board_draw.c) with the current tile in its four
 * rotations and the squares where it fits, labelled a, b, c, ... The
 * player picks a square, turns the tile through its legal rotations there
 * ('r'), picks a figure option or none, and confirms; the board then shows
 * the tile in place (highlighted) before it is confirmed, and every step
 * can be undone until then. Commands are short words read a line at a
 * time, so a game can also be driven from a script
 * (tests/cli/test_play.sh does).
 *
 * On exit (end of the game, 'quit', or end of input) the game is written
 * as a carc-record-1 record, with the seats as an extra key.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board_draw.h"
#include "carc.h"
#include "carc_bot.h"
#include "cli.h"
#include "rules_opts.h"

#define CMD "play"
#define PLAY_MAX_SQUARES 52 /* labelled a..z, A..Z */

typedef struct play {
	carc_game *g;
	int np;
	const char *seat[CARC_MAX_PLAYERS];
	carc_bot *bot[CARC_MAX_PLAYERS];
	carc_bot *hinter;
	const char *hint_spec;
	bd_opts bd;
	const char *save;
	int nosave;
	int echo;        /* echo commands read from a pipe */
	/* the human's choice in progress */
	carc_move pl[CARC_MAX_MOVES];
	int npl;
	int sq_x[PLAY_MAX_SQUARES], sq_y[PLAY_MAX_SQUARES];
	int nsq;
	int sel_sq;      /* selected square, -1 none */
	int sel_rot;     /* index into the square's legal rotations */
	int sel_fig;     /* -1 no figure, else index into fo */
	carc_move fo[64];
	int nfo;
} play;

/* The bot behind "hint", made the first time it is asked for; NULL (with
 * the reason printed) when its spec is refused. */
static carc_bot *hinter(play *P, const carc_game *g)
{
	if (!P->hinter) {
		char err[256];
		P->hinter = carc_bot_new(P->hint_spec, carc_game_seed(g) ^ 0x4117u, err, sizeof err);
		if (!P->hinter)
			printf("hint: %s\n", err);
	}
	return P->hinter;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carc play [SEAT...] [options]\n"
	        "\n"
	        "Plays a game in the terminal. Each SEAT is 'human' or a bot spec (see\n"
	        "'carc arena --help' for the bots); seats move in the order given.\n"
	        "Default: human mcts:time=1 (you move first, against MCTS at 1 s a move).\n"
	        "Two or more 'human' seats share the keyboard.\n"
	        "\n"
	        "options:\n"
	        "  --seed S            the deal (default: from the clock)\n"
	        "  --save FILE         write the record there on exit\n"
	        "                      (default carc-play-SEED.json in this folder)\n"
	        "  --no-save           write no record\n"
	        "  --hint SPEC         the bot that answers 'hint' (default mcts:time=0.5)\n"
	        "  --color WHEN        auto (default), always or never\n");
	ropt_rules_help(f);
	fprintf(f,
	        "  (the number of players is the number of seats)\n"
	        "\n"
	        "commands on your turn:\n"
	        "  a, b, ...     put the tile on that labelled square\n"
	        "  r             turn it to its next legal rotation there\n"
	        "  0, 1, 2, ...  figure: 0 none, or the numbered option\n"
	        "  ok (or an empty line)   confirm the move\n"
	        "  u             undo the last step (before confirming)\n"
	        "  hint          the hint bot's move, selected (then 'ok' takes it)\n"
	        "  board, score, tiles, help\n"
	        "  quit          save and leave\n"
	        "in a step after the tile (Princess & Dragon's action and dragon steps):\n"
	        "  1, 2, ...     the numbered choice (the engine's list, in its words)\n"
	        "  x,y           the choices on that square (the one, if it is one)\n"
	        "  n e s w       the dragon's square that way (also north, east, ...)\n"
	        "  hint, then ok the hint bot's choice\n"
	        "\nexamples:\n"
	        "  carc play                          you against mcts:time=1\n"
	        "  carc play human human greedy       two friends and the greedy bot\n"
	        "  carc play star25 human --seed 7    the bot moves first\n");
}

/* ---- the current tile in its four rotations ----------------------------------- */

static int port_kind(int type, int rot, int port)
{
	int s = carc_tile_port_segment(type, rot, port);
	int kind = CARC_FEAT_FIELD;
	if (s >= 0)
		carc_tile_segment(type, s, &kind, NULL, NULL, NULL);
	return kind;
}

/* A 3 x 3 picture: the middle of each side, the corners (city if either
 * port there is), the centre (cloister, garden, a road through or a
 * junction, a city of two sides or more, else field). */
static void tile_picture(int type, int rot, char pic[3][4])
{
	static const int CORNER[4][4] = {{0, 0, 0, 11}, {0, 2, 2, 3}, {2, 2, 5, 6}, {2, 0, 8, 9}};
	static const char KC[CARC_FEAT_KIND_COUNT] = {'#', '+', '.', 'C', 'G', '~'};
	for (int r = 0; r < 3; r++) {
		memset(pic[r], '.', 3);
		pic[r][3] = 0;
	}
	for (int k = 0; k < 4; k++) {
		int a = port_kind(type, rot, CORNER[k][2]), b = port_kind(type, rot, CORNER[k][3]);
		if (a == CARC_FEAT_CITY || b == CARC_FEAT_CITY)
			pic[CORNER[k][0]][CORNER[k][1]] = '#';
	}
	static const int MID[4][2] = {{0, 1}, {1, 2}, {2, 1}, {1, 0}};
	int roads = 0, through = 0, bigcity = 0, nports[CARC_MAX_SEGS] = {0};
	for (int d = 0; d < 4; d++) {
		int p = 3 * d + 1, k = port_kind(type, rot, p), s = carc_tile_port_segment(type, rot, p);
		char c = KC[k];
		if (k == CARC_FEAT_ROAD)
			c = (d & 1) ? '-' : '|';
		pic[MID[d][0]][MID[d][1]] = c;
		if (s >= 0 && ++nports[s] == 2) {
			through |= k == CARC_FEAT_ROAD;
			bigcity |= k == CARC_FEAT_CITY;
		}
		roads += k == CARC_FEAT_ROAD;
	}
	int cs = carc_tile_port_segment(type, rot, CARC_PORT_CENTRE);
	if (cs >= 0)
		pic[1][1] = KC[port_kind(type, rot, CARC_PORT_CENTRE)];
	else if (through)
		pic[1][1] = '+';
	else if (roads >= 3 || (roads && !bigcity))
		pic[1][1] = 'o';
	else if (bigcity)
		pic[1][1] = '#';
}

static void print_tile_rotations(int type)
{
	char pic[4][3][4];
	for (int r = 0; r < 4; r++)
		tile_picture(type, r, pic[r]);
	printf("  tile %s:  ", carc_tile_name(type));
	for (int r = 0; r < 4; r++)
		printf("rot %d   ", r);
	printf("\n");
	for (int row = 0; row < 3; row++) {
		printf("            ");
		for (int r = 0; r < 4; r++)
			printf(" %s    ", pic[r][row]);
		printf("\n");
	}
}

/* ---- tables ---------------------------------------------------------------------- */

static void print_scores(const play *P)
{
	const carc_game *g = P->g;
	int s[CARC_MAX_PLAYERS];
	carc_game_scores(g, s);
	for (int p = 0; p < P->np; p++) {
		printf("  ");
		bd_player_label(stdout, p, P->bd.color);
		printf(" %-18s %4d points, %d follower%s in supply%s\n", P->seat[p], s[p],
		       carc_supply(g, p, CARC_FIG_FOLLOWER),
		       carc_supply(g, p, CARC_FIG_FOLLOWER) == 1 ? "" : "s",
		       !carc_game_over(g) && carc_to_move(g) == p ? "  <- to move" : "");
	}
	printf("  tiles left: %d\n", carc_tiles_left(g));
}

static void print_tiles_left(const play *P)
{
	printf("tiles left (%d):", carc_tiles_left(P->g));
	for (int t = 0; t < carc_limit(CARC_LIMIT_TILE_TYPES); t++) {
		int n = carc_tiles_left_of(P->g, t);
		if (n)
			printf(" %s:%d", carc_tile_name(t), n);
	}
	printf("\n");
}

static void print_breakdown(const play *P)
{
	const carc_game *g = P->g;
	printf("\nfinal scores:\n%-30s", "");
	for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
		if (bd_kind_shown(g, k))
			printf(" %8s", bd_score_kind_name(k));
	printf(" %8s\n", "total");
	int s[CARC_MAX_PLAYERS], best = -1, nwin = 0;
	carc_game_scores(g, s);
	for (int p = 0; p < P->np; p++)
		if (s[p] > best)
			best = s[p];
	for (int p = 0; p < P->np; p++) {
		char name[64];
		snprintf(name, sizeof name, "player %d (%s)", p + 1, bd_player_colour(p));
		printf("%-30.30s", name);
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			if (bd_kind_shown(g, k))
				printf(" %8d", carc_score_by_kind(g, p, k));
		printf(" %8d  %s\n", s[p], P->seat[p]);
		nwin += s[p] == best;
	}
	printf("%s:", nwin > 1 ? "shared victory" : "winner");
	for (int p = 0; p < P->np; p++)
		if (s[p] == best) {
			printf(" ");
			bd_player_label(stdout, p, P->bd.color);
		}
	printf("\n");
}

/* ---- the human's turn --------------------------------------------------------------- */

static char square_label(int s) { return (char)(s < 26 ? 'a' + s : 'A' + s - 26); }

static void collect_squares(play *P)
{
	P->npl = carc_placements(P->g, P->pl, CARC_MAX_MOVES);
	P->nsq = 0;
	for (int i = 0; i < P->npl; i++) {
		if (P->pl[i] == CARC_MOVE_DISCARD)
			continue;
		int x = carc_move_x(P->pl[i]), y = carc_move_y(P->pl[i]), s;
		for (s = 0; s < P->nsq; s++)
			if (P->sq_x[s] == x && P->sq_y[s] == y)
				break;
		if (s == P->nsq && P->nsq < PLAY_MAX_SQUARES) {
			P->sq_x[P->nsq] = x;
			P->sq_y[P->nsq] = y;
			P->nsq++;
		}
	}
}

/* Placements (legal rotations) at square s into out[]; returns the count. */
static int square_rots(const play *P, int s, carc_move *out)
{
	int n = 0;
	for (int i = 0; i < P->npl; i++)
		if (P->pl[i] != CARC_MOVE_DISCARD && carc_move_x(P->pl[i]) == P->sq_x[s] &&
		    carc_move_y(P->pl[i]) == P->sq_y[s] && n < 4)
			out[n++] = P->pl[i];
	return n;
}

static carc_move current_choice(const play *P)
{
	if (P->sel_sq < 0)
		return CARC_MOVE_NONE;
	if (P->sel_fig >= 0 && P->sel_fig < P->nfo)
		return P->fo[P->sel_fig];
	carc_move rots[4];
	int n = square_rots(P, P->sel_sq, rots);
	return rots[P->sel_rot % n];
}

static void refresh_options(play *P)
{
	P->nfo = 0;
	if (P->sel_sq < 0)
		return;
	carc_move rots[4];
	int n = square_rots(P, P->sel_sq, rots);
	P->nfo = carc_figure_options(P->g, rots[P->sel_rot % n], P->fo, 64);
}

static void describe(const carc_game *g, carc_move m, char *buf, size_t size)
{
	int type = carc_current_tile(g);
	if (carc_step_kind(g) != CARC_STEP_TILE) {
		carc_move_text(g, m, buf, size);
		return;
	}
	if (m == CARC_MOVE_DISCARD) {
		snprintf(buf, size, "%s fits nowhere: set aside", carc_tile_name(type));
		return;
	}
	int seg = carc_move_seg(m), kind = 0;
	size_t o = (size_t)snprintf(buf, size, "%s at (%d,%d) rot %d", carc_tile_name(type),
	                            carc_move_x(m), carc_move_y(m), carc_move_rot(m));
	if (carc_move_recall(m) && o < size)
		o += (size_t)snprintf(buf + o, size - o, ", abbot taken back");
	if (seg == CARC_SEG_NONE) {
		if (!carc_move_recall(m) && o < size)
			snprintf(buf + o, size - o, ", no figure");
		return;
	}
	carc_tile_segment(type, seg, &kind, NULL, NULL, NULL);
	if (o < size)
		snprintf(buf + o, size - o, ", %s on the %s (%s)",
		         carc_name(CARC_NAMES_FIGURE_WORDS, carc_move_figure(m)),
		         carc_name(CARC_NAMES_FEATURE, kind),
		         carc_port_name(carc_tile_segment_port(type, carc_move_rot(m), seg)));
}

/* Draws the board, with the move being chosen in place. */
static void show_board(play *P, carc_move preview)
{
	carc_game *b = carc_game_alloc();
	if (!b)
		return;
	carc_game_copy(b, P->g);
	bd_opts o = P->bd;
	o.highlight = -1;
	if (preview != CARC_MOVE_NONE && carc_apply(b, preview, NULL, NULL) == CARC_OK &&
	    preview != CARC_MOVE_DISCARD)
		o.highlight = carc_board_tiles(b) - 1;
	else if (carc_board_tiles(b) > 1)
		o.highlight = carc_board_tiles(b) - 1;
	if (!P->bd.cw)
		bd_fit(b, &o);
	printf("\n");
	bd_draw(stdout, b, &o);
	carc_game_free(b);
}

static void show_choice(play *P)
{
	const carc_game *g = P->g;
	carc_move m = current_choice(P);
	show_board(P, m);
	printf("\n");
	bd_player_label(stdout, carc_to_move(g), P->bd.color);
	printf(" (%s) to move, %d tiles left\n", P->seat[carc_to_move(g)], carc_tiles_left(g));
	print_tile_rotations(carc_current_tile(g));
	if (P->sel_sq < 0) {
		int many = 0;
		printf("  squares:");
		for (int s = 0; s < P->nsq; s++) {
			carc_move rots[4];
			int n = square_rots(P, s, rots);
			many |= n > 1;
			printf("%s %c (%d,%d)%s", s && s % 8 == 0 ? "\n          " : "", square_label(s),
			       P->sq_x[s], P->sq_y[s], n > 1 ? "*" : "");
		}
		printf("\n  %schoose a square, or 'help'\n",
		       many ? "(* more than one rotation fits)  " : "");
		return;
	}
	carc_move rots[4];
	int nr = square_rots(P, P->sel_sq, rots);
	char d[200];
	describe(g, m, d, sizeof d);
	printf("  your move: %s (shown on the board, not played yet)\n", d);
	if (nr > 1)
		printf("  %d rotations fit here: 'r' turns the tile\n", nr);
	int type = carc_current_tile(g);
	printf("  figure: 0 none%s", P->sel_fig < 0 ? " [x]" : "");
	for (int i = 0; i < P->nfo; i++) {
		int seg = carc_move_seg(P->fo[i]), kind = 0;
		if (seg == CARC_SEG_NONE) {
			printf(", %d take the abbot back%s", i + 1, P->sel_fig == i ? " [x]" : "");
			continue;
		}
		carc_tile_segment(type, seg, &kind, NULL, NULL, NULL);
		int fig = carc_move_figure(P->fo[i]);
		printf(", %d %s%s%s %s%s", i + 1,
		       fig == CARC_FIG_FOLLOWER ? "" : carc_name(CARC_NAMES_FIGURE_WORDS, fig),
		       fig == CARC_FIG_FOLLOWER ? "" : " ", carc_name(CARC_NAMES_FEATURE, kind),
		       carc_port_name(carc_tile_segment_port(type, carc_move_rot(P->fo[i]), seg)),
		       P->sel_fig == i ? " [x]" : "");
	}
	printf("\n  'ok' (or Enter) confirms, 'u' undoes\n");
}

static int read_line(play *P, char *buf, size_t size)
{
	printf("> ");
	fflush(stdout);
	if (!fgets(buf, (int)size, stdin))
		return -1;
	size_t n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
	             buf[n - 1] == '\t'))
		buf[--n] = 0;
	size_t lead = strspn(buf, " \t");
	memmove(buf, buf + lead, strlen(buf + lead) + 1);
	if (P->echo)
		printf("%s\n", buf);
	return 0;
}

/* Selects move m (a hint) as the current choice. */
static void select_move(play *P, carc_move m)
{
	for (int s = 0; s < P->nsq; s++) {
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

/* ---- steps other than the tile's ------------------------------------------------ */

/* One decision of such a step, read from the engine's JSON of it
 * (carc_move_json): {"<step>": "none"}, {"<step>": {"x", "y"}} (a square)
 * or {"<step>": {"<what>": {"x", "y", "at", "kind"}}}. */
typedef struct step_opt {
	carc_move m;
	int has_sq, x, y; /* the square it is about */
	char what[24];    /* the inner key ("" for a square alone or none) */
	char text[96];    /* the engine's words */
} step_opt;

static void read_opt(const carc_game *g, carc_move m, step_opt *o)
{
	memset(o, 0, sizeof *o);
	o->m = m;
	carc_move_text(g, m, o->text, sizeof o->text);
	char *js = carc_move_json(g, m);
	json_t *root = js ? json_loads(js, 0, NULL) : NULL;
	free(js);
	json_t *v = json_object_get(root, carc_name(CARC_NAMES_STEP, carc_step_kind(g)));
	if (json_is_object(v) && !json_object_get(v, "x") && json_object_size(v) == 1) {
		const char *k = json_object_iter_key(json_object_iter(v));
		snprintf(o->what, sizeof o->what, "%s", k);
		v = json_object_iter_value(json_object_iter(v));
	}
	if (json_is_object(v) && json_is_integer(json_object_get(v, "x"))) {
		o->has_sq = 1;
		o->x = (int)json_integer_value(json_object_get(v, "x"));
		o->y = (int)json_integer_value(json_object_get(v, "y"));
	}
	json_decref(root);
}

/* "x,y", "(x,y)" or "x y": a square. */
static int parse_square(const char *line, int *x, int *y)
{
	char tail;
	return sscanf(line, " ( %d , %d ) %c", x, y, &tail) == 2 ||
	       sscanf(line, " %d , %d %c", x, y, &tail) == 2 ||
	       sscanf(line, " %d %d %c", x, y, &tail) == 2;
}

/* The compass direction of square (x, y) seen from (fx, fy) when they are
 * neighbours ('n', 'e', 's', 'w'), else 0. */
static char direction(int fx, int fy, int x, int y)
{
	static const char *const DIRS = "nesw";
	static const int DX[4] = {0, 1, 0, -1}, DY[4] = {-1, 0, 1, 0};
	for (int d = 0; d < 4; d++)
		if (x - fx == DX[d] && y - fy == DY[d])
			return DIRS[d];
	return 0;
}

static const char *direction_word(char c)
{
	switch (c) {
	case 'n': return "north";
	case 'e': return "east";
	case 's': return "south";
	case 'w': return "west";
	default: return "";
	}
}

#define STEP_LIST_ALL 40 /* a longer list is shown by group or square */

static void list_opts(const step_opt *o, int n, const char *what, int sx, int sy, int by_sq)
{
	int shown = 0;
	for (int i = 0; i < n; i++) {
		if (what && strcmp(o[i].what, what))
			continue;
		if (by_sq && (!o[i].has_sq || o[i].x != sx || o[i].y != sy))
			continue;
		printf("   %3d: %s\n", i + 1, o[i].text);
		shown++;
	}
	if (!shown)
		printf("  no such choice\n");
}

/* The whole list, or when it is long, the short groups in full and the
 * long ones as the squares they are about. */
static void show_opts(const step_opt *o, int n)
{
	if (n <= STEP_LIST_ALL) {
		list_opts(o, n, NULL, 0, 0, 0);
		return;
	}
	for (int i = 0; i < n; i++) {
		int first = 1, count = 0;
		for (int j = 0; j < i && first; j++)
			first = strcmp(o[j].what, o[i].what) != 0;
		if (!first)
			continue;
		for (int j = i; j < n; j++)
			count += !strcmp(o[j].what, o[i].what);
		if (count <= 8) {
			list_opts(o, n, o[i].what, 0, 0, 0);
			continue;
		}
		printf("  %s: %d choices on the squares", o[i].what[0] ? o[i].what : "-", count);
		int printed = 0;
		for (int j = i; j < n; j++) {
			if (strcmp(o[j].what, o[i].what) || !o[j].has_sq)
				continue;
			int seen = 0;
			for (int k = i; k < j && !seen; k++)
				seen = !strcmp(o[k].what, o[i].what) && o[k].has_sq && o[k].x == o[j].x &&
				       o[k].y == o[j].y;
			if (!seen)
				printf("%s (%d,%d)", ++printed % 10 == 0 ? "\n   " : "", o[j].x, o[j].y);
		}
		printf("\n  ('%s' lists them all, a square 'x,y' those there)\n", o[i].what);
	}
}

/* A decision of a step other than the tile's (the action after a tile,
 * a square of the dragon's flight, or any step a build knows): the
 * engine's options in its words, chosen by number, by square, or by
 * direction from the dragon; the board shows the squares to choose from.
 * CARC_MOVE_NONE to stop the game. */
static carc_move human_step(play *P)
{
	const carc_game *g = P->g;
	char line[256];
	int n = carc_legal_moves(g, P->pl, CARC_MAX_MOVES);
	step_opt *o = calloc((size_t)(n > 0 ? n : 1), sizeof *o);
	if (!o)
		return CARC_MOVE_NONE;
	for (int i = 0; i < n; i++)
		read_opt(g, P->pl[i], &o[i]);
	/* a step about the dragon's neighbours: each square by its direction */
	int dx = 0, dy = 0, dragon = carc_dragon_tile(g) >= 0 &&
	                                 !carc_board_tile(g, carc_dragon_tile(g), NULL, &dx, &dy,
	                                                  NULL, NULL);
	char dir[4] = {0};
	int ndir = 0;
	bd_opts bo = P->bd;
	bo.nmarks = 0;
	if (dragon && n <= 4) {
		for (int i = 0; i < n; i++) {
			char c = o[i].has_sq && !o[i].what[0] ? direction(dx, dy, o[i].x, o[i].y) : 0;
			if (!c)
				break;
			dir[i] = c;
			ndir++;
			bo.marks[bo.nmarks].x = o[i].x;
			bo.marks[bo.nmarks].y = o[i].y;
			bo.marks[bo.nmarks].c = c;
			bo.nmarks++;
		}
		if (ndir < n)
			ndir = bo.nmarks = 0;
	}
	carc_move pending = CARC_MOVE_NONE, out = CARC_MOVE_NONE;
	int redraw = 1;
	for (;;) {
		if (redraw) {
			play Q = *P;
			Q.bd = bo;
			show_board(&Q, CARC_MOVE_NONE);
			printf("\n");
			bd_player_label(stdout, carc_to_move(g), P->bd.color);
			printf(" (%s) decides: %s", P->seat[carc_to_move(g)],
			       carc_name(CARC_NAMES_STEP, carc_step_kind(g)));
			if (carc_turn_player(g) != carc_to_move(g)) {
				printf(" in the turn of ");
				bd_player_label(stdout, carc_turn_player(g), P->bd.color);
			}
			printf("\n  ");
			if (bd_print_pieces(stdout, g))
				printf("\n  ");
			if (ndir) {
				printf("squares (marked on the board):");
				for (int i = 0; i < n; i++)
					printf("  %c %s (%d,%d)", dir[i], direction_word(dir[i]), o[i].x, o[i].y);
				printf("\n");
			} else {
				printf("choices:\n");
				show_opts(o, n);
			}
			printf("  choose by number%s, 'hint', or 'help'\n",
			       ndir ? ", direction or square" : n > STEP_LIST_ALL ? " (or a square)" : "");
			redraw = 0;
		}
		if (read_line(P, line, sizeof line))
			break;
		int x, y, pick = -1;
		char *end;
		long k = strtol(line, &end, 10);
		if (!strcmp(line, "quit") || !strcmp(line, "q") || !strcmp(line, "exit"))
			break;
		if (!strcmp(line, "help") || !strcmp(line, "h") || !strcmp(line, "?")) {
			printf("  1..%d: that choice", n);
			if (ndir)
				printf("   n e s w (or north ...): the square that way   x,y: the square");
			else if (n > STEP_LIST_ALL)
				printf("   a group's name: its choices   x,y: the choices on that square");
			printf("\n  hint: the bot's choice (then 'ok' takes it)   board, score, tiles   "
			       "quit: save and leave\n");
			continue;
		} else if (!strcmp(line, "board")) {
			redraw = 1;
			continue;
		} else if (!strcmp(line, "score") || !strcmp(line, "scores")) {
			print_scores(P);
			continue;
		} else if (!strcmp(line, "tiles")) {
			print_tiles_left(P);
			continue;
		} else if (!strcmp(line, "hint")) {
			if (!hinter(P, g))
				continue;
			pending = carc_bot_choose(P->hinter, g);
			char text[96];
			carc_move_text(g, pending, text, sizeof text);
			printf("  hint (%s): %s; 'ok' (or Enter) takes it\n", carc_bot_spec(P->hinter), text);
			continue;
		} else if (!line[0] || !strcmp(line, "ok") || !strcmp(line, "y")) {
			if (pending == CARC_MOVE_NONE) {
				printf("  choose first (1..%d)\n", n);
				continue;
			}
			out = pending;
			break;
		} else if (*line && !*end && k >= 1 && k <= n) {
			pick = (int)k - 1;
		} else if (parse_square(line, &x, &y)) {
			int count = 0;
			for (int i = 0; i < n; i++)
				if (o[i].has_sq && o[i].x == x && o[i].y == y) {
					count++;
					pick = i;
				}
			if (count == 0) {
				printf("  nothing to choose on (%d,%d)\n", x, y);
				continue;
			}
			if (count > 1) {
				list_opts(o, n, NULL, x, y, 1);
				continue;
			}
		} else if (ndir && !line[1] && strchr("nesw", line[0])) {
			for (int i = 0; i < n; i++)
				if (dir[i] == line[0])
					pick = i;
		} else if (ndir && strlen(line) > 1) {
			for (int i = 0; i < n; i++)
				if (!strcmp(line, direction_word(dir[i])))
					pick = i;
		} else {
			int any = 0;
			for (int i = 0; i < n && !any; i++)
				any = o[i].what[0] && !strcmp(o[i].what, line);
			if (any) {
				list_opts(o, n, line, 0, 0, 0);
				continue;
			}
		}
		if (pick < 0) {
			if (*line && !*end)
				printf("  choose 1..%d\n", n);
			else if (ndir && !line[1] && strchr("nesw", line[0]))
				printf("  the way '%s' is not a square to choose\n", line);
			else
				printf("  unknown command '%s' (try 'help')\n", line);
			continue;
		}
		out = o[pick].m;
		break;
	}
	free(o);
	return out;
}

/* The human's move; CARC_MOVE_NONE to stop the game. */
static carc_move human_turn(play *P)
{
	if (carc_step_kind(P->g) != CARC_STEP_TILE)
		return human_step(P);
	const carc_game *g = P->g;
	char line[256];
	collect_squares(P);
	P->sel_sq = -1;
	P->sel_rot = 0;
	P->sel_fig = -1;
	P->nfo = 0;
	if (P->npl == 1 && P->pl[0] == CARC_MOVE_DISCARD)
		return CARC_MOVE_DISCARD;
	show_choice(P);
	for (;;) {
		if (read_line(P, line, sizeof line))
			return CARC_MOVE_NONE;
		if (!strcmp(line, "quit") || !strcmp(line, "q") || !strcmp(line, "exit"))
			return CARC_MOVE_NONE;
		if (!strcmp(line, "help") || !strcmp(line, "h") || !strcmp(line, "?")) {
			printf("  a..z A..Z: square   r: rotate   0..9: figure (0 none)   ok or Enter: "
			       "confirm\n  u: undo   hint: the bot's move   board, score, tiles   quit: "
			       "save and leave\n");
		} else if (!strcmp(line, "board")) {
			show_choice(P);
		} else if (!strcmp(line, "score") || !strcmp(line, "scores")) {
			print_scores(P);
		} else if (!strcmp(line, "tiles")) {
			print_tiles_left(P);
		} else if (!strcmp(line, "hint")) {
			if (!hinter(P, g))
				continue;
			carc_move m = carc_bot_choose(P->hinter, g);
			char d[200];
			describe(g, m, d, sizeof d);
			printf("  hint (%s): %s\n", carc_bot_spec(P->hinter), d);
			select_move(P, m);
			show_choice(P);
		} else if (!strcmp(line, "u") || !strcmp(line, "undo")) {
			if (P->sel_fig >= 0) {
				P->sel_fig = -1;
			} else if (P->sel_sq >= 0) {
				P->sel_sq = -1;
				P->sel_rot = 0;
				P->nfo = 0;
			} else {
				printf("  nothing to undo\n");
				continue;
			}
			show_choice(P);
		} else if (!strcmp(line, "r") || !strcmp(line, "rotate")) {
			if (P->sel_sq < 0) {
				printf("  choose a square first\n");
				continue;
			}
			carc_move rots[4];
			int n = square_rots(P, P->sel_sq, rots);
			if (n == 1) {
				printf("  only one rotation fits on this square\n");
				continue;
			}
			P->sel_rot = (P->sel_rot + 1) % n;
			P->sel_fig = -1;
			refresh_options(P);
			show_choice(P);
		} else if (!line[0] || !strcmp(line, "ok") || !strcmp(line, "y")) {
			if (P->sel_sq < 0) {
				printf("  choose a square first (a..%c)\n", square_label(P->nsq - 1));
				continue;
			}
			return current_choice(P);
		} else if (line[0] >= '0' && line[0] <= '9') {
			char *end;
			long k = strtol(line, &end, 10);
			if (P->sel_sq < 0) {
				printf("  choose a square first\n");
				continue;
			}
			if (*end || k < 0 || k > P->nfo) {
				printf("  no figure option '%s' (0..%d)\n", line, P->nfo);
				continue;
			}
			P->sel_fig = (int)k - 1;
			show_choice(P);
		} else if (!line[1] && ((line[0] >= 'a' && line[0] <= 'z') ||
		                        (line[0] >= 'A' && line[0] <= 'Z'))) {
			int s = line[0] >= 'a' ? line[0] - 'a' : line[0] - 'A' + 26;
			if (s >= P->nsq) {
				printf("  no square '%c' (a..%c)\n", line[0], square_label(P->nsq - 1));
				continue;
			}
			P->sel_sq = s;
			P->sel_rot = 0;
			P->sel_fig = -1;
			refresh_options(P);
			show_choice(P);
		} else {
			printf("  unknown command '%s' (try 'help')\n", line);
		}
	}
}

/* ---- the game ------------------------------------------------------------------------- */

static int save_record(play *P)
{
	if (P->nosave)
		return 0;
	char extra[2048];
	size_t o = (size_t)snprintf(extra, sizeof extra, "{\"seats\": [");
	for (int p = 0; p < P->np; p++) {
		o += (size_t)snprintf(extra + o, sizeof extra - o, "%s\"", p ? ", " : "");
		for (const char *c = P->seat[p]; *c && o + 8 < sizeof extra; c++) {
			if (*c == '"' || *c == '\\')
				extra[o++] = '\\';
			extra[o++] = (unsigned char)*c >= 0x20 ? *c : '?';
		}
		if (o + 2 < sizeof extra)
			extra[o++] = '"';
		extra[o] = 0;
	}
	snprintf(extra + o, sizeof extra - o, "], \"program\": \"carc play\"}");
	char *json = carc_record_write(P->g, extra);
	if (!json) {
		fprintf(stderr, "carc play: could not write the record\n");
		return 1;
	}
	char def[64];
	const char *path = P->save;
	if (!path) {
		snprintf(def, sizeof def, "carc-play-%llu.json", (unsigned long long)carc_game_seed(P->g));
		path = def;
	}
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f || fputs(json, f) < 0 || fputc('\n', f) < 0) {
		fprintf(stderr, "carc play: cannot write %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	if (f && fclose(f))
		rc = 1;
	if (!rc)
		printf("game saved to %s\n", path);
	free(json);
	return rc;
}

static void report_move(const play *P, int p, const carc_events *ev)
{
	const carc_game *g = P->g;
	bd_print_step(stdout, g, carc_steps_played(g) - 1, P->bd.color);
	if (P->bot[p])
		printf("  [%s]", carc_bot_spec(P->bot[p]));
	printf("\n");
	carc_step_info si;
	carc_step_played(g, carc_steps_played(g) - 1, &si);
	for (int e = 0; e < ev->n; e++) {
		const carc_event *x = &ev->ev[e];
		if (x->type == CARC_EV_RETURNED && !x->final && si.kind != CARC_STEP_TILE) {
			/* what a step after the tile sent home (the dragon, the princess) */
			int tx = 0, ty = 0;
			carc_board_tile(g, x->tile, NULL, &tx, &ty, NULL, NULL);
			printf("  goes home: ");
			bd_player_label(stdout, x->player, P->bd.color);
			printf("'s %s from (%d,%d)\n", carc_name(CARC_NAMES_FIGURE_WORDS, x->kind), tx, ty);
		}
		if (x->final || x->type != CARC_EV_SCORED)
			continue;
		printf("  scores ");
		bd_print_event(stdout, g, &ev->ev[e], P->bd.color);
		printf("\n");
	}
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
	int players_opt = 0, color = 2, rc = 0;
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	P->hint_spec = "mcts:time=0.5";
	bd_opts_default(&P->bd, stdout);
	P->bd.cw = 0; /* fit each time */
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			usage(stdout);
			free(P);
			return 0;
		}
		int before = rules.players;
		if ((st = ropt_rules(CMD, argc, argv, &i, &rules)) != 0) {
			if (st < 0)
				goto usage_error;
			if (rules.players != before || !strncmp(argv[i], "--players", 9) ||
			    (i > 0 && !strcmp(argv[i - 1], "--players")))
				players_opt = rules.players;
			continue;
		}
		if ((st = ropt_color(CMD, argc, argv, &i, &color)) != 0) {
			if (st < 0)
				goto usage_error;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &seed))
				goto usage_error;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--save", &v)) != 0) {
			if (st < 0)
				goto usage_error;
			P->save = v;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--hint", &v)) != 0) {
			if (st < 0)
				goto usage_error;
			P->hint_spec = v;
		} else if (!strcmp(argv[i], "--no-save")) {
			P->nosave = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ropt_unknown(CMD, argv[i]);
			goto usage_error;
		} else {
			if (P->np >= CARC_MAX_PLAYERS) {
				ropt_usage(CMD, "at most %d seats", CARC_MAX_PLAYERS);
				goto usage_error;
			}
			P->seat[P->np++] = argv[i];
		}
	}
	if (P->np == 0) {
		P->seat[0] = "human";
		P->seat[1] = "mcts:time=1";
		P->np = 2;
	} else if (P->np == 1) {
		ropt_usage(CMD, "give at least two seats (e.g. 'carc play human greedy')");
		goto usage_error;
	}
	if (players_opt && players_opt != P->np) {
		ropt_usage(CMD, "--players %d does not match the %d seats given", players_opt, P->np);
		goto usage_error;
	}
	rules.players = P->np;
	if (ropt_check_rules(CMD, &rules))
		goto usage_error;
	P->bd.color = ropt_color_on(color, stdout);
	char err[CARC_ERRMSG_SIZE];
	P->g = carc_game_new(&rules, seed, NULL, 0, err);
	if (!P->g) {
		ropt_usage(CMD, "%s", err);
		goto usage_error;
	}
	for (int p = 0; p < P->np; p++) {
		if (!strcmp(P->seat[p], "human"))
			continue;
		char berr[256];
		P->bot[p] = carc_bot_new(P->seat[p], seed * 31 + (uint64_t)p + 1, berr, sizeof berr);
		if (!P->bot[p]) {
			ropt_usage(CMD, "seat %d: %s", p + 1, berr);
			rc = 2;
			goto out;
		}
	}
	{
		char hb[256];
		carc_bot *t = carc_bot_new(P->hint_spec, 1, hb, sizeof hb);
		if (!t) {
			ropt_usage(CMD, "--hint: %s", hb);
			rc = 2;
			goto out;
		}
		carc_bot_free(t);
	}
	P->echo = !isatty(0);
	printf("carc play: seed %llu, %d players, %s\n", (unsigned long long)seed, P->np,
	       rules.farmers ? carc_farm_scoring_name(rules.farm_scoring) : "no farmers");
	for (int p = 0; p < P->np; p++) {
		printf("  ");
		bd_player_label(stdout, p, P->bd.color);
		printf(" %s\n", P->seat[p]);
	}
	int quit = 0;
	while (!carc_game_over(P->g)) {
		int p = carc_to_move(P->g);
		carc_move m;
		if (P->bot[p]) {
			m = carc_bot_choose(P->bot[p], P->g);
		} else {
			m = human_turn(P);
			if (m == CARC_MOVE_NONE) {
				quit = 1;
				break;
			}
		}
		carc_events ev;
		if (carc_apply(P->g, m, &ev, err) != CARC_OK) {
			printf("illegal move: %s\n", err);
			if (P->bot[p]) {
				rc = 1;
				break;
			}
			continue;
		}
		report_move(P, p, &ev);
	}
	if (carc_game_over(P->g)) {
		show_board(P, CARC_MOVE_NONE);
		print_breakdown(P);
	} else if (quit) {
		printf("game left after %d turns\n", carc_turns_played(P->g));
		print_scores(P);
	}
	if (save_record(P))
		rc = 1;
out:
	for (int p = 0; p < P->np; p++)
		carc_bot_free(P->bot[p]);
	carc_bot_free(P->hinter);
	carc_game_free(P->g);
	free(P);
	return rc;
usage_error:
	carc_game_free(P->g);
	free(P);
	return ROPT_USAGE;
}
