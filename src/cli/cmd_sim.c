/* cmd_sim.c - placeholder: 'carc sim' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_sim(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc sim: not built yet\n");
	return 1;
}
