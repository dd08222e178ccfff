/* cmd_arena.c - placeholder: 'carc arena' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_arena(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc arena: not built yet\n");
	return 1;
}
