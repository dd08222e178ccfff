/* cmd_demo.c - placeholder: 'carc demo' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_demo(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc demo: not built yet\n");
	return 1;
}
