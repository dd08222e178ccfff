/* cmd_replay.c - placeholder: 'carc replay' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc replay: not built yet\n");
	return 1;
}
