#include "cli.h"
#include <stdio.h>
int cmd_engine(int argc, char **argv) { (void)argc; (void)argv; return 2; }
