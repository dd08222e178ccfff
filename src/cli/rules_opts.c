/*
 * rules_opts.c - the rules options and option-value helpers shared by the
 * subcommands (see rules_opts.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules_opts.h"

/*
 * Expansion names as written on the command line (and in records'
 * rules.expansions, see carc_expansion_name), and the carc_rules.expansions
 * bit each one sets. A bit of 0 means the expansion is not offered yet: the
 * name is known but refused. Offering one is putting its CARC_EXP_* bit in.
 */
const char *ropt_expansion_names(void)
{
	static char names[256];
	if (!names[0])
		for (int k = 0, l = 0; k < carc_name_count(CARC_NAMES_EXPANSION); k++)
			l += snprintf(names + l, sizeof names - (size_t)l, "%s%s", k ? ", " : "",
			              carc_name(CARC_NAMES_EXPANSION, k));
	return names;
}

int ropt_parse_expansions(const char *list, unsigned *bits, char *err, size_t errsize)
{
	/* the engine's names (carc_expansion_parse) */
	*bits = 0;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
		unsigned bit = len < 63 ? carc_expansion_parse(name) : 0;
		if (len == 0 || (p[len] == ',' && !p[len + 1])) {
			snprintf(err, errsize, "empty name in '%s' (valid: %s)", list,
			         ropt_expansion_names());
			return -1;
		}
		if (!bit) {
			snprintf(err, errsize, "unknown expansion '%.*s' (valid: %s)", (int)len, p,
			         ropt_expansion_names());
			return -1;
		}
		*bits |= bit;
		p += len + (p[len] == ',');
	}
	return 0;
}

int ropt_expansions(const char *cmd, const char *list, unsigned *bits)
{
	char err[300];
	if (ropt_parse_expansions(list, bits, err, sizeof err)) {
		ropt_usage(cmd, "--expansions: %s", err);
		return -1;
	}
	return 0;
}

int ropt_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "carc %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see carc %s --help)\n", cmd);
	return ROPT_USAGE;
}

int ropt_unknown(const char *cmd, const char *arg)
{
	if (arg[0] == '-' && arg[1])
		return ropt_usage(cmd, "unknown option '%s'", arg);
	return ropt_usage(cmd, "unexpected argument '%s'", arg);
}

int ropt_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int ropt_value(const char *cmd, int argc, char **argv, int *i, const char *name,
               const char **value)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*value = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		ropt_usage(cmd, "option %s needs a value", name);
		return -1;
	}
	*value = argv[++*i];
	return 1;
}

int ropt_int(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno) {
		ropt_usage(cmd, "%s: '%s' is not a number", opt, s);
		return -1;
	}
	if (v < lo || v > hi) {
		ropt_usage(cmd, "%s: %ld is out of range (%ld to %ld)", opt, v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int ropt_u64(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (!*s || *s == '-' || *end || errno) {
		ropt_usage(cmd, "%s: '%s' is not a non-negative number", opt, s);
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

int ropt_rules(const char *cmd, int argc, char **argv, int *i, carc_rules *r)
{
	const char *v;
	int st;
	const char *a = argv[*i];
	if (!strcmp(a, "--small-city")) {
		r->small_city = 1;
		return 1;
	}
	if (!strcmp(a, "--no-farmers")) {
		r->farmers = 0;
		return 1;
	}
	if ((st = ropt_value(cmd, argc, argv, i, "--players", &v)) != 0) {
		long n;
		if (st < 0 || ropt_int(cmd, "--players", v, 2, CARC_MAX_PLAYERS, &n))
			return -1;
		r->players = (int)n;
		return 1;
	}
	if ((st = ropt_value(cmd, argc, argv, i, "--farm-scoring", &v)) != 0) {
		if (st < 0)
			return -1;
		int fs = carc_farm_scoring_parse(v);
		if (fs < 0) {
			ropt_usage(cmd, "--farm-scoring: unknown '%s' (valid: international, "
			                "city-once, first-edition)", v);
			return -1;
		}
		r->farm_scoring = fs;
		return 1;
	}
	if ((st = ropt_value(cmd, argc, argv, i, "--expansions", &v)) != 0)
		return st < 0 || ropt_expansions(cmd, v, &r->expansions) ? -1 : 1;
	return 0;
}

void ropt_rules_help(FILE *f)
{
	fprintf(f,
	        "rules:\n"
	        "  --players N            players, 2 to 5, 6 with inns-cathedrals (default 2)\n"
	        "  --farm-scoring NAME    international (default), city-once or first-edition\n"
	        "  --small-city           a completed two-tile city scores 2, not 4\n"
	        "  --no-farmers           no followers on fields; fields do not score\n"
	        "  --expansions LIST      comma-separated: %s\n"
	        "                         (any subset; default: the base game only)\n",
	        ropt_expansion_names());
}

int ropt_check_rules(const char *cmd, const carc_rules *r)
{
	char err[CARC_ERRMSG_SIZE];
	carc_game *g = carc_game_alloc();
	if (!g) {
		fprintf(stderr, "carc %s: out of memory\n", cmd);
		return -1;
	}
	carc_status st = carc_game_init(g, r, 0, NULL, 0, err);
	free(g);
	if (st != CARC_OK) {
		ropt_usage(cmd, "%s", err);
		return -1;
	}
	return 0;
}

int ropt_color(const char *cmd, int argc, char **argv, int *i, int *mode)
{
	const char *v;
	int st = ropt_value(cmd, argc, argv, i, "--color", &v);
	if (st <= 0)
		return st;
	if (!strcmp(v, "never"))
		*mode = 0;
	else if (!strcmp(v, "always"))
		*mode = 1;
	else if (!strcmp(v, "auto"))
		*mode = 2;
	else {
		ropt_usage(cmd, "--color: unknown '%s' (valid: auto, always, never)", v);
		return -1;
	}
	return 1;
}

int ropt_color_on(int mode, FILE *f)
{
	if (mode != 2)
		return mode;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return 0;
	return isatty(fileno(f));
}

char *ropt_read_file(const char *path, size_t *len, char *err, size_t errsize)
{
	int is_stdin = !strcmp(path, "-");
	err[0] = '\0';
	errno = 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		snprintf(err, errsize, "%s", strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f)) {
			snprintf(err, errsize, "%s", strerror(errno ? errno : EIO));
			free(buf);
			buf = NULL;
			break;
		}
		if (feof(f))
			break;
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf && !err[0])
		snprintf(err, errsize, "out of memory");
	if (!is_stdin)
		fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}
