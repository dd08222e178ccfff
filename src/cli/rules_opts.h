/*
 * rules_opts.h - what the subcommands share on their command lines: the
 * rules of a game (players, farm scoring, small city, farmers, expansions),
 * small helpers for option values and reading an input file, so every
 * subcommand parses them the same way and words its errors the same way.
 *
 * Options are taken as "--name value" or "--name=value". An error is one
 * line on stderr naming the option and the bad value, followed by
 * "(see carc CMD --help)"; the caller then returns exit status 2.
 *
 * A subcommand's loop looks like:
 *
 *     carc_rules r;  carc_rules_default(&r);
 *     for (int i = 1; i < argc; i++) {
 *         const char *v;
 *         int st = ropt_rules(cmd, argc, argv, &i, &r);
 *         if (st < 0) return 2;
 *         if (st > 0) continue;
 *         if (ropt_value(cmd, argc, argv, &i, "--games", &v)) { ... }
 *         ...
 *     }
 *     if (ropt_check_rules(cmd, &r)) return 2;
 */
#ifndef CARC_CLI_RULES_OPTS_H
#define CARC_CLI_RULES_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "carc.h"

/* Exit status of a bad command line. */
#define ROPT_USAGE 2

/*
 * Looks at argv[*i]: if it is one of the rules options, applies it to *r,
 * advances *i past its value and returns 1; returns 0 if it is not a rules
 * option; returns -1 after printing an error (bad or missing value).
 * Options: --players N, --farm-scoring NAME, --small-city, --no-farmers,
 * --expansions LIST.
 */
int ropt_rules(const char *cmd, int argc, char **argv, int *i, carc_rules *r);

/* Prints the help lines of the rules options (for a command's --help). */
void ropt_rules_help(FILE *f);

/* Checks that the engine accepts the rules (by setting up a game); prints
 * the engine's message and returns -1 if not, else 0. */
int ropt_check_rules(const char *cmd, const carc_rules *r);

/*
 * Expansion names to carc_rules.expansions bits: `list` is a
 * comma-separated subset of the known names (empty: base game). Returns 0,
 * or -1 with the reason in err (an unknown name lists the valid ones).
 */
int ropt_parse_expansions(const char *list, unsigned *bits, char *err, size_t errsize);
/* The same for the value of an --expansions option: prints the error and
 * returns -1 if the list is not valid. */
int ropt_expansions(const char *cmd, const char *list, unsigned *bits);
/* The valid expansion names, comma-separated (a static string). */
const char *ropt_expansion_names(void);

/*
 * If argv[*i] is `name` ("--name value" or "--name=value"), sets *value to
 * the value (a pointer into argv), advances *i past it and returns 1;
 * prints an error and returns -1 if the value is missing; returns 0 if
 * argv[*i] is another option.
 */
int ropt_value(const char *cmd, int argc, char **argv, int *i, const char *name,
               const char **value);

/* Parses an integer in [lo, hi]; prints an error naming the option and
 * returns -1 if it is not one. */
int ropt_int(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out);
/* Parses an unsigned 64-bit number (decimal or 0x hex), as for seeds. */
int ropt_u64(const char *cmd, const char *opt, const char *s, uint64_t *out);

/* Prints "carc CMD: <message> (see carc CMD --help)" on stderr; returns
 * ROPT_USAGE so that a caller can `return ropt_usage(...)`. */
int ropt_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* "unknown option 'X'" or "unexpected argument 'X'": for what no option
 * of the command matched. Returns ROPT_USAGE. */
int ropt_unknown(const char *cmd, const char *arg);

/* 1 if arg is -h or --help. */
int ropt_is_help(const char *arg);

/*
 * --color=auto|always|never: sets *mode (0 never, 1 always, 2 auto) and
 * returns 1 if argv[*i] is a colour option, 0 if not, -1 after an error.
 * ropt_color_on resolves auto for a stream (a terminal, and NO_COLOR
 * unset).
 */
int ropt_color(const char *cmd, int argc, char **argv, int *i, int *mode);
int ropt_color_on(int mode, FILE *f);

/*
 * Reads the whole file at path ("-": standard input). Returns a malloc'd,
 * NUL-terminated buffer the caller frees, with its length in *len; NULL
 * with the reason (strerror) in err if the file cannot be read.
 */
char *ropt_read_file(const char *path, size_t *len, char *err, size_t errsize);

#endif
