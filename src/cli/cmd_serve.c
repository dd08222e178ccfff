/*
 * cmd_serve.c - `carc serve`: options of the game server, then the server
 * itself (src/server).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../server/server.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carc serve [options]\n\n"
	        "Runs the game server: the web client, an HTTP API and live play over\n"
	        "WebSocket on one port, with games kept in a SQLite database. Unfinished\n"
	        "games are resumed when the server starts. See docs/server.md.\n\n"
	        "options:\n"
	        "  --host ADDR        address to listen on (default 127.0.0.1)\n"
	        "  --port N           port (default 8080; 0 picks a free one)\n"
	        "  --db FILE          SQLite database (default carc.sqlite, created if missing)\n"
	        "  --web DIR          static files of the web client (default web)\n"
	        "  --bot-delay MS     default pause before a bot moves (default 700)\n"
	        "  --bot-threads N    threads for bots to think on (default: the CPUs, at most 8)\n"
	        "  --sync MODE        normal: a move survives the server being killed (default);\n"
	        "                     full: also a power cut (fsync on every move, slower)\n"
	        "  --max-message N    largest WebSocket message / request body in bytes (16384)\n"
	        "  --max-queue N      bytes queued to one slow client before it is dropped (4 MiB)\n"
	        "  --max-queue-total N  bytes queued to all clients together (64 MiB); over it\n"
	        "                     the client with the largest queue is dropped\n"
	        "  --max-conns-per-addr N  open connections (HTTP and WebSocket) from one\n"
	        "                     address (64; 0: no limit); more are refused with 429\n"
	        "  --allow-origin ORIGIN  a site besides this server whose pages may open a\n"
	        "                     WebSocket (e.g. https://carc.example.org behind a proxy);\n"
	        "                     repeatable. Without it only pages of the server's own\n"
	        "                     address may (and clients that send no Origin)\n"
	        "  --max-tables N     tables held in memory at once (20000)\n"
	        "  --quiet            log errors only, not every game event\n"
	        "  -h, --help         this text\n\n"
	        "It prints the address to open, e.g. 'carc serve: listening on\n"
	        "http://127.0.0.1:8080/', and logs one line per game event on stderr.\n");
}

static int num_arg(const char *opt, const char *v, long lo, long hi, long *out)
{
	char *end;
	long n = v ? strtol(v, &end, 10) : 0;
	if (!v || !*v || *end || n < lo || n > hi) {
		fprintf(stderr, "carc serve: %s wants a number from %ld to %ld\n", opt, lo, hi);
		return -1;
	}
	*out = n;
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	srv_config c;
	srv_config_default(&c);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			c.quiet = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "carc serve: %s needs a value (see --help)\n", a);
			return 2;
		}
		if (!strcmp(a, "--host")) {
			c.host = v;
		} else if (!strcmp(a, "--port")) {
			if (num_arg(a, v, 0, 65535, &n))
				return 2;
			c.port = (int)n;
		} else if (!strcmp(a, "--db")) {
			c.db_path = v;
		} else if (!strcmp(a, "--web")) {
			c.web_dir = v;
		} else if (!strcmp(a, "--bot-delay")) {
			if (num_arg(a, v, 0, 60000, &n))
				return 2;
			c.bot_delay_ms = (int)n;
		} else if (!strcmp(a, "--bot-threads")) {
			if (num_arg(a, v, 1, 64, &n))
				return 2;
			c.bot_threads = (int)n;
		} else if (!strcmp(a, "--sync")) {
			if (strcmp(v, "normal") && strcmp(v, "full")) {
				fprintf(stderr, "carc serve: --sync is normal or full\n");
				return 2;
			}
			c.sync_full = !strcmp(v, "full");
		} else if (!strcmp(a, "--max-message")) {
			if (num_arg(a, v, 1024, 16 * 1024 * 1024, &n))
				return 2;
			c.max_msg = (size_t)n;
		} else if (!strcmp(a, "--max-queue")) {
			if (num_arg(a, v, 65536, 1024L * 1024 * 1024, &n))
				return 2;
			c.max_queue = (size_t)n;
		} else if (!strcmp(a, "--max-queue-total")) {
			if (num_arg(a, v, 65536, 64L * 1024 * 1024 * 1024, &n))
				return 2;
			c.max_queue_total = (size_t)n;
		} else if (!strcmp(a, "--max-conns-per-addr")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.max_conns_per_addr = (int)n;
		} else if (!strcmp(a, "--allow-origin")) {
			if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) {
				fprintf(stderr, "carc serve: --allow-origin wants http://HOST[:PORT] or "
				                "https://HOST[:PORT]\n");
				return 2;
			}
			if (c.n_allow_origin == SRV_MAX_ALLOW_ORIGIN) {
				fprintf(stderr, "carc serve: at most %d --allow-origin\n", SRV_MAX_ALLOW_ORIGIN);
				return 2;
			}
			c.allow_origin[c.n_allow_origin++] = v;
		} else if (!strcmp(a, "--max-tables")) {
			if (num_arg(a, v, 1, 10000000, &n))
				return 2;
			c.max_tables = (int)n;
		} else {
			fprintf(stderr, "carc serve: unknown option '%s' (see --help)\n", a);
			return 2;
		}
		i++;
	}
	return srv_run(&c);
}
