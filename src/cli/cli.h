/*
 * cli.h - the subcommands of the `carc` command. Each lives in its own
 * file (cmd_<name>.c), takes the arguments after its name (argv[0] is the
 * subcommand), prints its own help for -h/--help, and returns the process
 * exit status: 0 success, 1 a failure of the work, 2 bad usage.
 */
#ifndef CARC_CLI_H
#define CARC_CLI_H

int cmd_sim(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_tiles(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_arena(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_analyse(int argc, char **argv);
int cmd_engine(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_names(int argc, char **argv);

#endif
