/* cmd_tiles.c - placeholder: 'carc tiles' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_tiles(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc tiles: not built yet\n");
	return 1;
}
