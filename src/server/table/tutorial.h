/*
 * tutorial.h - the deal of the guided first game (docs/web.md, "The guided
 * first game"): a short pile of the base game and a seed whose shuffle
 * gives the person a city cap first, a road second and a cloister third.
 * It is data/tutorial.json, compiled in as the file's text (the Makefile's
 * gen/tutorial.c): the tiles are named there, by the engine's names, and
 * nowhere in the server's or the client's code (tests/cli/test_names.sh).
 */
#ifndef CARC_SERVER_TUTORIAL_H
#define CARC_SERVER_TUTORIAL_H

#include <jansson.h>

/* The deal as a JSON object {"seed": n, "tiles": {name: count}}, parsed
 * once (borrowed: the module keeps it for the process's life). A table
 * made with "tutorial": true and neither "tiles" nor "seed" of its own is
 * dealt it (options.c). */
const json_t *tutorial_deal(void);

#endif
