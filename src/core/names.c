/*
 * names.c - every name the engine gives, in one place: figures, features,
 * scoring kinds, goods, tile sets, steps, expansions, farm-scoring
 * editions, ports and tiles; the words a record, the server's JSON, the
 * terminal and the browser use for them (carc_name, carc_vocabulary_json).
 * Nobody else keeps a copy: tests/cli/test_names.sh fails when one of
 * these names is written in the server, the command, Python or the web
 * client.
 *
 * Also here: what each player starts with (the supply), since that too is
 * a fact of the rules others used to repeat.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "jsonout.h"

static const char *const FIGURE[CARC_FIG_COUNT] = {"follower", "big", "builder", "pig",
                                                   "abbot"};
static const char *const FEATURE[CARC_FEAT_KIND_COUNT] = {"city",     "road",   "field",
                                                          "cloister", "garden", "river"};
static const char *const SCORE[CARC_SCORE_KIND_COUNT] = {"road",   "city",   "cloister",
                                                         "farm",   "garden", "goods",
                                                         "fairy"};
static const char *const GOODS[CARC_GOODS_COUNT] = {"none", "wine", "grain", "cloth"};
static const char *const TILESET[CARC_SET_COUNT] = {"base", "river", "inns-cathedrals",
                                                    "traders-builders", "princess-dragon"};
static const char *const STEP[ST_STEP_KINDS] = {
	"tile", "action", "dragon",
#ifdef CARC_TEST_STEPS
	"test-pass",
#endif
};
/* bit i of carc_rules.expansions */
static const char *const EXPANSION[EXP_KNOWN_COUNT] = {
	"river", "inns-cathedrals", "inns-cathedrals-tiles", "traders-builders", "abbot",
	"princess-dragon",
#ifdef CARC_TEST_STEPS
	"test-pass",
#endif
};
static const char *const FARM[CARC_FARM_SCORING_COUNT] = {"international", "city-once",
                                                          "first-edition"};
static const char *const PORT[CARC_PORT_INNER + 1] = {"N0", "N1", "N2", "E0", "E1", "E2", "S0",
                                                      "S1", "S2", "W0", "W1", "W2", "C",  "I"};

/* The words people read in messages where a record's word is terse
 * (English; a client translates by the record's name). */
static const char *const SYMBOL[] = {"none", "volcano", "dragon", "portal", "princess"};
#define NSYMBOLS ((int)(sizeof SYMBOL / sizeof SYMBOL[0]))
static const char *const FIGURE_WORDS[CARC_FIG_COUNT] = {"follower", "big follower", "builder",
                                                         "pig", "abbot"};

const char *eng_figure_words(int kind)
{
	return kind >= 0 && kind < CARC_FIG_COUNT ? FIGURE_WORDS[kind] : "figure";
}

int carc_name_count(int what)
{
	switch (what) {
	case CARC_NAMES_FIGURE: return CARC_FIG_COUNT;
	case CARC_NAMES_FEATURE: return CARC_FEAT_KIND_COUNT;
	case CARC_NAMES_SCORE: return CARC_SCORE_KIND_COUNT;
	case CARC_NAMES_GOODS: return CARC_GOODS_COUNT;
	case CARC_NAMES_TILESET: return CARC_SET_COUNT;
	case CARC_NAMES_STEP: return ST_STEP_KINDS;
	case CARC_NAMES_EXPANSION: return EXP_KNOWN_COUNT;
	case CARC_NAMES_FARM_SCORING: return CARC_FARM_SCORING_COUNT;
	case CARC_NAMES_PORT: return CARC_PORT_INNER + 1;
	case CARC_NAMES_TILE: return TILE_TYPES;
	case CARC_NAMES_FIGURE_WORDS: return CARC_FIG_COUNT;
	case CARC_NAMES_SYMBOL: return NSYMBOLS;
	default: return 0;
	}
}

const char *carc_name(int what, int i)
{
	if (i < 0 || i >= carc_name_count(what))
		return NULL;
	switch (what) {
	case CARC_NAMES_FIGURE: return FIGURE[i];
	case CARC_NAMES_FEATURE: return FEATURE[i];
	case CARC_NAMES_SCORE: return SCORE[i];
	case CARC_NAMES_GOODS: return GOODS[i];
	case CARC_NAMES_TILESET: return TILESET[i];
	case CARC_NAMES_STEP: return STEP[i];
	case CARC_NAMES_EXPANSION: return EXPANSION[i];
	case CARC_NAMES_FARM_SCORING: return FARM[i];
	case CARC_NAMES_PORT: return PORT[i];
	case CARC_NAMES_TILE: return tile_defs[i].name;
	case CARC_NAMES_FIGURE_WORDS: return FIGURE_WORDS[i];
	case CARC_NAMES_SYMBOL: return SYMBOL[i];
	default: return NULL;
	}
}

int carc_name_parse(int what, const char *name)
{
	int n = carc_name_count(what);
	for (int i = 0; name && i < n; i++)
		if (!strcmp(name, carc_name(what, i)))
			return i;
	return -1;
}

/* ---- the older named calls, over the lists ------------------------------------------- */

const char *carc_farm_scoring_name(int fs)
{
	const char *s = carc_name(CARC_NAMES_FARM_SCORING, fs);
	return s ? s : "?";
}

int carc_farm_scoring_parse(const char *name)
{
	return carc_name_parse(CARC_NAMES_FARM_SCORING, name);
}

const char *carc_expansion_name(unsigned bit)
{
	for (int i = 0; i < EXP_KNOWN_COUNT; i++)
		if (bit == 1u << i)
			return EXPANSION[i];
	return NULL;
}

unsigned carc_expansion_parse(const char *name)
{
	int i = carc_name_parse(CARC_NAMES_EXPANSION, name);
	return i < 0 ? 0 : 1u << i;
}

unsigned carc_expansions_known(void)
{
	return (1u << EXP_KNOWN_COUNT) - 1;
}

const char *carc_port_name(int port)
{
	const char *s = carc_name(CARC_NAMES_PORT, port);
	return s ? s : "?";
}

int carc_port_parse(const char *name)
{
	return carc_name_parse(CARC_NAMES_PORT, name);
}

/* ---- what players start with ------------------------------------------------------------ */

int carc_rules_supply(const carc_rules *r, int figure)
{
	unsigned ex = r->expansions;
	switch (figure) {
	case CARC_FIG_FOLLOWER: return 7;
	case CARC_FIG_BIG: return (ex & CARC_EXP_INNS) ? 1 : 0;
	case CARC_FIG_BUILDER:
	case CARC_FIG_PIG: return (ex & CARC_EXP_TRADERS) ? 1 : 0;
	case CARC_FIG_ABBOT: return (ex & CARC_EXP_ABBOT) ? 1 : 0;
	default: return 0;
	}
}

int carc_rules_max_players(unsigned expansions)
{
	return expansions & (CARC_EXP_INNS | CARC_EXP_INNS_TILES) ? 6 : 5;
}

int carc_rules_score_kind(const carc_rules *r, int kind)
{
	if (kind == CARC_SCORE_GARDEN)
		return (r->expansions & CARC_EXP_ABBOT) != 0;
	if (kind == CARC_SCORE_GOODS)
		return (r->expansions & CARC_EXP_TRADERS) != 0;
	if (kind == CARC_SCORE_FAIRY)
		return (r->expansions & CARC_EXP_PRINCESS) != 0;
	return kind >= 0 && kind < CARC_SCORE_KIND_COUNT;
}

/* ---- all of them as JSON ------------------------------------------------------------------ */

char *carc_vocabulary_json(void)
{
	static const struct {
		const char *key;
		int what;
	} LISTS[] = {
		{"figures", CARC_NAMES_FIGURE},     {"features", CARC_NAMES_FEATURE},
		{"score_kinds", CARC_NAMES_SCORE},  {"goods", CARC_NAMES_GOODS},
		{"tile_sets", CARC_NAMES_TILESET},  {"steps", CARC_NAMES_STEP},
		{"expansions", CARC_NAMES_EXPANSION}, {"farm_scoring", CARC_NAMES_FARM_SCORING},
		{"ports", CARC_NAMES_PORT},         {"tiles", CARC_NAMES_TILE},
		{"figure_words", CARC_NAMES_FIGURE_WORDS}, {"symbols", CARC_NAMES_SYMBOL},
	};
	jo_buf b;
	jo_init(&b);
	jo_raw(&b, "{");
	for (size_t l = 0; l < sizeof LISTS / sizeof LISTS[0]; l++) {
		if (l)
			jo_raw(&b, ",");
		jo_key(&b, LISTS[l].key);
		jo_raw(&b, "[");
		int n = carc_name_count(LISTS[l].what);
		for (int i = 0; i < n; i++) {
			if (i)
				jo_raw(&b, ",");
			jo_str(&b, carc_name(LISTS[l].what, i));
		}
		jo_raw(&b, "]");
	}
	jo_raw(&b, "}");
	return jo_take(&b);
}
