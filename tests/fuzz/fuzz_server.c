/*
 * fuzz_server.c - the server without its transport, for the fuzz targets
 * (see fuzz_server.h).
 *
 * Linked with -Wl,--wrap for net_send, net_send_text, net_broadcast,
 * net_close_after_flush, net_conn_find and net_http_answer: every call the
 * other server modules make into net*.c arrives at the __wrap_ functions
 * below (the domain's outbox and the accounts' hooks, which api_start
 * installs, are api.c's and call these). net*.c's own code is never run (no
 * lws connection exists).
 */
#include <jansson.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accounts.h"
#include "fuzz_server.h"
#include "store.h"
#include "writer.h"

srv_config fz_cfg;

static struct lws_context *lctx;
static store *reader;
static char dir[512], dbfile[600];
static int inputs_since_reset;

typedef struct fz_slot {
	char id[STORE_ID_SIZE];
	char token[CARC_MAX_PLAYERS][STORE_TOKEN_SIZE * 2];
} fz_slot;
static fz_slot slots[FZ_NSLOTS];

#define MAX_TABLES 40           /* small: a reset comes soon after the limit */
#define RESET_EVERY 20000       /* inputs: bounds the database file */
static int reset_every = RESET_EVERY; /* CARC_FUZZ_RESET_EVERY=1: check every input */
#define HARNESS_ADDR "192.0.2.1" /* the harness's own requests (TEST-NET-1) */

void fz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fuzz harness: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ---- checking what the server says ------------------------------------------------ */

static int ws_errors; /* WebSocket errors sent since the last count */

static int known_code(const char *code)
{
	for (int e = 0; e < SE_COUNT; e++)
		if (!strcmp(code, srv_err_name((srv_err)e)))
			return 1;
	return 0;
}

static void check_error_object(const json_t *err, const char *where)
{
	const char *code = json_string_value(json_object_get(err, "code"));
	if (!code || !known_code(code) || !json_is_string(json_object_get(err, "message")))
		fz_fail("%s: an error without a known code and a message (code %s)", where,
		        code ? code : "none");
}

/* v: a header value in a buffer of `size` bytes (NULL: none) */
static void check_header_value(const char *v, size_t size, const char *what)
{
	size_t i = 0;
	for (; v && i < size && v[i]; i++)
		if ((unsigned char)v[i] < 32 || v[i] == 127)
			fz_fail("%s holds a control character: %.*s", what, (int)size, v);
	if (v && i == size)
		fz_fail("%s is not terminated", what);
}

static void check_http(int status, const char *ctype, const char *body, size_t len)
{
	if (status < 200 || status > 599)
		fz_fail("HTTP status %d", status);
	if (!ctype)
		fz_fail("HTTP %d without a content type", status);
	if (!body && len)
		fz_fail("HTTP %d: no body but a length of %zu", status, len);
	if (strncmp(ctype, "application/json", 16))
		return;
	json_error_t je;
	json_t *o = json_loadb(body ? body : "", len, 0, &je);
	int show = len < 300 ? (int)len : 300;
	if (!o)
		fz_fail("HTTP %d: the body is not JSON (%s): %.*s", status, je.text, show,
		        body ? body : "");
	if (status >= 400) {
		if (!json_is_object(json_object_get(o, "error")))
			fz_fail("HTTP %d without an error object: %.*s", status, show, body);
		check_error_object(json_object_get(o, "error"), "HTTP");
	}
	json_decref(o);
}

static void check_ws(const char *text, size_t len)
{
	json_error_t je;
	json_t *o = json_loadb(text, len, 0, &je);
	int show = len < 300 ? (int)len : 300;
	if (!json_is_object(o))
		fz_fail("a WebSocket message is not a JSON object (%s): %.*s", je.text, show, text);
	const char *type = json_string_value(json_object_get(o, "type"));
	if (!type)
		fz_fail("a WebSocket message without a type: %.*s", show, text);
	if (!strcmp(type, "error")) {
		check_error_object(o, "WebSocket");
		ws_errors++;
	}
	json_decref(o);
}

/* What a refused request must leave as it was: the slots' tables. */
typedef struct fz_snap {
	int found, status, nturns, nseats, nconns;
	uint64_t hash;
	int kind[CARC_MAX_PLAYERS];
} fz_snap;

static void snap(fz_snap out[FZ_NSLOTS])
{
	memset(out, 0, sizeof(fz_snap) * FZ_NSLOTS);
	for (int k = 0; k < FZ_NSLOTS; k++) {
		srv_table *t = fz_table(k);
		fz_snap *s = &out[k];
		if (!t)
			continue;
		s->found = 1;
		s->status = t->status;
		s->nturns = tables_step(t);
		s->nseats = t->nseats;
		s->nconns = t->nconns;
		s->hash = carc_game_hash(t->game);
		for (int i = 0; i < t->nseats && i < CARC_MAX_PLAYERS; i++)
			s->kind[i] = t->seat[i].kind;
	}
}

static void same_snap(const fz_snap a[FZ_NSLOTS], const char *what)
{
	fz_snap b[FZ_NSLOTS];
	snap(b);
	for (int k = 0; k < FZ_NSLOTS; k++)
		if (memcmp(&a[k], &b[k], sizeof a[k]))
			fz_fail("%s, but table %s changed (status %d -> %d, turn %d -> %d)", what,
			        fz_id(k), a[k].status, b[k].status, a[k].nturns, b[k].nturns);
}

/* ---- the transport's part (net*.c's functions, redirected here) ------------------ */

static srv_conn ws;             /* the harness's WebSocket connection */
static int ws_is_open, ws_heard; /* messages it got since the last count */
static uint64_t next_serial = 1ull << 40;

/* Tables that requests made since the last reset, with the request, for
 * the restart check (see reset). */
#define MAX_MADE 128
static struct {
	char id[STORE_ID_SIZE];
	char req[200];
} made_tables[MAX_MADE];
static int nmade;
static unsigned long nresets;

static uint64_t waiting;        /* the HTTP request that waits for the store */
static int waiting_answered, waiting_status;
static char *waiting_body;

void __wrap_net_send(srv_conn *c, srv_msg *m);
void __wrap_net_send_text(srv_conn *c, const char *text);
void __wrap_net_broadcast(struct srv_table *t, const char *text, size_t len);
void __wrap_net_close_after_flush(srv_conn *c);
srv_conn *__wrap_net_conn_find(uint64_t serial);
void __wrap_net_http_answer(uint64_t serial, int status, const char *ctype, char *body,
                            size_t len, const char *cookie, const char *disposition);

static void to_conn(srv_conn *c, const char *text, size_t len)
{
	if (c != &ws)
		fz_fail("a message for a connection the harness does not know");
	if (!ws_is_open)
		fz_fail("a message for a connection that has closed");
	check_ws(text, len);
	ws_heard++;
}

void __wrap_net_send(srv_conn *c, srv_msg *m)
{
	to_conn(c, (const char *)m->data + LWS_PRE, m->len);
}

void __wrap_net_send_text(srv_conn *c, const char *text)
{
	to_conn(c, text, strlen(text));
}

void __wrap_net_broadcast(struct srv_table *t, const char *text, size_t len)
{
	int n = 0;
	for (srv_client *cl = t->conns; cl; cl = cl->tnext, n++)
		to_conn(net_conn_of(cl), text, len);
	if (n != t->nconns)
		fz_fail("table %s counts %d connections but lists %d", t->id, t->nconns, n);
}

void __wrap_net_close_after_flush(srv_conn *c)
{
	c->closing = 1;
}

srv_conn *__wrap_net_conn_find(uint64_t serial)
{
	return ws_is_open && serial && serial == ws.serial ? &ws : NULL;
}

void __wrap_net_http_answer(uint64_t serial, int status, const char *ctype, char *body,
                            size_t len, const char *cookie, const char *disposition)
{
	if (!serial || serial != waiting)
		fz_fail("an HTTP answer for request %llu, which does not wait", (unsigned long long)serial);
	if (waiting_answered)
		fz_fail("request %llu answered twice", (unsigned long long)serial);
	check_http(status, ctype, body, len);
	check_header_value(cookie, sizeof ws.resp_cookie, "Set-Cookie");
	check_header_value(disposition, sizeof ws.resp_disp, "Content-Disposition");
	waiting_answered = 1;
	waiting_status = status;
	waiting_body = body;
}

/* ---- the loop's part ------------------------------------------------------------------- */

void fz_settle(void)
{
	int64_t t0 = srv_mono_us();
	for (int spin = 0;; spin++) {
		writer_drain();
		if (!writer_backlog())
			return;
		if (srv_mono_us() - t0 > 10 * 1000000)
			fz_fail("the storage thread has %d jobs left after 10 s", writer_backlog());
		if (spin < 200)
			sched_yield();
		else
			usleep(50);
	}
}

static void copy_field(char *out, size_t size, const char *in)
{
	snprintf(out, size, "%s", in ? in : "");
}

int fz_http(int method, const char *path, const char *query, const char *token,
            const char *cookie, const char *body, size_t body_len, int too_large,
            const char *addr, char **body_out)
{
	/* the sizes of net*.c's buffers */
	char p[256], q[1024], tk[256], ck[1024];
	copy_field(p, sizeof p, path);
	copy_field(q, sizeof q, query);
	copy_field(tk, sizeof tk, token);
	copy_field(ck, sizeof ck, cookie);
	size_t limit = !strcmp(p, "/api/records") ? fz_cfg.max_msg * 64 : fz_cfg.max_msg;
	if (body_len > limit) {
		too_large = 1;
		body_len = limit;
	}
	/* net*.c's body is NUL-terminated, at its exact length */
	char *b = NULL;
	if (body_len || body) {
		b = srv_xmalloc(body_len + 1);
		memcpy(b, body ? body : "", body_len);
		b[body_len] = 0;
	}
	api_req rq = {.serial = next_serial++, .method = method, .path = p, .query = q,
	              .body = b, .body_len = body_len, .body_too_large = too_large, .token = tk,
	              .cookie = ck, .addr = addr ? addr : ""};
	api_resp rs;
	fz_snap before[FZ_NSLOTS];
	snap(before);
	waiting = rq.serial;
	waiting_answered = 0;
	waiting_body = NULL;
	api_http(&fz_cfg, &rq, &rs);
	free(b);
	int status = rs.status;
	char *out = rs.body;
	if (status) {
		check_http(rs.status, rs.ctype, rs.body, rs.body_len);
		check_header_value(rs.set_cookie, sizeof rs.set_cookie, "Set-Cookie");
		check_header_value(rs.disposition, sizeof rs.disposition, "Content-Disposition");
		if (rs.retry_after < 0)
			fz_fail("a negative Retry-After");
		fz_settle();
		if (waiting_answered)
			fz_fail("request answered now and again later");
	} else {
		fz_settle();
		if (!waiting_answered)
			fz_fail("a request that waits for the store was never answered: %s %s",
			        method == LWSHUMETH_POST ? "POST" : "GET", p);
		status = waiting_status;
		out = waiting_body;
	}
	waiting = 0;
	if (status >= 400) {
		char what[320];
		snprintf(what, sizeof what, "%s answered %d", p, status);
		same_snap(before, what);
	}
	if (status == 201 && nmade < MAX_MADE) {
		json_t *o = json_loads(out ? out : "", 0, NULL);
		const char *id = json_string_value(json_object_get(o, "id"));
		if (id) {
			snprintf(made_tables[nmade].id, sizeof made_tables[nmade].id, "%s", id);
			char *r = made_tables[nmade].req;
			int k = snprintf(r, sizeof made_tables[nmade].req, "%s %s ", p, q);
			for (size_t i = 0; i < body_len && k >= 0 && (size_t)k + 5 < sizeof made_tables[0].req;
			     i++) {
				unsigned char ch = (unsigned char)body[i];
				k += ch >= 32 && ch < 127 ? snprintf(r + k, 2, "%c", ch)
				                          : snprintf(r + k, 5, "\\x%02x", ch);
			}
			nmade++;
		}
		json_decref(o);
	}
	if (body_out)
		*body_out = out;
	else
		free(out);
	return status;
}

srv_conn *fz_ws_open(const char *path, const char *token, const char *cookie)
{
	char p[256], tk[256], ck[1024];
	/* net*.c copies a header that fits, or nothing */
	if (strlen(path) >= sizeof p)
		path = "";
	if (strlen(cookie) >= sizeof ck)
		cookie = "";
	copy_field(p, sizeof p, path);
	copy_field(tk, sizeof tk, token);
	copy_field(ck, sizeof ck, cookie);
	memset(&ws, 0, sizeof ws);
	ws.kind = CONN_WS;
	ws.cl.seat = -1;
	ws.serial = next_serial++;
	snprintf(ws.addr, sizeof ws.addr, "127.0.0.1");
	ws_is_open = 1;
	ws_heard = 0;
	api_ws_open(&ws, p, tk, ck);
	fz_settle();
	if (!ws_heard)
		fz_fail("a WebSocket client was told nothing on arrival at %s", p);
	return &ws;
}

void fz_ws_message(srv_conn *c, const char *text, size_t len)
{
	int attached = c->cl.table != NULL && !c->closing;
	fz_snap before[FZ_NSLOTS];
	snap(before);
	ws_heard = ws_errors = 0;
	if (len > fz_cfg.max_msg) {
		api_ws_too_large(c, fz_cfg.max_msg);
	} else {
		/* net*.c's message buffer: exactly len bytes, no terminator */
		char *m = srv_xmalloc(len ? len : 1);
		memcpy(m, text, len);
		api_ws_message(c, m, len);
		free(m);
	}
	fz_settle();
	if (attached && !ws_heard)
		fz_fail("a WebSocket message got no answer: %.*s", (int)(len < 300 ? len : 300), text);
	if (ws_heard && ws_heard == ws_errors)
		same_snap(before, "a WebSocket message was refused");
}

void fz_ws_close(srv_conn *c)
{
	ws_is_open = 0; /* net*.c forgets the serial before api_ws_close */
	api_ws_close(c);
	fz_settle();
	if (c->cl.table)
		fz_fail("a closed connection still sits at a table");
}

/* ---- placeholders ------------------------------------------------------------------------ */

static const char *const FIGS[CARC_FIG_COUNT] = {"follower", "big", "builder", "pig", "abbot"};

static int slot_of(unsigned char b)
{
	return (b >= '0' && b <= '9' ? b - '0' : b) % FZ_NSLOTS;
}

static void move_members(srv_sb *out, const carc_game *g, unsigned k)
{
	static carc_move buf[CARC_MAX_MOVES];
	int n = carc_game_over(g) ? 0 : carc_legal_moves(g, buf, CARC_MAX_MOVES);
	if (n <= 0) {
		sb_adds(out, "\"x\":0,\"y\":0,\"rot\":0");
		return;
	}
	carc_move m = buf[k % (unsigned)n];
	if (carc_move_is_discard(m)) {
		sb_adds(out, "\"discard\":true");
		return;
	}
	int rot = carc_move_rot(m), seg = carc_move_seg(m);
	sb_printf(out, "\"x\":%d,\"y\":%d,\"rot\":%d,", carc_move_x(m), carc_move_y(m), rot);
	if (seg == CARC_SEG_NONE) {
		sb_adds(out, "\"meeple\":null");
		if (carc_move_recall(m))
			sb_adds(out, ",\"abbot_recalled\":true");
		return;
	}
	int port = carc_tile_segment_port(carc_current_tile(g), rot, seg);
	int fig = carc_move_figure(m);
	sb_printf(out, "\"meeple\":{\"kind\":\"%s\",\"at\":\"%s\"}",
	          fig >= 0 && fig < CARC_FIG_COUNT ? FIGS[fig] : "?",
	          port >= 0 ? carc_port_name(port) : "?");
}

void fz_expand(const char *in, size_t n, srv_sb *out)
{
	sb_init(out);
	size_t i = 0;
	while (i < n) {
		const char *d = memchr(in + i, '$', n - i);
		size_t lit = d ? (size_t)(d - (in + i)) : n - i;
		sb_add(out, in + i, lit);
		i += lit;
		if (i >= n)
			break;
		/* in[i] == '$' */
		char op = i + 1 < n ? in[i + 1] : 0;
		if (op == '$') {
			sb_add(out, "$", 1);
			i += 2;
			continue;
		}
		size_t need = op == 'K' || op == 'M' ? 2 : 1; /* selector bytes after the letter */
		if (!op || !strchr("IKPNMR", op) || i + 2 + need > n) {
			sb_add(out, "$", 1); /* not a placeholder: as it is */
			i++;
			continue;
		}
		int s = slot_of((unsigned char)in[i + 2]);
		unsigned char arg = need == 2 ? (unsigned char)in[i + 3] : 0;
		i += 2 + need;
		srv_table *t = fz_table(s);
		switch (op) {
		case 'I':
			sb_adds(out, slots[s].id);
			break;
		case 'K':
			sb_adds(out, fz_token(s, (arg >= '0' && arg <= '9' ? arg - '0' : arg) %
			                             CARC_MAX_PLAYERS));
			break;
		case 'P':
			sb_adds(out, t ? fz_token(s, carc_to_move(t->game)) : "");
			break;
		case 'N':
			sb_printf(out, "%d", t ? tables_step(t) : 0);
			break;
		case 'M':
			if (t)
				move_members(out, t->game, arg >= '0' && arg <= '9' ? (unsigned)(arg - '0') : arg);
			else
				sb_adds(out, "\"x\":0,\"y\":0,\"rot\":0");
			break;
		case 'R':
			if (t) {
				char *r = tables_record_text(t);
				if (r)
					sb_adds(out, r);
				free(r);
			}
			break;
		}
	}
}

/* ---- the slots ----------------------------------------------------------------------------- */

srv_table *fz_table(int slot)
{
	return slots[slot].id[0] ? tables_find(slots[slot].id) : NULL;
}

const char *fz_id(int slot)
{
	return slots[slot].id;
}

const char *fz_token(int slot, int seat)
{
	return seat >= 0 && seat < CARC_MAX_PLAYERS ? slots[slot].token[seat] : "";
}

/* Reads "id", "seat" and "token" of a create or join answer into the slot. */
static void take_answer(fz_slot *s, const char *body)
{
	json_t *o = json_loads(body ? body : "", 0, NULL);
	const char *id = json_string_value(json_object_get(o, "id"));
	if (!id)
		fz_fail("no id in the answer: %.200s", body);
	snprintf(s->id, sizeof s->id, "%s", id);
	json_t *seat = json_object_get(o, "seat");
	const char *token = json_string_value(json_object_get(o, "token"));
	if (json_is_integer(seat) && token && json_integer_value(seat) >= 0 &&
	    json_integer_value(seat) < CARC_MAX_PLAYERS)
		snprintf(s->token[json_integer_value(seat)], sizeof s->token[0], "%s", token);
	json_decref(o);
}

/* A request of the harness itself; returns 0, or -1 when the server is
 * full (busy or rate limited: time for a reset). */
static int harness_post(fz_slot *s, const char *path, const char *body)
{
	char *out = NULL;
	int st = fz_http(LWSHUMETH_POST, path, "", "", "", body, strlen(body), 0, HARNESS_ADDR, &out);
	if (st == 503 || st == 429) {
		free(out);
		return -1;
	}
	if (st != 200 && st != 201)
		fz_fail("harness request POST %s %s: %d %.300s", path, body, st, out);
	if (s)
		take_answer(s, out);
	free(out);
	return 0;
}

static int join(fz_slot *s, const char *name)
{
	char path[96], body[96];
	snprintf(path, sizeof path, "/api/tables/%s/join", s->id);
	snprintf(body, sizeof body, "{\"name\":\"%s\"}", name);
	return harness_post(s, path, body);
}

/* Plays the slot's game to its end with first legal moves over HTTP. */
static int play_out(fz_slot *s)
{
	srv_table *t;
	while ((t = tables_find(s->id)) && !carc_game_over(t->game)) {
		srv_sb b;
		sb_init(&b);
		sb_adds(&b, "{");
		move_members(&b, t->game, 0);
		sb_printf(&b, ",\"turn\":%d,\"token\":\"%s\"}", tables_step(t),
		          s->token[carc_to_move(t->game)]);
		char path[96];
		snprintf(path, sizeof path, "/api/tables/%s/move", s->id);
		int rc = harness_post(NULL, path, b.s);
		sb_free(&b);
		if (rc)
			return -1;
	}
	return 0;
}

static unsigned made; /* seeds of the slots' games: each game another */

static int make_slot(int k)
{
	fz_slot *s = &slots[k];
	memset(s, 0, sizeof *s);
	char body[256];
	unsigned seed = 1 + made++ % 64;
	switch (k) {
	case FZ_PLAY:
		snprintf(body, sizeof body, "{\"name\":\"alice\",\"players\":2,\"seed\":%u}", seed);
		return harness_post(s, "/api/tables", body) || join(s, "bob");
	case FZ_OPEN:
		snprintf(body, sizeof body, "{\"name\":\"carol\",\"players\":3,\"seed\":%u}", seed);
		return harness_post(s, "/api/tables", body);
	case FZ_EMPTY:
		snprintf(body, sizeof body, "{\"players\":2,\"seed\":%u,\"farmers\":true}", seed);
		return harness_post(s, "/api/tables", body);
	case FZ_OVER:
		snprintf(body, sizeof body,
		         "{\"name\":\"olga\",\"players\":2,\"seed\":%u,\"tiles\":{\"E\":1,\"U\":1,\"V\":1}}",
		         seed);
		return harness_post(s, "/api/tables", body) || join(s, "oscar") || play_out(s);
	case FZ_VIEW: {
		srv_table *over = fz_table(FZ_OVER);
		char *rec = over ? tables_record_text(over) : NULL;
		if (!rec)
			fz_fail("no record of the finished game");
		int rc = harness_post(s, "/api/records", rec);
		free(rec);
		return rc;
	}
	case FZ_BOT:
		snprintf(body, sizeof body,
		         "{\"name\":\"bea\",\"seats\":[{},{\"bot\":\"random\"}],\"seed\":%u}", seed);
		return harness_post(s, "/api/tables", body);
	}
	return -1;
}

/* Whether the slot's table is still what the slot promises. */
static int slot_ok(int k)
{
	srv_table *t = fz_table(k);
	if (!t)
		return 0;
	if (t->nlog != tables_step(t))
		fz_fail("table %s: %d log entries for %d turns", t->id, t->nlog, tables_step(t));
	if (t->pm || t->pending_ops)
		fz_fail("table %s: storage work left after the input", t->id);
	switch (k) {
	case FZ_PLAY:
	case FZ_BOT:
		return t->status == STORE_PLAYING && !carc_game_over(t->game);
	case FZ_OPEN:
	case FZ_EMPTY:
		return t->status == STORE_OPEN;
	case FZ_OVER:
		return t->status == STORE_OVER;
	case FZ_VIEW:
		return t->status == STORE_VIEW;
	}
	return 0;
}

static void open_stores(void)
{
	char err[STORE_ERR_SIZE];
	store *w = store_sqlite_open(dbfile, 0, 1, err);
	if (!w)
		fz_fail("%s: %s", dbfile, err);
	reader = store_sqlite_open(dbfile, 0, 0, err);
	if (!reader)
		fz_fail("%s: %s", dbfile, err);
	if (writer_start(w, lctx))
		fz_fail("cannot start the storage thread");
	api_start();
	if (tables_start(&fz_cfg, reader, lctx))
		fz_fail("cannot start the tables");
	/* the account routes (leaderboard, player, me, login) read their store
	 * and key from here, as in net*.c */
	if (accounts_start(&fz_cfg, reader, lctx))
		fz_fail("cannot start the accounts");
	/* no timer ever fires here: keep the tables from setting any */
	tables_stop_timers();
	api_set_start(srv_mono_us(), reader->ops->name);
}

static void remove_db(void)
{
	static const char *const SUFFIX[] = {"", "-wal", "-shm", "-journal"};
	for (size_t i = 0; i < sizeof SUFFIX / sizeof SUFFIX[0]; i++) {
		char f[640];
		snprintf(f, sizeof f, "%s%s", dbfile, SUFFIX[i]);
		unlink(f);
	}
}

static void close_stores(void)
{
	fz_settle();
	writer_stop();
	accounts_stop();
	tables_stop();
	if (reader)
		reader->ops->close(reader);
	reader = NULL;
	remove_db();
}

static void at_exit(void)
{
	fprintf(stderr, "fuzz harness: %lu resets (each with a restart check)\n", nresets);
	close_stores();
	rmdir(dir);
}

/* Stops the server and starts it again on the same database: every table
 * made since the last reset must come back as it was (same status, same
 * turn). A failure names the request that made the table: it is usually
 * not the input libFuzzer saves, which only came at the time of the check. */
static int no_restart_check; /* CARC_FUZZ_NO_RESTART_CHECK=1: to look past a known bug */

static void restart_check(void)
{
	static struct {
		int status, nturns;
	} before[MAX_MADE];
	fz_settle();
	if (no_restart_check)
		return;
	for (int i = 0; i < nmade; i++) {
		srv_table *t = tables_find(made_tables[i].id);
		if (!t)
			fz_fail("table %s (made by %s) is gone", made_tables[i].id, made_tables[i].req);
		before[i].status = t->status;
		before[i].nturns = tables_step(t);
	}
	writer_stop();
	tables_stop();
	reader->ops->close(reader);
	reader = NULL;
	open_stores();
	for (int i = 0; i < nmade; i++) {
		srv_table *t = tables_find(made_tables[i].id);
		if (!t || t->status != before[i].status || tables_step(t) != before[i].nturns)
			fz_fail("table %s (made by %s) did not survive a restart: %s (status %d turn %d "
			        "before, %d %d after)",
			        made_tables[i].id, made_tables[i].req, t ? "changed" : "not loaded",
			        before[i].status, before[i].nturns, t ? t->status : -1,
			        t ? tables_step(t) : -1);
	}
}

/* Everything afresh: an empty database, no table, the slots made again. */
static void reset(void)
{
	restart_check();
	nresets++;
	close_stores();
	open_stores();
	inputs_since_reset = 0;
	nmade = 0;
	for (int k = 0; k < FZ_NSLOTS; k++)
		if (make_slot(k))
			fz_fail("the slots do not fit in a fresh server");
}

void fz_init(void)
{
	srv_config_default(&fz_cfg);
	fz_cfg.quiet = 1;
	fz_cfg.bot_delay_ms = 0;
	fz_cfg.bot_threads = 1;
	fz_cfg.auth_threads = 1;
	fz_cfg.max_msg = 4096;
	fz_cfg.max_tables = MAX_TABLES;
	/* the per-address limits would soon refuse the harness's own requests
	 * (it rebuilds its tables from one address): off, as in a load test;
	 * their refusals are covered by tests/py/test_limits.py */
	fz_cfg.rate_requests = fz_cfg.rate_tables = fz_cfg.max_open_tables = 0;
	fz_cfg.rate_uploads = 0;
	const char *re = getenv("CARC_FUZZ_RESET_EVERY");
	if (re && atoi(re) > 0)
		reset_every = atoi(re);
	no_restart_check = getenv("CARC_FUZZ_NO_RESTART_CHECK") != NULL;
	srv_log_quiet(1);
	lws_set_log_level(0, NULL);
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/carc-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		fz_fail("cannot make a folder in %s", tmp && *tmp ? tmp : "/tmp");
	snprintf(dbfile, sizeof dbfile, "%s/fuzz.sqlite", dir);
	fz_cfg.db_path = dbfile;

	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	lctx = lws_create_context(&info);
	if (!lctx)
		fz_fail("no lws context");
	open_stores();
	atexit(at_exit);
	for (int k = 0; k < FZ_NSLOTS; k++)
		if (make_slot(k))
			fz_fail("cannot make the tables of the harness");
}

void fz_after_input(void)
{
	fz_settle();
	int tables, playing, conns;
	tables_counts(&tables, &playing, &conns);
	if (conns)
		fz_fail("%d connections left at tables after the input", conns);
	if (++inputs_since_reset >= reset_every || tables >= MAX_TABLES - 4 || nmade >= MAX_MADE) {
		reset();
		return;
	}
	for (int k = 0; k < FZ_NSLOTS; k++)
		if (!slot_ok(k) && make_slot(k)) {
			reset();
			return;
		}
}
