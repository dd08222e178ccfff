/*
 * loadgen.c - load generator for `carc serve` (see bench/load/README.md).
 *
 * Loopback only: it connects to 127.0.0.1 and nowhere else. Everything is
 * bounded: the number of games and clients, the run time, every wait.
 *
 * It sets up --games tables of two seats over the HTTP API, connects one
 * WebSocket client per seat, and the clients play random legal moves (taken
 * from the server's "legal" list) after a random think time. For each move
 * it measures the time from the move being sent to the "move" broadcast
 * arriving, at the mover's and at the opponent's socket. --bot-games more
 * tables are played by the server's bots (--bot-delay) with one watching
 * client each. A finished game is replaced by a new one so the count of
 * games in play stays the same.
 *
 * One thread, epoll, non-blocking sockets; minimal HTTP/1.1 and WebSocket
 * (RFC 6455) clients; jansson for JSON.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port = 8080;
static int port2 = 0; /* --port2: the second seat's clients go to another server process */
static int port3 = 0; /* --port3: with --port2, clients spread over three processes */
static int ngames = 100, nbotgames = 0, bot_delay = 700, think_ms = 1000;
static double duration = 30, warmup = 5;
static int server_pid = 0, server_pid2 = 0, server_pid3 = 0;
static uint64_t rng_state = 0x1234567;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "loadgen: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* ---- blocking HTTP on one keep-alive connection (setup only) ---------------------- */

static int http_fd = -1;

static int connect_loopback_to(int nonblock, int to);
static int connect_loopback(int nonblock) { return connect_loopback_to(nonblock, port); }

static int connect_loopback_to(int nonblock, int to)
{
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)to)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* 127.0.0.1 only */
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS)
		die("connect 127.0.0.1:%d: %s", to, strerror(errno));
	return fd;
}

static json_t *http_json(const char *method, const char *path, const char *body)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		if (http_fd < 0) {
			http_fd = connect_loopback(0);
			struct timeval tv = {10, 0};
			setsockopt(http_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		}
		char req[2048];
		size_t bl = body ? strlen(body) : 0;
		int n = snprintf(req, sizeof req,
		                 "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
		                 "Content-Length: %zu\r\n\r\n%s",
		                 method, path, bl, body ? body : "");
		if (write(http_fd, req, (size_t)n) != n) {
			close(http_fd);
			http_fd = -1;
			continue;
		}
		static char buf[1 << 20];
		size_t len = 0;
		char *hend = NULL;
		while (!hend) {
			ssize_t r = read(http_fd, buf + len, sizeof buf - 1 - len);
			if (r <= 0)
				break;
			len += (size_t)r;
			buf[len] = 0;
			hend = strstr(buf, "\r\n\r\n");
		}
		if (!hend) {
			close(http_fd);
			http_fd = -1;
			continue;
		}
		const char *cl = strcasestr(buf, "content-length:");
		size_t clen = cl ? strtoul(cl + 15, NULL, 10) : 0, hlen = (size_t)(hend + 4 - buf);
		while (len < hlen + clen) {
			ssize_t r = read(http_fd, buf + len, sizeof buf - 1 - len);
			if (r <= 0)
				die("http: short body");
			len += (size_t)r;
		}
		buf[hlen + clen] = 0;
		json_t *j = json_loads(buf + hlen, 0, NULL);
		if (!j)
			die("http %s %s: not JSON: %.200s", method, path, buf);
		return j;
	}
	die("http %s %s: no answer", method, path);
	return NULL;
}

/* ---- clients ------------------------------------------------------------------------ */

enum { C_CONNECTING, C_HANDSHAKE, C_OPEN, C_DEAD };

typedef struct client {
	int fd, state, game, seat, watcher;
	char token[48];
	char *in;
	size_t inlen, incap;
	char *msg;
	size_t msglen, msgcap;
	char *out;
	size_t outlen, outcap;
	int64_t due_us;    /* when to send the chosen move (0: none) */
	int want_connect;  /* to be connected when there is room */
	int move_turn;
	char move[256];
} client;

typedef struct game {
	char id[32];
	int bots;
	int64_t sent_us;
	int sent_turn;
	int cl[2];
	int over;
	int restart;       /* over: to be replaced by a new game */
} game;

static client *clients;
static int nclients;
static game *games;
static int ep;

static long long moves_sent, moves_seen, broadcasts, errors, games_done, state_msgs, bot_moves;
static int64_t *lat;
static size_t nlat, latcap;
static int measuring;
static int want_any = 1;   /* some client waits to be connected */
static int restarts;       /* games over, to be replaced */

static void grow(char **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	*p = realloc(*p, c);
	if (!*p)
		die("out of memory");
	*cap = c;
}

static void watch(client *c, int out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.u32 = (uint32_t)(c - clients)};
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void flush_out(client *c)
{
	while (c->outlen > 0) {
		ssize_t n = write(c->fd, c->out, c->outlen);
		if (n < 0) {
			if (errno == EAGAIN) {
				watch(c, 1);
				return;
			}
			c->state = C_DEAD;
			return;
		}
		memmove(c->out, c->out + n, c->outlen - (size_t)n);
		c->outlen -= (size_t)n;
	}
	watch(c, 0);
}

static void queue_raw(client *c, const void *data, size_t n)
{
	grow(&c->out, &c->outcap, c->outlen + n);
	memcpy(c->out + c->outlen, data, n);
	c->outlen += n;
}

static void ws_send(client *c, const char *text)
{
	size_t n = strlen(text);
	unsigned char head[14];
	size_t h = 0;
	head[h++] = 0x81;
	if (n < 126) {
		head[h++] = (unsigned char)(0x80 | n);
	} else {
		head[h++] = 0x80 | 126;
		head[h++] = (unsigned char)(n >> 8);
		head[h++] = (unsigned char)n;
	}
	uint32_t m = (uint32_t)rnd();
	unsigned char mask[4] = {(unsigned char)m, (unsigned char)(m >> 8), (unsigned char)(m >> 16),
	                         (unsigned char)(m >> 24)};
	memcpy(head + h, mask, 4);
	h += 4;
	queue_raw(c, head, h);
	grow(&c->out, &c->outcap, c->outlen + n);
	for (size_t i = 0; i < n; i++)
		c->out[c->outlen + i] = (char)(text[i] ^ mask[i & 3]);
	c->outlen += n;
	flush_out(c);
}

static void start_connect(client *c)
{
	/* two processes: seat 1 on the second; three: game and seat spread the
	 * clients over all of them, the two seats of a game on different ones */
	int to = port;
	if (port3) {
		int k = (c->game + c->seat) % 3;
		to = k == 0 ? port : k == 1 ? port2 : port3;
	} else if (port2 && c->seat == 1) {
		to = port2;
	}
	c->fd = connect_loopback_to(1, to);
	c->state = C_CONNECTING;
	c->inlen = c->msglen = c->outlen = 0;
	struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.u32 = (uint32_t)(c - clients)};
	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	/* the token goes in a header: the server refuses one in the URL */
	char req[640];
	int n = snprintf(req, sizeof req,
	                 "GET /ws/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
	                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	                 "Sec-WebSocket-Version: 13\r\n%s%s%s\r\n",
	                 games[c->game].id, c->token[0] ? "Authorization: Bearer " : "", c->token,
	                 c->token[0] ? "\r\n" : "");
	queue_raw(c, req, (size_t)n);
}

/* Picks a random legal move from a turn description into c->move. */
static int choose(client *c, json_t *next)
{
	json_t *legal = json_object_get(next, "legal");
	if (json_is_true(json_object_get(legal, "discard"))) {
		snprintf(c->move, sizeof c->move, "{\"type\":\"move\",\"discard\":true,\"turn\":%d}",
		         c->move_turn);
		return 0;
	}
	json_t *pl = json_object_get(legal, "placements");
	size_t n = json_array_size(pl);
	if (!n)
		return -1;
	json_t *p = json_array_get(pl, rnd() % n);
	json_t *mp = json_object_get(p, "meeples");
	size_t nm = json_array_size(mp), k = rnd() % (nm + 1);
	char meeple[96] = "null";
	if (k < nm) {
		json_t *m = json_array_get(mp, k);
		snprintf(meeple, sizeof meeple, "{\"kind\":\"%s\",\"at\":\"%s\"}",
		         json_string_value(json_object_get(m, "kind")),
		         json_string_value(json_object_get(m, "at")));
	}
	snprintf(c->move, sizeof c->move,
	         "{\"type\":\"move\",\"x\":%d,\"y\":%d,\"rot\":%d,\"meeple\":%s,\"turn\":%d}",
	         (int)json_integer_value(json_object_get(p, "x")),
	         (int)json_integer_value(json_object_get(p, "y")),
	         (int)json_integer_value(json_object_get(p, "rot")), meeple, c->move_turn);
	return 0;
}

static void new_game(int gi);

/* Moves waiting for their think time: a binary heap by due time. An entry
 * whose client has since been reset (due_us changed) is skipped. */
typedef struct due_ent {
	int64_t due;
	int client;
} due_ent;
static due_ent *heap;
static size_t nheap, heapcap;

static void heap_push(int64_t due, int ci)
{
	if (nheap == heapcap) {
		heapcap = heapcap ? heapcap * 2 : 4096;
		heap = realloc(heap, heapcap * sizeof *heap);
		if (!heap)
			die("out of memory");
	}
	size_t i = nheap++;
	while (i && heap[(i - 1) / 2].due > due) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = (due_ent){due, ci};
}

static due_ent heap_pop(void)
{
	due_ent top = heap[0], last = heap[--nheap];
	size_t i = 0;
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= nheap)
			break;
		if (k + 1 < nheap && heap[k + 1].due < heap[k].due)
			k++;
		if (heap[k].due >= last.due)
			break;
		heap[i] = heap[k];
		i = k;
	}
	if (nheap)
		heap[i] = last;
	return top;
}

static void on_turn(client *c, json_t *next)
{
	game *g = &games[c->game];
	if (json_is_true(json_object_get(next, "over"))) {
		if (!g->over) {
			g->over = 1;
			g->restart = 1;
			restarts++;
			games_done++;
		}
		return;
	}
	if (c->watcher || json_integer_value(json_object_get(next, "to_move")) != c->seat)
		return;
	c->move_turn = (int)json_integer_value(json_object_get(next, "turn"));
	if (choose(c, next))
		return;
	int64_t think = think_ms > 0 ? (int64_t)(rnd() % (uint64_t)(2 * think_ms * 1000)) : 0;
	c->due_us = now_us() + think;
	heap_push(c->due_us, (int)(c - clients));
}

static void record_latency(int64_t us)
{
	if (!measuring)
		return;
	if (nlat == latcap) {
		latcap = latcap ? latcap * 2 : 65536;
		lat = realloc(lat, latcap * sizeof *lat);
		if (!lat)
			die("out of memory");
	}
	lat[nlat++] = us;
}

/* The integer after `key` in text, or -1. */
static long int_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* A "move" message, read without a full JSON parse unless this client is
 * the one to move next: the generator must stay cheaper than the server
 * it measures. The server writes these keys in a fixed order
 * (docs/protocol.md, src/server/table/gamejson.c). */
static int on_move_fast(client *c, const char *text, size_t len)
{
	static const char HEAD[] = "{\"type\":\"move\",\"table\":\"";
	if (len < sizeof HEAD || memcmp(text, HEAD, sizeof HEAD - 1))
		return 0;
	game *g = &games[c->game];
	const char *id = text + sizeof HEAD - 1;
	size_t idl = strlen(g->id);
	broadcasts++;
	if (strncmp(id, g->id, idl) || id[idl] != '"')
		return 1;
	if (g->bots && measuring)
		bot_moves++;
	long turn = int_after(id, "\"entry\":{\"turn\":");
	if (!g->bots && turn == g->sent_turn && g->sent_us)
		record_latency(now_us() - g->sent_us);
	const char *next = strstr(id, ",\"next\":{\"turn\":");
	if (!next)
		return 0;
	int over = !strncmp(strstr(next, "\"over\":") + 7, "true", 4);
	long to_move = int_after(next, "\"to_move\":");
	if (!over && (c->watcher || to_move != c->seat))
		return 1; /* not ours: nothing more to read */
	return 0;
}

static void on_message(client *c, const char *text, size_t len)
{
	if (on_move_fast(c, text, len))
		return;
	json_t *o = json_loadb(text, len, 0, NULL);
	if (!o)
		die("server sent non-JSON: %.100s", text);
	const char *type = json_string_value(json_object_get(o, "type"));
	game *g = &games[c->game];
	if (!type) {
	} else if (!strcmp(type, "state")) {
		state_msgs++;
		if (g->id[0] && !strcmp(json_string_value(json_object_get(json_object_get(o, "table"), "id")), g->id))
			on_turn(c, json_object_get(json_object_get(o, "game"), "next"));
	} else if (!strcmp(type, "move")) {
		/* counted and timed by on_move_fast already */
		const char *tid = json_string_value(json_object_get(o, "table"));
		if (tid && !strcmp(tid, g->id))
			on_turn(c, json_object_get(o, "next"));
	} else if (!strcmp(type, "error")) {
		if (errors++ < 5)
			fprintf(stderr, "loadgen: server error: %.*s\n", (int)len, text);
	}
	json_decref(o);
}

/* Parses whole frames out of c->in. */
static void parse_frames(client *c)
{
	size_t off = 0;
	for (;;) {
		size_t avail = c->inlen - off;
		unsigned char *p = (unsigned char *)c->in + off;
		if (avail < 2)
			break;
		size_t n = p[1] & 0x7F, h = 2;
		if (n == 126) {
			if (avail < 4)
				break;
			n = ((size_t)p[2] << 8) | p[3];
			h = 4;
		} else if (n == 127) {
			if (avail < 10)
				break;
			n = 0;
			for (int i = 0; i < 8; i++)
				n = (n << 8) | p[2 + i];
			h = 10;
		}
		if (avail < h + n)
			break;
		int op = p[0] & 0x0F, fin = p[0] & 0x80;
		if (op == 8) {
			c->state = C_DEAD;
			return;
		}
		if (op == 1 || op == 0) {
			grow(&c->msg, &c->msgcap, c->msglen + n + 1);
			memcpy(c->msg + c->msglen, p + h, n);
			c->msglen += n;
			if (fin) {
				c->msg[c->msglen] = 0;
				on_message(c, c->msg, c->msglen);
				c->msglen = 0;
			}
		}
		off += h + n;
	}
	memmove(c->in, c->in + off, c->inlen - off);
	c->inlen -= off;
}

static void on_readable(client *c)
{
	for (;;) {
		grow(&c->in, &c->incap, c->inlen + 65536);
		ssize_t n = read(c->fd, c->in + c->inlen, c->incap - c->inlen);
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			c->state = C_DEAD;
			return;
		}
		if (n < 0)
			break;
		c->inlen += (size_t)n;
	}
	if (c->state == C_HANDSHAKE || c->state == C_CONNECTING) {
		char *end = memmem(c->in, c->inlen, "\r\n\r\n", 4);
		if (!end)
			return;
		if (strncmp(c->in, "HTTP/1.1 101", 12))
			die("websocket refused: %.80s", c->in);
		size_t hl = (size_t)(end + 4 - c->in);
		memmove(c->in, c->in + hl, c->inlen - hl);
		c->inlen -= hl;
		c->state = C_OPEN;
	}
	parse_frames(c);
}

/* Creates game gi (again): a table of two people, or of two bots. */
static void new_game(int gi)
{
	game *g = &games[gi];
	char body[256];
	json_t *r;
	for (int k = 0; k < 2; k++)
		if (g->cl[k] >= 0 && clients[g->cl[k]].fd >= 0) {
			epoll_ctl(ep, EPOLL_CTL_DEL, clients[g->cl[k]].fd, NULL);
			close(clients[g->cl[k]].fd);
			clients[g->cl[k]].fd = -1;
			clients[g->cl[k]].state = C_DEAD;
		}
	if (g->bots) {
		snprintf(body, sizeof body, "{\"seats\":[{\"bot\":\"random\"},{\"bot\":\"random\"}],"
		         "\"bot_delay_ms\":%d}", bot_delay);
		r = http_json("POST", "/api/tables", body);
	} else {
		r = http_json("POST", "/api/tables", "{\"players\":2,\"name\":\"load-a\"}");
	}
	const char *id = json_string_value(json_object_get(r, "id"));
	if (!id)
		die("create failed: %s", json_dumps(r, 0));
	snprintf(g->id, sizeof g->id, "%s", id);
	g->over = 0;
	g->sent_us = 0;
	g->sent_turn = -1;
	client *a = &clients[g->cl[0]];
	a->due_us = 0;
	if (!g->bots) {
		snprintf(a->token, sizeof a->token, "%s", json_string_value(json_object_get(r, "token")));
		char path[96];
		snprintf(path, sizeof path, "/api/tables/%s/join", id);
		json_t *j = http_json("POST", path, "{\"name\":\"load-b\"}");
		client *b = &clients[g->cl[1]];
		b->due_us = 0;
		snprintf(b->token, sizeof b->token, "%s", json_string_value(json_object_get(j, "token")));
		json_decref(j);
		b->want_connect = 1;
	}
	json_decref(r);
	a->want_connect = 1;
	want_any = 1;
}

/* Opens the connections waiting to be opened, at most MAX_CONNECTING at a
 * time, so the server's accept queue never overflows. */
#define MAX_CONNECTING 200
static int64_t last_connect_scan;

static void connect_some(void)
{
	/* a scan of every client, but only a few times a second */
	int64_t now = now_us();
	if (!want_any || now - last_connect_scan < 20000)
		return;
	last_connect_scan = now;
	int busy = 0, left = 0;
	for (int i = 0; i < nclients; i++)
		busy += clients[i].fd >= 0 &&
		        (clients[i].state == C_CONNECTING || clients[i].state == C_HANDSHAKE);
	for (int i = 0; i < nclients; i++)
		if (clients[i].want_connect) {
			if (busy >= MAX_CONNECTING) {
				left++;
				continue;
			}
			clients[i].want_connect = 0;
			start_connect(&clients[i]);
			busy++;
		}
	want_any = left > 0;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static double pct(double p)
{
	if (!nlat)
		return 0;
	size_t i = (size_t)(p / 100.0 * (double)(nlat - 1) + 0.5);
	return (double)lat[i] / 1000.0;
}

/* user+system CPU seconds, the user part of them and resident MB of a
 * process, from /proc. */
static void proc_usage3(int pid, double *cpu, double *user, double *rss_mb)
{
	char path[64], buf[4096];
	*cpu = *user = *rss_mb = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof buf, f)) {
			char *p = strrchr(buf, ')');
			unsigned long ut = 0, st = 0;
			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
			                &st) == 2)
			{
				*cpu = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
				*user = (double)ut / (double)sysconf(_SC_CLK_TCK);
			}
		}
		fclose(f);
	}
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(buf, sizeof buf, f))
			if (!strncmp(buf, "VmRSS:", 6))
				*rss_mb = atof(buf + 6) / 1024.0;
		fclose(f);
	}
}

static double user0, user1; /* the first server's user CPU at the start and the end */

static void proc_usage(int pid, double *cpu, double *rss_mb)
{
	double user;
	proc_usage3(pid, cpu, &user, rss_mb);
}

int main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "--port"))
			port = atoi(v);
		else if (!strcmp(a, "--games"))
			ngames = atoi(v);
		else if (!strcmp(a, "--bot-games"))
			nbotgames = atoi(v);
		else if (!strcmp(a, "--bot-delay"))
			bot_delay = atoi(v);
		else if (!strcmp(a, "--think-ms"))
			think_ms = atoi(v);
		else if (!strcmp(a, "--duration"))
			duration = atof(v);
		else if (!strcmp(a, "--warmup"))
			warmup = atof(v);
		else if (!strcmp(a, "--server-pid"))
			server_pid = atoi(v);
		else if (!strcmp(a, "--port2"))
			port2 = atoi(v);
		else if (!strcmp(a, "--server-pid2"))
			server_pid2 = atoi(v);
		else if (!strcmp(a, "--port3"))
			port3 = atoi(v);
		else if (!strcmp(a, "--server-pid3"))
			server_pid3 = atoi(v);
		else
			die("unknown option %s", a);
	}
	if (ngames < 0 || nbotgames < 0 || ngames + nbotgames > 20000 || duration > 600 ||
	    duration <= 0)
		die("bounds: games + bot games <= 20000, 0 < duration <= 600 s");
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	int total = ngames + nbotgames;
	games = calloc((size_t)total, sizeof *games);
	clients = calloc((size_t)(2 * total), sizeof *clients);
	ep = epoll_create1(0);
	for (int gi = 0; gi < total; gi++) {
		game *g = &games[gi];
		g->bots = gi >= ngames;
		g->cl[0] = nclients++;
		clients[g->cl[0]] = (client){.fd = -1, .game = gi, .seat = 0, .watcher = g->bots};
		if (!g->bots) {
			g->cl[1] = nclients++;
			clients[g->cl[1]] = (client){.fd = -1, .game = gi, .seat = 1};
		} else {
			g->cl[1] = -1;
		}
	}
	int64_t t0 = now_us();
	for (int gi = 0; gi < total; gi++)
		new_game(gi);
	fprintf(stderr, "loadgen: %d tables created in %.2f s\n", total, (double)(now_us() - t0) / 1e6);

	struct epoll_event evs[512];
	int64_t start = now_us(), measure_from = start + (int64_t)(warmup * 1e6),
	        end = measure_from + (int64_t)(duration * 1e6);
	double cpu0 = 0, cpu1 = 0, rss = 0, self_cpu0 = 0, self_rss0 = 0;
	long long sent0 = 0, seen0 = 0, bc0 = 0, done0 = 0;
	int64_t next_report = start + 5000000;
	while (now_us() < end) {
		int64_t now = now_us(), wait = 5000;
		while (nheap && heap[0].due <= now) {
			due_ent d = heap_pop();
			client *c = &clients[d.client];
			if (c->due_us != d.due || c->state != C_OPEN)
				continue;
			c->due_us = 0;
			game *g = &games[c->game];
			g->sent_us = now_us();
			g->sent_turn = c->move_turn;
			moves_sent++;
			ws_send(c, c->move);
		}
		if (nheap && heap[0].due - now < wait)
			wait = heap[0].due - now;
		for (int gi = 0; restarts && gi < total; gi++)
			if (games[gi].restart) {
				games[gi].restart = 0;
				restarts--;
				new_game(gi);
			}
		connect_some();
		if (!measuring && now >= measure_from) {
			measuring = 1;
			sent0 = moves_sent;
			bc0 = broadcasts;
			done0 = games_done;
			seen0 = moves_seen;
			if (server_pid)
				proc_usage3(server_pid, &cpu0, &user0, &rss);
			for (int k = 0; k < 2; k++) {
				int pid = k ? server_pid3 : server_pid2;
				double c2, r2;
				if (pid) {
					proc_usage(pid, &c2, &r2);
					cpu0 += c2;
				}
			}
			proc_usage(getpid(), &self_cpu0, &self_rss0);
		}
		if (now >= next_report) {
			next_report += 5000000;
			int open = 0;
			for (int i = 0; i < nclients; i++)
				open += clients[i].state == C_OPEN;
			fprintf(stderr, "loadgen: t=%.0fs open clients %d, moves sent %lld, errors %lld\n",
			        (double)(now - start) / 1e6, open, moves_sent, errors);
		}
		int n = epoll_wait(ep, evs, 512, (int)((wait + 999) / 1000));
		for (int k = 0; k < n; k++) {
			client *c = &clients[evs[k].data.u32];
			if (c->fd < 0)
				continue;
			if (evs[k].events & EPOLLOUT) {
				if (c->state == C_CONNECTING)
					c->state = C_HANDSHAKE;
				flush_out(c);
			}
			if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				on_readable(c);
			if (c->fd >= 0 && c->state == C_DEAD) {
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				c->fd = -1;
				if (!games[c->game].over && errors++ < 5)
					fprintf(stderr, "loadgen: a client was disconnected\n");
			}
		}
	}
	double secs = duration;
	if (server_pid)
		proc_usage3(server_pid, &cpu1, &user1, &rss);
	for (int k = 0; k < 2; k++) {
		int pid = k ? server_pid3 : server_pid2;
		double c2, r2;
		if (pid) {
			proc_usage(pid, &c2, &r2);
			cpu1 += c2;
			rss += r2;
		}
	}
	qsort(lat, nlat, sizeof *lat, cmp64);
	int open = 0;
	for (int i = 0; i < nclients; i++)
		open += clients[i].state == C_OPEN;
	long long moves = moves_sent - sent0;
	printf("games in play:        %d (%d played by clients, %d by server bots)\n", total, ngames,
	       nbotgames);
	printf("websocket clients:    %d open at the end\n", open);
	printf("measured:             %.0f s after %.0f s warm-up\n", secs, warmup);
	printf("client moves:         %lld (%.0f moves/s), think time 0..%d ms\n", moves,
	       (double)moves / secs, 2 * think_ms);
	printf("broadcasts received:  %lld (%.0f/s, bot games included)\n", broadcasts - bc0,
	       (double)(broadcasts - bc0) / secs);
	printf("games finished:       %lld (replaced by new ones)\n", games_done - done0);
	printf("move -> broadcast:    n=%zu  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms\n",
	       nlat, pct(50), pct(90), pct(99), pct(99.9), nlat ? (double)lat[nlat - 1] / 1000.0 : 0);
	if (server_pid) {
		printf("server:               cpu %.0f%% of one core, rss %.0f MB%s\n",
		       100.0 * (cpu1 - cpu0) / secs, rss, server_pid3 ? " (all three processes)" : server_pid2 ? " (both processes)" : "");
		long long all = moves + bot_moves;
		if (all > 0)
			printf("server cpu per move:  %.0f us (%lld client + %lld bot moves), i.e. about %.0f "
			       "moves/s per core\n",
			       1e6 * (cpu1 - cpu0) / (double)all, moves, bot_moves,
			       (double)all / ((cpu1 - cpu0) > 0 ? (cpu1 - cpu0) : 1e-9));
		if (all > 0 && !server_pid2)
			printf("  of which user:      %.0f us (the rest is the kernel's: sockets, files)\n",
			       1e6 * (user1 - user0) / (double)all);
	}
	double self_cpu1 = 0, self_rss = 0;
	proc_usage(getpid(), &self_cpu1, &self_rss);
	printf("load generator:       cpu %.0f%% of one core\n", 100.0 * (self_cpu1 - self_cpu0) / secs);
	double la[3] = {0, 0, 0};
	FILE *lf = fopen("/proc/loadavg", "r");
	if (lf) {
		if (fscanf(lf, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3)
			la[0] = -1;
		fclose(lf);
	}
	printf("machine load average: %.2f (1 min), %ld cores\n", la[0], sysconf(_SC_NPROCESSORS_ONLN));
	printf("errors:               %lld\n", errors);
	(void)seen0;
	return errors ? 1 : 0;
}
