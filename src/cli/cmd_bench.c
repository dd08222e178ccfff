/* cmd_bench.c - placeholder: 'carc bench' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc bench: not built yet\n");
	return 1;
}
