/*
 * cmd_serve.c - `carc serve`: options of the game server, then the server
 * itself (src/server).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "options.h"
#include "server.h"
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
	        "  --host-name NAME   a host name the server answers for, e.g. carc.example.org\n"
	        "                     behind a proxy that passes the browser's Host; repeatable.\n"
	        "                     Besides these it answers for its listening address (and\n"
	        "                     localhost on loopback; on 0.0.0.0 or ::, for any address\n"
	        "                     and localhost); another Host gets 421 (DNS rebinding)\n"
	        "  --port N           port (default 8080; 0 picks a free one)\n"
	        "  --db FILE|URL      SQLite database (default carc.sqlite, created if missing),\n"
	        "                     or PostgreSQL: postgresql://USER@HOST/DB (several\n"
	        "                     processes may share one; see docs/deploy.md)\n"
	        "  --web DIR          static files of the web client (default web)\n"
	        "  --bot-delay MS     default pause before a bot moves (default 700)\n"
	        "  --bot-threads N    the bot pool: threads all tables' bots share (default: the\n"
	        "                     CPUs, at most 8)\n"
	        "  --bot-level NAME=SPEC  a bot level clients may choose, e.g. hard=mcts:time=0.25\n"
	        "                     (redefines a built-in one: random, easy, medium, hard,\n"
	        "                     expert; repeatable). Clients name levels, never specs.\n"
	        "  --bot-max-time S   seconds a bot may think on one move (default 2)\n"
	        "  --bot-max-threads N  search threads of one bot (default 1)\n"
	        "  --bot-max-nodes N  search tree nodes of one bot, 36 bytes each (default 1048576)\n"
	        "  --bot-cpu-per-addr S  CPU seconds a minute the bots of one address's tables may\n"
	        "                     think; over it their moves are greedy's (default 60; 0: off)\n"
	        "  --sync MODE        normal: a move survives the server being killed (default);\n"
	        "                     full: also a power cut (fsync on every move, slower)\n"
	        "  --max-message N    largest WebSocket message / request body in bytes (16384)\n"
	        "  --max-queue N      bytes queued to one slow client before it is dropped (4 MiB)\n"
	        "  --max-queue-total N  bytes queued to all clients together (64 MiB); over it\n"
	        "                     the client with the largest queue is dropped\n"
	        "  --max-conns-per-addr N  open connections (HTTP and WebSocket) from one\n"
	        "                     address (64; 0: no limit); more are refused with 429\n"
	        "  --allow-origin ORIGIN  a site besides this server whose pages may open a\n"
	        "                     WebSocket (e.g. https://carc.example.org behind a proxy)\n"
	        "                     or send POSTs with cookies; repeatable. Without it only\n"
	        "                     pages of the server's own address may (and clients that\n"
	        "                     send no Origin: a WebSocket, or a request without cookies)\n"
	        "  --trust-proxy ADDR a reverse proxy (an address, or a network as 10.0.0.0/8)\n"
	        "                     whose X-Forwarded-For / X-Real-IP headers name the\n"
	        "                     client: the limits count that client, not the proxy,\n"
	        "                     and the proxy's own connections are not limited;\n"
	        "                     its X-Forwarded-Proto: https makes the session cookie\n"
	        "                     Secure; repeatable. Without it the headers are ignored\n"
	        "  --metrics-listen ADDR:PORT  /api/metrics (and /api/health) on a listener of\n"
	        "                     their own, e.g. 127.0.0.1:9100 or [::1]:9100 (0: a free\n"
	        "                     port); then only there. Without it the main port answers\n"
	        "                     /api/metrics to clients on this machine (loopback) only\n"
	        "  --health-cache MS  /api/health answers a snapshot at most MS old (1000; 0:\n"
	        "                     fresh every time); a change of the storage's state always\n"
	        "                     shows at once\n"
	        "  --max-tables N     tables this process holds in memory at once (20000);\n"
	        "                     the others stay in the store and are loaded when asked\n"
	        "                     for; a new table is refused (503 busy) only when every\n"
	        "                     table held is needed (a client, a bot or clock played\n"
	        "                     here, a write)\n"
	        "  --max-tables-share P  percent of --max-tables the tables of one address may\n"
	        "                     hold (10; at least one table; 0: no limit): more is 429;\n"
	        "                     a quick match counts against the address and account of\n"
	        "                     everyone seated\n"
	        "  --idle-evict S     a table nothing here needs leaves memory S seconds after\n"
	        "                     it was last asked for or watched (600)\n"
	        "limits (per client address: an IPv4 address or an IPv6 /64; 0 turns one off;\n"
	        "a refusal is 429 rate_limited with Retry-After; see docs/server.md):\n"
	        "  --rate-requests N  API requests and WebSocket messages a minute (3000)\n"
	        "  --rate-tables N    tables created a minute (60)\n"
	        "  --max-open-tables N  open (unstarted) tables at once (50)\n"
	        "  --open-expiry S    an open table not started in S seconds is removed (1800)\n"
	        "  --rate-uploads N   records uploaded an hour (20)\n"
	        "  --max-uploads N    uploaded records stored in total (1000)\n"
	        "  --max-upload-bytes N  bytes of uploaded records stored in total (64 MiB)\n"
	        "  --limit-addresses N  addresses counted at once (16384; more share one count)\n"
	        "  --list-max N       tables in one page of the lobby's lists (50)\n"
	        "  --clock-grace S    a move's deadline that passed while the server was down\n"
	        "                     is moved to S seconds after the start (15; 0..86400)\n"
	        "accounts (docs/server.md, \"Accounts\"):\n"
	        "  --session-ttl S    a login lasts S seconds (default 2592000: 30 days)\n"
	        "  --rate-logins N    logins and registrations an address may try a minute (10)\n"
	        "  --auth-threads N   threads hashing passwords, 64 MiB each while hashing (1)\n"
	        "  --auth-queue N     logins waiting for a hashing thread; more are refused (64)\n"
	        "  --auth-queue-per-addr N  logins of one address waiting or hashing at once (2;\n"
	        "                     0: no limit); the queue serves the addresses in turn\n"
	        "  --rate-login-fails N  failed logins for one name an hour, from all addresses\n"
	        "                     but those it logged in from before and browsers with\n"
	        "                     its device cookie, which have N of their own (10; 0: off)\n"
	        "  --rate-recover-fails N  wrong recovery codes for one name an hour, the same\n"
	        "                     way (1000: codes are random, the limit only keeps\n"
	        "                     strangers from spending it; 0: off)\n"
	        "  --device-ttl S     a browser's device cookie, which passes those two limits,\n"
	        "                     lasts S seconds (31536000: a year)\n"
	        "  --rate-players N   player profiles (/api/player) an address may ask a minute (30)\n"
	        "  --rate-recover N   recovery attempts (a recovery code) an address may make an\n"
	        "                     hour (20); a wrong one also counts for --rate-recover-fails\n"
	        "  --rate-keep N      password changes, account deletions and new recovery codes\n"
	        "                     an address and an account may ask for an hour (10)\n"
	        "  --rate-downloads N pages of the games' download (/api/me/records) an address\n"
	        "                     and an account may ask for an hour (60)\n"
	        "  --rate-custom-piles  rate games on a custom pile too (a server of friends;\n"
	        "                     off: they are never rated)\n"
	        "  --rated-min-moves N  own moves (not the takeover bot's) every seat must play\n"
	        "                     for a game to be rated (10; 0: none); games on a\n"
	        "                     custom pile (\"tiles\") are never rated\n"
	        "  --established-games N  rated games against established players or bots an\n"
	        "                     account plays before it is established (10): a result\n"
	        "                     against a provisional account moves no rating, and only\n"
	        "                     established accounts are on the leaderboard\n"
	        "  --established-opponents N  distinct established opponents among them (3);\n"
	        "                     0 and 0: every account is established (plain Glicko-2)\n"
	        "friends (docs/server.md, \"Friends\"; 0 turns a limit off):\n"
	        "  --rate-social N    friend, block and invite requests an address may send a\n"
	        "                     minute (30)\n"
	        "  --friend-rate N    friend requests an account may send an hour (20)\n"
	        "  --max-friends N    friends of one account (200)\n"
	        "  --max-pending N    friend requests an account has out (50); it holds twice\n"
	        "                     that in, a new one taking the oldest one's place\n"
	        "  --max-blocks N     accounts one account may block (500)\n"
	        "  --invite-rate N    invites to a table an account may send an hour (30)\n"
	        "  --max-invites N    invites to one table (10)\n"
	        "  --presence-every S an account's last-seen time is written at most every S\n"
	        "                     seconds (30; 1..3600)\n"
	        "  --online-window S  an account seen in the last S seconds is online (90;\n"
	        "                     at least --presence-every)\n"
	        "quick match (accounts; docs/server.md, \"Quick match\"):\n"
	        "  --match-max N      people waiting in the quick-match queue at most (1000)\n"
	        "  --rate-match N     quick-match joins an address may make a minute (20)\n"
	        "  --rate-match-account N  joins one account may make a minute (10)\n"
	        "  --match-ttl S      a waiting person not heard from for S s leaves the queue (15)\n"
	        "  --match-window N   rating points apart two people may be at once (100)\n"
	        "  --match-widen N    points the window grows each second of waiting (5)\n"
	        "  --match-window-max N  the widest window (800)\n"
	        "  --match-bot-after S  seconds of waiting before a bot game is offered (45)\n"
	        "  --match-poll-ms N  one account's polls of the queue at most every N ms (250)\n"
	        "  --match-first-move S  at a real-time quick-match table a seat makes its first\n"
	        "                     move within S s or the table is void (60; 0: its clock)\n"
	        "  --match-hold S     a no-show may not join for S s, twice that for each repeat\n"
	        "                     (300)\n"
	        "  --match-hold-max S the longest hold (86400); S after a hold ended a no-show\n"
	        "                     starts again at --match-hold\n"
	        "  --match-recent S   people met at a quick-match table in the last S s (3600;\n"
	        "                     0: off) meet again only after --match-recent-wait\n"
	        "  --match-recent-wait S  seconds of waiting before that (30)\n"
	        "chat (per table; see docs/server.md, \"Chat and rematch\"):\n"
	        "  --chat-rate N      chat lines a minute per connection and per seat (20)\n"
	        "  --chat-burst N     chat lines in a row before --chat-rate applies (5)\n"
	        "  --chat-max N       chat lines stored per game; more are refused (300)\n"
	        "  --chat-len N       characters of one chat line, 1..2000 (300)\n"
	        "  --chat-spectator-share P  percent of --chat-max that spectators' lines may\n"
	        "                     fill (50; 0..100); then they get chat_full, the players\n"
	        "                     keep the rest\n"
	        "  --chat-spectator-rate N  spectators' lines a minute from one address at one\n"
	        "                     table, all its connections together (10; 0: off)\n"
	        "hints (docs/server.md, \"What a decision would do\"):\n"
	        "  --rate-views N     previews and feature views a minute per WebSocket\n"
	        "                     connection, as many at once (600; 0: off)\n"
	        "analyses of finished games (docs/server.md, \"Analyses\"), in the bot pool:\n"
	        "  --analysis-bot SPEC  the bot that finds the best move (default\n"
	        "                     mcts:time=<--analysis-time>)\n"
	        "  --analysis-time S  seconds one move of an analysis may take (0.05); a live\n"
	        "                     table's bot waits for analyses at most this long\n"
	        "  --analysis-max-time S  seconds one game's analysis may take (30); the\n"
	        "                     turns left after it are analysed with greedy\n"
	        "  --analysis-queue N analyses computing at once (4); more are refused (busy)\n"
	        "  --rate-analyses N  analyses an address may start an hour (30; 0: off)\n"
	        "  --rate-undos N     undo requests (training against bots) an address may\n"
	        "                     make a minute (30; 0: off)\n"
	        "  --undo-table-rate N  undo requests one table takes a minute (20; 0: off)\n"
	        "  --quiet            log errors only, not every game event\n"
	        "  -h, --help         this text\n\n"
	        "It prints the address to open, e.g. 'carc serve: listening on\n"
	        "http://127.0.0.1:8080/', and logs one line per game event on stderr.\n");
}

static int real_arg(const char *opt, const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = v ? strtod(v, &end) : 0;
	if (!v || !*v || *end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "carc serve: %s wants a number from %g to %g\n", opt, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
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

/* --metrics-listen ADDR:PORT ("[V6]:PORT" for IPv6) into c. */
static int metrics_listen(const char *v, srv_config *c)
{
	static char host[64];
	const char *colon = v ? strrchr(v, ':') : NULL;
	long port = -1;
	if (colon) {
		const char *h = v;
		size_t n = (size_t)(colon - v);
		if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
			h++;
			n -= 2;
		}
		char *end;
		if (n > 0 && n < sizeof host && colon[1]) {
			memcpy(host, h, n);
			host[n] = 0;
			port = strtol(colon + 1, &end, 10);
			if (*end || srv_addr_match(host, host) < 0)
				port = -1;
		}
	}
	if (port < 0 || port > 65535) {
		fprintf(stderr, "carc serve: --metrics-listen wants ADDR:PORT (an address, e.g. "
		                "127.0.0.1:9100 or [::1]:9100), not '%s'\n", v ? v : "");
		return -1;
	}
	c->metrics_host = host;
	c->metrics_port = (int)port;
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
		} else if (!strcmp(a, "--rate-custom-piles")) {
			c.rate_custom_piles = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "carc serve: %s needs a value (see --help)\n", a);
			return 2;
		}
		if (!strcmp(a, "--host")) {
			c.host = v;
		} else if (!strcmp(a, "--host-name")) {
			if (!srv_host_name_ok(v)) {
				fprintf(stderr, "carc serve: --host-name wants a host name or address as a "
				                "browser names it (carc.example.org, 203.0.113.5), without "
				                "scheme, port or path, not '%s'\n", v);
				return 2;
			}
			if (c.n_host_names == SRV_MAX_HOST_NAMES) {
				fprintf(stderr, "carc serve: at most %d --host-name\n", SRV_MAX_HOST_NAMES);
				return 2;
			}
			c.host_names[c.n_host_names++] = v;
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
		} else if (!strcmp(a, "--bot-level")) {
			if (c.nbot_levels >= SRV_MAX_BOT_LEVELS) {
				fprintf(stderr, "carc serve: at most %d --bot-level options\n",
				        SRV_MAX_BOT_LEVELS);
				return 2;
			}
			c.bot_levels[c.nbot_levels++] = v;
		} else if (!strcmp(a, "--bot-max-time")) {
			double x;
			if (real_arg(a, v, 0.01, 3600, &x))
				return 2;
			c.bot_max_time = x;
		} else if (!strcmp(a, "--bot-cpu-per-addr")) {
			double x;
			if (real_arg(a, v, 0, 1e6, &x))
				return 2;
			c.bot_cpu_per_addr = x;
		} else if (!strcmp(a, "--analysis-bot")) {
			if (!v) {
				fprintf(stderr, "carc serve: --analysis-bot wants a bot spec\n");
				return 2;
			}
			c.analysis_bot = v;
		} else if (!strcmp(a, "--analysis-time")) {
			double x;
			if (real_arg(a, v, 0.001, 60, &x))
				return 2;
			c.analysis_time = x;
		} else if (!strcmp(a, "--analysis-max-time")) {
			double x;
			if (real_arg(a, v, 0.01, 3600, &x))
				return 2;
			c.analysis_max_time = x;
		} else if (!strcmp(a, "--analysis-queue")) {
			if (num_arg(a, v, 1, 1000, &n))
				return 2;
			c.analysis_queue = (int)n;
		} else if (!strcmp(a, "--rate-undos")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.rate_undos = (int)n;
		} else if (!strcmp(a, "--undo-table-rate")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.undo_table_rate = (int)n;
		} else if (!strcmp(a, "--rate-analyses")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.rate_analyses = (int)n;
		} else if (!strcmp(a, "--bot-max-threads")) {
			if (num_arg(a, v, 1, 64, &n))
				return 2;
			c.bot_max_threads = (int)n;
		} else if (!strcmp(a, "--bot-max-nodes")) {
			if (num_arg(a, v, 10000, 1L << 32, &n))
				return 2;
			c.bot_max_nodes = n;
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
		} else if (!strcmp(a, "--trust-proxy")) {
			if (srv_addr_match(v, "0.0.0.0") < 0) {
				fprintf(stderr, "carc serve: --trust-proxy wants an address or a network "
				                "(127.0.0.1, 10.0.0.0/8, ::1), not '%s'\n", v);
				return 2;
			}
			if (c.n_trust_proxy == SRV_MAX_TRUST_PROXY) {
				fprintf(stderr, "carc serve: at most %d --trust-proxy\n", SRV_MAX_TRUST_PROXY);
				return 2;
			}
			c.trust_proxy[c.n_trust_proxy++] = v;
		} else if (!strcmp(a, "--metrics-listen")) {
			if (metrics_listen(v, &c))
				return 2;
		} else if (!strcmp(a, "--health-cache")) {
			if (num_arg(a, v, 0, 60000, &n))
				return 2;
			c.health_cache_ms = (int)n;
		} else if (!strcmp(a, "--max-tables")) {
			if (num_arg(a, v, 1, 10000000, &n))
				return 2;
			c.max_tables = (int)n;
		} else if (!strcmp(a, "--max-tables-share")) {
			if (num_arg(a, v, 0, 100, &n))
				return 2;
			c.max_tables_share = (int)n;
		} else if (!strcmp(a, "--idle-evict")) {
			if (num_arg(a, v, 0, 30L * 86400, &n))
				return 2;
			c.idle_evict_s = (int)n;
		} else if (!strcmp(a, "--rate-requests")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_requests = (int)n;
		} else if (!strcmp(a, "--rate-tables")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_tables = (int)n;
		} else if (!strcmp(a, "--max-open-tables")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.max_open_tables = (int)n;
		} else if (!strcmp(a, "--open-expiry")) {
			if (num_arg(a, v, 0, 365L * 86400, &n))
				return 2;
			c.open_expiry_s = (int)n;
		} else if (!strcmp(a, "--rate-uploads")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_uploads = (int)n;
		} else if (!strcmp(a, "--max-uploads")) {
			if (num_arg(a, v, 0, 100000000, &n))
				return 2;
			c.max_uploads = (int)n;
		} else if (!strcmp(a, "--max-upload-bytes")) {
			if (num_arg(a, v, 0, 1L << 40, &n))
				return 2;
			c.max_upload_bytes = (int64_t)n;
		} else if (!strcmp(a, "--limit-addresses")) {
			if (num_arg(a, v, 1, 16777216, &n))
				return 2;
			c.limit_addresses = (int)n;
		} else if (!strcmp(a, "--session-ttl")) {
			if (num_arg(a, v, 1, 10L * 365 * 86400, &n))
				return 2;
			c.session_ttl_s = (int)n;
		} else if (!strcmp(a, "--rate-logins")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_logins = (int)n;
		} else if (!strcmp(a, "--auth-threads")) {
			if (num_arg(a, v, 1, 16, &n))
				return 2;
			c.auth_threads = (int)n;
		} else if (!strcmp(a, "--auth-queue")) {
			if (num_arg(a, v, 1, 10000, &n))
				return 2;
			c.auth_queue = (int)n;
		} else if (!strcmp(a, "--auth-queue-per-addr")) {
			if (num_arg(a, v, 0, 10000, &n))
				return 2;
			c.auth_queue_per_addr = (int)n;
		} else if (!strcmp(a, "--rate-login-fails")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_login_fails = (int)n;
		} else if (!strcmp(a, "--rate-recover-fails")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_recover_fails = (int)n;
		} else if (!strcmp(a, "--device-ttl")) {
			if (num_arg(a, v, 1, 10L * 365 * 86400, &n))
				return 2;
			c.device_ttl_s = (int)n;
		} else if (!strcmp(a, "--rate-players")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_players = (int)n;
		} else if (!strcmp(a, "--rate-social")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_social = (int)n;
		} else if (!strcmp(a, "--friend-rate")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.friend_rate = (int)n;
		} else if (!strcmp(a, "--max-friends")) {
			if (num_arg(a, v, 0, 100000, &n))
				return 2;
			c.max_friends = (int)n;
		} else if (!strcmp(a, "--max-pending")) {
			if (num_arg(a, v, 0, 100000, &n))
				return 2;
			c.max_pending = (int)n;
		} else if (!strcmp(a, "--max-blocks")) {
			if (num_arg(a, v, 0, 100000, &n))
				return 2;
			c.max_blocks = (int)n;
		} else if (!strcmp(a, "--invite-rate")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.invite_rate = (int)n;
		} else if (!strcmp(a, "--max-invites")) {
			if (num_arg(a, v, 0, 10000, &n))
				return 2;
			c.max_invites = (int)n;
		} else if (!strcmp(a, "--presence-every")) {
			if (num_arg(a, v, 1, 3600, &n))
				return 2;
			c.presence_every_s = (int)n;
		} else if (!strcmp(a, "--online-window")) {
			if (num_arg(a, v, 1, 86400, &n))
				return 2;
			c.online_window_s = (int)n;
		} else if (!strcmp(a, "--match-max")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.match_max = (int)n;
		} else if (!strcmp(a, "--rate-match")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_match = (int)n;
		} else if (!strcmp(a, "--rate-match-account")) {
			if (num_arg(a, v, 0, 100000, &n))
				return 2;
			c.rate_match_account = (int)n;
		} else if (!strcmp(a, "--match-ttl")) {
			if (num_arg(a, v, 2, 3600, &n))
				return 2;
			c.match_ttl_s = (int)n;
		} else if (!strcmp(a, "--match-window")) {
			if (num_arg(a, v, 0, 10000, &n))
				return 2;
			c.match_window = (int)n;
		} else if (!strcmp(a, "--match-widen")) {
			if (num_arg(a, v, 0, 10000, &n))
				return 2;
			c.match_widen = (int)n;
		} else if (!strcmp(a, "--match-window-max")) {
			if (num_arg(a, v, 0, 10000, &n))
				return 2;
			c.match_window_max = (int)n;
		} else if (!strcmp(a, "--match-poll-ms")) {
			if (num_arg(a, v, 0, 60000, &n))
				return 2;
			c.match_poll_ms = (int)n;
		} else if (!strcmp(a, "--match-bot-after")) {
			if (num_arg(a, v, 0, 86400, &n))
				return 2;
			c.match_bot_after_s = (int)n;
		} else if (!strcmp(a, "--rate-recover")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_recover = (int)n;
		} else if (!strcmp(a, "--rate-keep")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_keep = (int)n;
		} else if (!strcmp(a, "--rate-downloads")) {
			if (num_arg(a, v, 0, 10000000, &n))
				return 2;
			c.rate_downloads = (int)n;
		} else if (!strcmp(a, "--established-games")) {
			if (num_arg(a, v, 0, 10000, &n))
				return 2;
			c.established_games = (int)n;
		} else if (!strcmp(a, "--established-opponents")) {
			if (num_arg(a, v, 0, 1000, &n))
				return 2;
			c.established_opponents = (int)n;
		} else if (!strcmp(a, "--match-first-move")) {
			if (num_arg(a, v, 0, 86400, &n))
				return 2;
			c.match_first_move_s = (int)n;
		} else if (!strcmp(a, "--match-hold")) {
			if (num_arg(a, v, 0, 30 * 86400, &n))
				return 2;
			c.match_hold_s = (int)n;
		} else if (!strcmp(a, "--match-hold-max")) {
			if (num_arg(a, v, 0, 365 * 86400, &n))
				return 2;
			c.match_hold_max_s = (int)n;
		} else if (!strcmp(a, "--match-recent")) {
			if (num_arg(a, v, 0, 30 * 86400, &n))
				return 2;
			c.match_recent_s = (int)n;
		} else if (!strcmp(a, "--match-recent-wait")) {
			if (num_arg(a, v, 0, 86400, &n))
				return 2;
			c.match_recent_wait_s = (int)n;
		} else if (!strcmp(a, "--rated-min-moves")) {
			if (num_arg(a, v, 0, 1000, &n))
				return 2;
			c.rated_min_moves = (int)n;
		} else if (!strcmp(a, "--list-max")) {
			if (num_arg(a, v, 1, 1000, &n))
				return 2;
			c.list_max = (int)n;
		} else if (!strcmp(a, "--clock-grace")) {
			if (num_arg(a, v, 0, 86400, &n))
				return 2;
			c.clock_grace_s = (int)n;
		} else if (!strcmp(a, "--chat-rate")) {
			if (num_arg(a, v, 0, 100000, &n))
				return 2;
			c.chat_rate = (int)n;
		} else if (!strcmp(a, "--chat-burst")) {
			if (num_arg(a, v, 1, 1000, &n))
				return 2;
			c.chat_burst = (int)n;
		} else if (!strcmp(a, "--chat-max")) {
			if (num_arg(a, v, 1, 100000, &n))
				return 2;
			c.chat_max = (int)n;
		} else if (!strcmp(a, "--chat-spectator-share")) {
			if (num_arg(a, v, 0, 100, &n))
				return 2;
			c.chat_spectator_share = (int)n;
		} else if (!strcmp(a, "--chat-spectator-rate")) {
			if (num_arg(a, v, 0, 100000, &n))
				return 2;
			c.chat_spectator_rate = (int)n;
		} else if (!strcmp(a, "--rate-views")) {
			if (num_arg(a, v, 0, 1000000, &n))
				return 2;
			c.rate_views = (int)n;
		} else if (!strcmp(a, "--chat-len")) {
			if (num_arg(a, v, 1, 2000, &n))
				return 2;
			c.chat_len = (int)n;
		} else {
			fprintf(stderr, "carc serve: unknown option '%s' (see --help)\n", a);
			return 2;
		}
		i++;
	}
	if (c.online_window_s < c.presence_every_s) {
		fprintf(stderr, "carc serve: --online-window %d is shorter than --presence-every %d: "
		        "an online account would look offline between two writes\n",
		        c.online_window_s, c.presence_every_s);
		return 2;
	}
	/* the tables' options hold every tile type the engine knows (a custom
	 * pile is counts per type): a build where they do not stops here */
	char err[512];
	if (opt_check_engine(err, sizeof err)) {
		fprintf(stderr, "carc serve: %s\n", err);
		return 2;
	}
	/* the levels, with the ceilings: a bad spec stops here, before anything starts */
	if (opt_levels_init(&c, 0, err, sizeof err)) {
		fprintf(stderr, "carc serve: %s\n", err);
		return 2;
	}
	char aspec[STORE_SPEC_SIZE];
	if (analysis_spec(&c, aspec, sizeof aspec, err, sizeof err)) {
		fprintf(stderr, "carc serve: --analysis-bot: %s\n", err);
		return 2;
	}
	return srv_run(&c);
}
