/*
 * fuzz_record.c - libFuzzer target: the record reader and replay.
 *
 * Any input must be either rejected with a message or accepted; an accepted
 * record, written again, must replay to the same game (round trip).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the game is opaque: room of carc_game_size() bytes, made once */
	static carc_game *g, *h;
	if (!g) {
		g = malloc(carc_game_size());
		h = malloc(carc_game_size());
		if (!g || !h)
			abort();
	}
	char err[256];
	carc_status st = carc_record_replay((const char *)data, size, g, err, sizeof err);
	if (st != CARC_OK) {
		if (!err[0])
			abort(); /* every rejection carries a message */
		return 0;
	}
	char *js = carc_record_write(g, NULL);
	if (!js)
		abort();
	if (carc_record_replay(js, strlen(js), h, err, sizeof err) != CARC_OK) {
		fprintf(stderr, "round trip failed: %s\n", err);
		abort();
	}
	if (carc_game_hash(g) != carc_game_hash(h))
		abort();
	int sg[CARC_MAX_PLAYERS], sh[CARC_MAX_PLAYERS];
	carc_game_scores(g, sg);
	carc_game_scores(h, sh);
	if (memcmp(sg, sh, sizeof(int) * (size_t)carc_players(g)))
		abort();
	free(js);
	return 0;
}
