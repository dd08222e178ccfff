/* cmd_play.c - placeholder: 'carc play' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_play(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc play: not built yet\n");
	return 1;
}
