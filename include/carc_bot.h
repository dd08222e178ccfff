/*
 * carc_bot.h - bots for libcarc: one interface for every playing strength.
 *
 * A bot is made from a spec string, "name" or "name:key=value,key=value",
 * e.g. "random", "greedy", "mcts:time=1.0,threads=2". It only reads the
 * game it is given and returns a legal move for the player to move.
 */
#ifndef CARC_BOT_H
#define CARC_BOT_H

#include <stddef.h>
#include <stdint.h>

#include "carc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct carc_bot carc_bot;

/* Makes a bot from a spec; NULL with a message in err for a bad spec.
 * The caller owns the bot and frees it with carc_bot_free. */
carc_bot *carc_bot_new(const char *spec, uint64_t seed, char *err, size_t errsize);
/* The move the bot chooses for the player to move (a legal move);
 * CARC_MOVE_NONE when the game is over. */
carc_move carc_bot_choose(carc_bot *b, const carc_game *g);
/* The spec the bot was made from, normalised (a string the bot owns). */
const char *carc_bot_spec(const carc_bot *b);
void carc_bot_free(carc_bot *b);
/* Names of the bots this library knows, NULL-terminated. */
const char *const *carc_bot_names(void);

#ifdef __cplusplus
}
#endif

#endif
