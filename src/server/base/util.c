/*
 * util.c - small helpers of the server: a growable string, the log, random
 * tokens and their hashes (SHA-256 from libsodium), clocks, a query
 * string's values, and the out-of-memory policy (abort with a message: the
 * server cannot go on half-allocated, and a supervisor restarts it; every
 * accepted move is already on disk).
 */
#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "request.h"
#include "server.h"

void *srv_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "carc-serve: out of memory\n");
		abort();
	}
	return p;
}

void *srv_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "carc-serve: out of memory\n");
		abort();
	}
	return p;
}

void *srv_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "carc-serve: out of memory\n");
		abort();
	}
	return q;
}

char *srv_xstrdup(const char *s)
{
	size_t n = strlen(s);
	char *d = srv_xmalloc(n + 1);
	memcpy(d, s, n + 1);
	return d;
}

void sb_init(srv_sb *b)
{
	b->cap = 256;
	b->len = 0;
	b->s = srv_xmalloc(b->cap);
	b->s[0] = 0;
}

void sb_free(srv_sb *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* Makes room for `extra` more bytes and the NUL. Works from any state of the
 * sb, also a zeroed or freed one (cap 0): it starts at 256 bytes instead of
 * doubling 0 forever. */
static void sb_reserve(srv_sb *b, size_t extra)
{
	if (extra > (size_t)-1 / 2 - b->len - 1) {
		fprintf(stderr, "carc-serve: out of memory (a string of %zu bytes)\n", extra);
		abort();
	}
	size_t need = b->len + extra + 1;
	if (b->s && need <= b->cap)
		return;
	size_t cap = b->cap >= 256 ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	b->s = srv_xrealloc(b->s, cap);
	if (!b->cap)
		b->s[b->len] = 0;
	b->cap = cap;
}

/* sb_add's way when the bytes do not fit (server.h) */
void sb_add_grow(srv_sb *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}


void sb_printf(srv_sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *sb_take(srv_sb *b)
{
	char *s = b->s ? b->s : srv_xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

static int log_quiet;

void srv_log_quiet(int quiet) { log_quiet = quiet; }

static void vlog(const char *level, const char *fmt, va_list ap)
{
	char line[1024];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	int n = snprintf(line, sizeof line, "carc-serve: %04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s",
	                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	                 tm.tm_sec, ts.tv_nsec / 1000000, level);
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	size_t len = (size_t)n + (size_t)m;
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	/* one write per line, so lines of concurrent writers never mix */
	fwrite(line, 1, len, stderr);
}

void srv_event(const char *fmt, ...)
{
	if (log_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void srv_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
}

static void fill_random(void *buf, size_t n)
{
	unsigned char *p = buf;
	while (n > 0) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "carc-serve: getrandom failed\n");
			abort();
		}
		p += r;
		n -= (size_t)r;
	}
}

void srv_random_hex(char *out, size_t nbytes)
{
	static const char HEX[] = "0123456789abcdef";
	unsigned char b[64];
	if (nbytes > sizeof b)
		nbytes = sizeof b;
	fill_random(b, nbytes);
	for (size_t i = 0; i < nbytes; i++) {
		out[2 * i] = HEX[b[i] >> 4];
		out[2 * i + 1] = HEX[b[i] & 15];
	}
	out[2 * nbytes] = 0;
}

uint64_t srv_random_u64(void)
{
	uint64_t v;
	fill_random(&v, sizeof v);
	return v;
}

int64_t srv_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t srv_mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_ok;

static void sodium_start(void) { sodium_ok = sodium_init() >= 0; }

void srv_token_hash(const char *token, char out[65])
{
	static const char HEX[] = "0123456789abcdef";
	unsigned char h[crypto_hash_sha256_BYTES];
	pthread_once(&sodium_once, sodium_start);
	if (!sodium_ok) {
		fprintf(stderr, "carc-serve: libsodium cannot start\n");
		abort();
	}
	crypto_hash_sha256(h, (const unsigned char *)token, strlen(token));
	for (size_t i = 0; i < sizeof h; i++) {
		out[2 * i] = HEX[h[i] >> 4];
		out[2 * i + 1] = HEX[h[i] & 15];
	}
	out[2 * sizeof h] = 0;
	sodium_memzero(h, sizeof h);
}

int srv_token_eq(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char d = (unsigned char)(na != nb);
	size_t n = na < nb ? na : nb;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0 && na > 0;
}

void srv_config_default(srv_config *c)
{
	memset(c, 0, sizeof *c);
	c->host = "127.0.0.1";
	c->port = 8080;
	c->db_path = "carc.sqlite";
	c->web_dir = "web";
	c->bot_delay_ms = 700;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->bot_threads = ncpu > 0 ? (int)(ncpu < 8 ? ncpu : 8) : 1;
	c->sync_full = 0;
	c->quiet = 0;
	c->max_msg = 16 * 1024;
	c->max_queue = 4 * 1024 * 1024;
	c->max_queue_total = 64 * 1024 * 1024;
	c->max_conns_per_addr = 64;
	c->metrics_host = NULL; /* metrics on the main port, loopback only */
	c->metrics_port = 0;
	c->health_cache_ms = 1000;
	c->max_tables = 20000;
	c->max_tables_share = 10;
	c->idle_evict_s = 600;
	c->bot_max_time = 2.0;
	c->bot_max_threads = 1;
	c->bot_max_nodes = 1L << 20; /* mcts: about 36 MB, its default tree */
	c->bot_cpu_per_addr = 60; /* a core's worth: far above what one person's games ask */
	/* limits (ratelimit.c) */
	c->rate_requests = 3000;
	c->rate_tables = 60;
	c->max_open_tables = 50;
	c->open_expiry_s = 1800;
	c->rate_uploads = 20;
	c->max_uploads = 1000;
	c->max_upload_bytes = 64LL * 1024 * 1024;
	c->limit_addresses = 16384;
	c->list_max = 50;
	c->clock_grace_s = 15;
	c->session_ttl_s = 30 * 86400;
	c->rate_logins = 10;
	c->auth_threads = 1;
	c->auth_queue = 64;
	c->auth_queue_per_addr = 2;
	c->rate_login_fails = 10;
	/* codes are random (79 bits each, recovery.h): the limit is there to
	 * keep strangers from spending it, not to slow a guesser (at 1000 an
	 * hour for a century, one of 8 codes is hit with a chance of 1e-11) */
	c->rate_recover_fails = 1000;
	c->device_ttl_s = 365 * 86400;
	c->rate_players = 30;
	c->rate_social = 30;
	c->friend_rate = 20;
	c->max_friends = 200;
	c->max_pending = 50;
	c->max_blocks = 500;
	c->invite_rate = 30;
	c->max_invites = 10;
	c->presence_every_s = 30;
	c->online_window_s = 90;
	c->rate_recover = 20;
	c->rate_keep = 10;
	c->rate_downloads = 60;
	c->rated_min_moves = RATED_MIN_MOVES;
	c->established_games = 10;
	c->established_opponents = 3;
	c->match_max = 1000;
	c->rate_match = 20;
	c->rate_match_account = 10;
	c->match_ttl_s = 15;
	c->match_window = 100;
	c->match_widen = 5;
	c->match_window_max = 800;
	c->match_bot_after_s = 45;
	c->match_poll_ms = 250;
	c->match_first_move_s = 60;
	c->match_hold_s = 300;
	c->match_hold_max_s = 86400;
	c->match_recent_s = 3600;
	c->match_recent_wait_s = 30;
	c->chat_rate = 20;
	c->chat_burst = 5;
	c->chat_max = 300;
	c->chat_len = 300;
	c->chat_spectator_share = 50;
	c->chat_spectator_rate = 10;
	c->rate_views = 600;
	c->analysis_bot = NULL;
	c->analysis_time = 0.05;
	c->analysis_max_time = 30;
	c->analysis_queue = 4;
	c->rate_analyses = 30;
	c->rate_undos = 30;
	c->undo_table_rate = 20;
}

int srv_query_get(const char *q, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);
	const char *p = q;
	while (p && *p) {
		const char *amp = strchr(p, '&');
		size_t n = amp ? (size_t)(amp - p) : strlen(p);
		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			size_t o = 0;
			for (size_t i = kl + 1; i < n && o + 1 < size; i++) {
				char ch = p[i];
				if (ch == '+')
					ch = ' ';
				else if (ch == '%' && i + 2 < n + 1 && i + 2 <= n) {
					char hx[3] = {p[i + 1], p[i + 2], 0};
					ch = (char)strtol(hx, NULL, 16);
					i += 2;
				}
				buf[o++] = ch;
			}
			buf[o] = 0;
			return 1;
		}
		p = amp ? amp + 1 : NULL;
	}
	return 0;
}

size_t srv_utf8_next(const char *in, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)in;
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	uint32_t v = c & (0x3F >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	*cp = v;
	return len;
}

int srv_cp_format(uint32_t c)
{
	return c == 0xAD || (c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD ||
	       c == 0x70F || c == 0x890 || c == 0x891 || c == 0x8E2 || c == 0x180E ||
	       (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
	       (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) ||
	       c == 0x110BD || c == 0x110CD || (c >= 0x13430 && c <= 0x1343F) ||
	       (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) ||
	       (c >= 0xE0000 && c <= 0xE007F);
}

int srv_cp_invisible(uint32_t c)
{
	/* white space (Unicode White_Space) */
	if ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
	    c == 0x205F || c == 0x3000)
		return 1;
	/* the other default-ignorable code points that show nothing (the
	 * combining grapheme joiner, Khmer's inherent vowels, variation
	 * selectors) and the blank fillers people use for an empty message
	 * (Hangul fillers, the blank braille pattern) */
	return srv_cp_format(c) || c == 0x34F || c == 0x115F || c == 0x1160 || c == 0x17B4 ||
	       c == 0x17B5 || (c >= 0x180B && c <= 0x180F) || c == 0x2800 || c == 0x3164 ||
	       (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFFA0 || (c >= 0xE0100 && c <= 0xE01EF);
}

void srv_utf8_fix(const char *in, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in), o = 0;
	while (n && o + 1 < size) {
		uint32_t cp;
		size_t k = srv_utf8_next((const char *)s, n, &cp);
		if (!k) {
			out[o++] = '?';
			s++, n--;
			continue;
		}
		if (o + k + 1 > size)
			break; /* a sequence is never cut */
		memcpy(out + o, s, k);
		o += k, s += k, n -= k;
	}
	if (size)
		out[o] = 0;
}
