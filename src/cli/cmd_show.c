/* cmd_show.c - placeholder: 'carc show' is not built yet (its owner replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_show(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "carc show: not built yet\n");
	return 1;
}
