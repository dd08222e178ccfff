/* cmd_serve.c - placeholder: 'carc serve' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc serve: not built yet\n");
	return 1;
}
