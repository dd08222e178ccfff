/*
 * tiles.c - read access to the tile table and the standard pile of a rule
 * set (the names are names.c's).
 */
#include <string.h>

#include "engine.h"

/* ---- tiles -------------------------------------------------------------------- */

static int valid_type(int type) { return type >= 0 && type < TILE_TYPES; }

int carc_tile_parse(const char *name)
{
	for (int i = 0; name && i < TILE_TYPES; i++)
		if (!strcmp(name, tile_defs[i].name))
			return i;
	return -1;
}

const char *carc_tile_name(int type)
{
	return valid_type(type) ? tile_defs[type].name : "?";
}

const char *carc_tile_note(int type)
{
	return valid_type(type) ? tile_defs[type].note : "";
}

int carc_tile_box_count(int type)
{
	return valid_type(type) ? tile_defs[type].count : 0;
}

int carc_tile_set(int type)
{
	return valid_type(type) ? tile_defs[type].set : -1;
}

int carc_tile_is_garden_copy(int type, int *twin)
{
	if (!valid_type(type) || !tile_defs[type].twin)
		return 0;
	if (twin)
		*twin = carc_tile_parse(tile_defs[type].twin);
	return 1;
}

void carc_tile_edges(int type, int rot, char out[5])
{
	static const char L[4] = {'F', 'R', 'C', 'W'};
	for (int d = 0; d < 4; d++)
		out[d] = valid_type(type) ? L[(TT_EDGES[type][rot & 3] >> (2 * d)) & 3] : '?';
	out[4] = 0;
}

int carc_tile_segments(int type)
{
	return valid_type(type) ? tile_defs[type].nseg : 0;
}

int carc_tile_segment(int type, int s, int *kind, unsigned *ports,
                      unsigned *flags, unsigned *cities)
{
	if (!valid_type(type) || s < 0 || s >= tile_defs[type].nseg)
		return -1;
	const tile_seg *sg = &tile_defs[type].seg[s];
	if (kind)
		*kind = sg->kind;
	if (ports)
		*ports = sg->ports;
	if (flags)
		*flags = sg->flags | ((unsigned)sg->goods << 8);
	if (cities)
		*cities = sg->cities;
	return 0;
}

int carc_tile_port_segment(int type, int rot, int port)
{
	if (!valid_type(type) || rot < 0 || rot > 3 || port < 0 || port > CARC_PORT_INNER)
		return -1;
	int s = TT_PORTSEG[type][rot][port];
	return s == 255 ? -1 : s;
}

int carc_tile_segment_port(int type, int rot, int s)
{
	if (!valid_type(type) || rot < 0 || rot > 3 || s < 0 || s >= tile_defs[type].nseg)
		return -1;
	return TT_SEGPORT[type][rot][s];
}

/* ---- rule sets ------------------------------------------------------------------- */

/* Is a tile type part of the rule set's tiles? */
int eng_type_in_rules(const carc_rules *r, int type)
{
	const tile_def *d = &tile_defs[type];
	if (d->twin && !(r->expansions & CARC_EXP_ABBOT))
		return 0;
	switch (d->set) {
	case CARC_SET_BASE: return 1;
	case CARC_SET_RIVER: return (r->expansions & CARC_EXP_RIVER) != 0;
	case CARC_SET_INNS: return (r->expansions & (CARC_EXP_INNS | CARC_EXP_INNS_TILES)) != 0;
	case CARC_SET_TRADERS: return (r->expansions & CARC_EXP_TRADERS) != 0;
	case CARC_SET_PRINCESS: return (r->expansions & CARC_EXP_PRINCESS) != 0;
	default: return 0;
	}
}

int carc_rules_start_tile(const carc_rules *r)
{
	return (r->expansions & CARC_EXP_RIVER) ? TT_TYPE_SPRING : TT_TYPE_D;
}

int carc_rules_pile(const carc_rules *r, int *counts)
{
	int n = 0;
	const int d = TT_TYPE_D, spring = TT_TYPE_SPRING;
	for (int t = 0; t < TILE_TYPES; t++) {
		counts[t] = eng_type_in_rules(r, t) ? tile_defs[t].count : 0;
		/* the D that is the start tile; with the River the spring
		 * replaces it and that D is left out of the game */
		if (t == d || t == spring)
			counts[t]--;
	}
	if (r->expansions & CARC_EXP_ABBOT)
		for (int t = 0; t < TILE_TYPES; t++)
			if (counts[t] && tile_defs[t].twin)
				counts[carc_tile_parse(tile_defs[t].twin)]--;
	for (int t = 0; t < TILE_TYPES; t++) {
		if (counts[t] < 0)
			counts[t] = 0;
		n += counts[t];
	}
	return n;
}
