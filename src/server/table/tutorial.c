/*
 * tutorial.c - the guided first game's deal (see tutorial.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tutorial.h"

/* gen/tutorial.c: data/tutorial.json's text */
extern const char srv_tutorial_text[];

const json_t *tutorial_deal(void)
{
	static json_t *deal; /* parsed on the event loop's first tutorial table */
	if (!deal) {
		json_error_t je;
		deal = json_loads(srv_tutorial_text, 0, &je);
		if (!json_is_object(deal)) {
			/* the build's own file: a broken one is the build's bug */
			fprintf(stderr, "carc: data/tutorial.json: %s\n", je.text);
			abort();
		}
	}
	return deal;
}
