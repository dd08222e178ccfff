/*
 * cmd_tiles.c - `carc tiles`: the tile definitions of a rule set, as the
 * engine has them (carc_tile_* functions), as a readable table or as JSON
 * in the form of the spec's base-tiles.json.
 *
 * The tiles of a rule set are those of its standard pile plus its start
 * tile; a tile's count is its copies in that pile (start included).
 * Goods on a segment are printed too (CARC_SEG_GOODS of its flags).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "tiles";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc tiles [--json] [--expansions LIST]\n"
	        "\n"
	        "Prints the tile types of a rule set as the engine defines them: for each\n"
	        "tile its count in the rule set's pile (start tile included), its edges\n"
	        "(N E S W: C city, R road, F field, W river) and its segments with their\n"
	        "ports at rotation 0 (N0..W2 as in the records, a whole side as its letter,\n"
	        "C the centre, I a field touching no edge); a field lists the city\n"
	        "segments it borders. A tile of Princess & Dragon names its symbol\n"
	        "(volcano, dragon, magic portal) and the princess's city (+princess).\n"
	        "\n"
	        "options:\n"
	        "  --json             print JSON in the form of the spec's base-tiles.json\n"
	        "                     (\"ports\", \"start\", \"tiles\": count, segments, note,\n"
	        "                     edges; segment flags inn, cathedral and princess when\n"
	        "                     set; \"symbol\" on a Princess & Dragon tile that has one)\n"
	        "  --expansions LIST  the tiles of these expansions too (comma-separated,\n"
	        "                     any of: %s)\n"
	        "  -h, --help         this help\n"
	        "\n"
	        "examples:\n"
	        "  carc tiles\n"
	        "  carc tiles --json > tiles.json\n"
	        "  carc tiles --expansions inns-cathedrals,traders-builders\n",
	        ropt_expansion_names());
}

static json_t *tile_json(int type, int count)
{
	json_t *o = json_object(), *segs = json_array();
	int nseg = carc_tile_segments(type);
	for (int s = 0; s < nseg; s++) {
		int kind;
		unsigned ports, flags, cities;
		carc_tile_segment(type, s, &kind, &ports, &flags, &cities);
		json_t *so = json_object(), *pa = json_array();
		const char *kn = carc_name(CARC_NAMES_FEATURE, kind);
		json_object_set_new(so, "type", json_string(kn ? kn : "?"));
		for (int p = 0; p < 12; p++)
			if (ports & (1u << p))
				json_array_append_new(pa, json_string(carc_port_name(p)));
		json_object_set_new(so, "ports", pa);
		if (kind == CARC_FEAT_FIELD) {
			json_t *ca = json_array();
			for (int c = 0; c < CARC_MAX_SEGS; c++)
				if (cities & (1u << c))
					json_array_append_new(ca, json_integer(c));
			json_object_set_new(so, "cities", ca);
		}
		if (flags & CARC_SEGF_SHIELD)
			json_object_set_new(so, "shield", json_true());
		if (flags & CARC_SEGF_INN)
			json_object_set_new(so, "inn", json_true());
		if (flags & CARC_SEGF_CATHEDRAL)
			json_object_set_new(so, "cathedral", json_true());
		if (flags & CARC_SEGF_PRINCESS) /* the key is the symbol's name */
			json_object_set_new(so, carc_name(CARC_NAMES_SYMBOL, CARC_SYM_PRINCESS), json_true());
		if (CARC_SEG_GOODS(flags))
			json_object_set_new(so, "goods",
			                    json_string(carc_name(CARC_NAMES_GOODS, (int)CARC_SEG_GOODS(flags))));
		json_array_append_new(segs, so);
	}
	char edges[5];
	carc_tile_edges(type, 0, edges);
	json_object_set_new(o, "count", json_integer(count));
	if (carc_tile_symbol(type) != CARC_SYM_NONE)
		json_object_set_new(o, "symbol",
		                    json_string(carc_name(CARC_NAMES_SYMBOL, carc_tile_symbol(type))));
	json_object_set_new(o, "segments", segs);
	json_object_set_new(o, "note", json_string(carc_tile_note(type)));
	json_object_set_new(o, "edges", json_string(edges));
	return o;
}

/* Copies of each tile type in the rule set's pile, the start tile
 * included; returns the start tile. */
static int rule_set_tiles(const carc_rules *r, int *counts)
{
	int start = carc_rules_start_tile(r);
	carc_rules_pile(r, counts);
	if (start >= 0 && start < carc_limit(CARC_LIMIT_TILE_TYPES))
		counts[start]++;
	return start;
}

static int print_json(const carc_rules *r)
{
	int counts[carc_limit(CARC_LIMIT_TILE_TYPES)];
	int start_tile = rule_set_tiles(r, counts);
	json_t *root = json_object(), *ports = json_array(), *start = json_object();
	json_t *tiles = json_object();
	for (int p = 0; p < 12; p++)
		json_array_append_new(ports, json_string(carc_port_name(p)));
	json_object_set_new(start, "tile", json_string(carc_tile_name(start_tile)));
	json_object_set_new(start, "x", json_integer(0));
	json_object_set_new(start, "y", json_integer(0));
	json_object_set_new(start, "rot", json_integer(0));
	for (int t = 0; t < carc_limit(CARC_LIMIT_TILE_TYPES); t++)
		if (counts[t] > 0)
			json_object_set_new(tiles, carc_tile_name(t), tile_json(t, counts[t]));
	json_object_set_new(root, "ports", ports);
	json_object_set_new(root, "start", start);
	json_object_set_new(root, "tiles", tiles);
	char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s) {
		fprintf(stderr, "carc tiles: out of memory\n");
		return 1;
	}
	puts(s);
	free(s);
	return 0;
}

/* Ports as words: a whole side as its letter (N), else port names. */
static void ports_text(unsigned ports, char *out, size_t size)
{
	static const char SIDE[4] = {'N', 'E', 'S', 'W'};
	size_t l = 0;
	out[0] = '\0';
	for (int d = 0; d < 4 && l < size; d++) {
		unsigned side = 7u << (3 * d);
		if ((ports & side) == side)
			l += (size_t)snprintf(out + l, size - l, "%s%c", l ? " " : "", SIDE[d]);
		else
			for (int k = 0; k < 3 && l < size; k++)
				if (ports & (1u << (3 * d + k)))
					l += (size_t)snprintf(out + l, size - l, "%s%s", l ? " " : "",
					                      carc_port_name(3 * d + k));
	}
}

static int print_table(const carc_rules *r)
{
	const int types = carc_limit(CARC_LIMIT_TILE_TYPES);
	int counts[types], total = 0;
	int start = rule_set_tiles(r, counts);
	printf("tile  count  edges  segments (ports at rot 0; a field names the cities it borders)\n");
	for (int t = 0; t < types; t++) {
		int count = counts[t];
		if (count <= 0)
			continue;
		total += count;
		char edges[5];
		carc_tile_edges(t, 0, edges);
		printf("%-4s  %5d  %-5s ", carc_tile_name(t), count, edges);
		int nseg = carc_tile_segments(t);
		for (int s = 0; s < nseg; s++) {
			int kind;
			unsigned ports, flags, cities;
			char pt[64];
			carc_tile_segment(t, s, &kind, &ports, &flags, &cities);
			ports_text(ports, pt, sizeof pt);
			const char *kn = carc_name(CARC_NAMES_FEATURE, kind);
			printf("%s %d %s %s", s ? ";" : "", s, kn ? kn : "?",
			       ports ? pt
			             : carc_port_name(kind == CARC_FEAT_FIELD ? CARC_PORT_INNER
			                                                      : CARC_PORT_CENTRE));
			if (kind == CARC_FEAT_FIELD && cities) {
				printf(" (city");
				for (int c = 0; c < CARC_MAX_SEGS; c++)
					if (cities & (1u << c))
						printf(" %d", c);
				printf(")");
			}
			if (flags & CARC_SEGF_SHIELD)
				printf(" +shield");
			if (flags & CARC_SEGF_INN)
				printf(" +inn");
			if (flags & CARC_SEGF_CATHEDRAL)
				printf(" +cathedral");
			if (flags & CARC_SEGF_PRINCESS)
				printf(" +%s", carc_name(CARC_NAMES_SYMBOL, CARC_SYM_PRINCESS));
			if (CARC_SEG_GOODS(flags))
				printf(" +%s", carc_name(CARC_NAMES_GOODS, (int)CARC_SEG_GOODS(flags)));
		}
		if (carc_tile_symbol(t) != CARC_SYM_NONE)
			printf("; symbol %s", carc_name(CARC_NAMES_SYMBOL, carc_tile_symbol(t)));
		printf("\n");
	}
	printf("total %6d  (the start tile is one of the %s tiles)\n", total,
	       carc_tile_name(start));
	return 0;
}

int cmd_tiles(int argc, char **argv)
{
	int as_json = 0;
	carc_rules r;
	carc_rules_default(&r);
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--json")) {
			as_json = 1;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--expansions", &v)) != 0) {
			if (st < 0 || ropt_expansions(CMD, v, &r.expansions))
				return ROPT_USAGE;
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	return as_json ? print_json(&r) : print_table(&r);
}
