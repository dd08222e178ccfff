/*
 * net_conns.c - the transport's books of connections (net_internal.h):
 * every request and WebSocket by its serial, so that an answer that comes
 * later finds its connection or learns it has gone; and every accepted
 * connection counted under its peer's address, for --max-conns-per-addr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "peers.h"

/* ---- connections by serial -------------------------------------------------------- */

/* Answers that come later (after the storage thread) find their
 * connection by serial: a connection that has gone is simply not found. */
#define SERIAL_BUCKETS 4096
static srv_conn *serials[SERIAL_BUCKETS];
static uint64_t next_serial = 1;

void net_serial_drop(srv_conn *c)
{
	if (!c->serial)
		return;
	for (srv_conn **pp = &serials[c->serial % SERIAL_BUCKETS]; *pp; pp = &(*pp)->snext)
		if (*pp == c) {
			*pp = c->snext;
			break;
		}
	c->serial = 0;
	c->snext = NULL;
}

void net_serial_new(srv_conn *c)
{
	net_serial_drop(c);
	c->serial = next_serial++;
	srv_conn **b = &serials[c->serial % SERIAL_BUCKETS];
	c->snext = *b;
	*b = c;
}

srv_conn *net_conn_find(uint64_t serial)
{
	for (srv_conn *c = serial ? serials[serial % SERIAL_BUCKETS] : NULL; c; c = c->snext)
		if (c->serial == serial)
			return c;
	return NULL;
}

/* ---- connections per address ------------------------------------------------------------ */

/* Every accepted connection is counted under its peer's address from
 * accept to close; one over --max-conns-per-addr is marked (its opaque user
 * data points at over_limit) and refused at its first request: 429 for
 * HTTP, a refused handshake for a WebSocket. Counting at the socket, not
 * the request, also counts idle keep-alive connections and ones that never
 * send a request. */
typedef struct addr_count {
	struct addr_count *next;
	int n;
	char addr[64];
} addr_count;
#define ADDR_BUCKETS 1024
static addr_count *addrs[ADDR_BUCKETS];
static char over_limit;

static unsigned addr_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % ADDR_BUCKETS;
}

/* Counts a new connection from addr. Returns its entry, or NULL when the
 * address is at its limit (nothing counted). */
static addr_count *addr_take(const char *addr)
{
	addr_count **b = &addrs[addr_hash(addr)], *e;
	for (e = *b; e && strcmp(e->addr, addr); e = e->next)
		;
	if (e && net_cfg->max_conns_per_addr && e->n >= net_cfg->max_conns_per_addr)
		return NULL;
	if (!e) {
		e = srv_xcalloc(1, sizeof *e);
		snprintf(e->addr, sizeof e->addr, "%s", addr);
		e->next = *b;
		*b = e;
	}
	e->n++;
	return e;
}

static void addr_release(addr_count *e)
{
	if (--e->n > 0)
		return;
	for (addr_count **pp = &addrs[addr_hash(e->addr)]; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			free(e);
			return;
		}
}

void net_addrs_free(void)
{
	for (int i = 0; i < ADDR_BUCKETS; i++)
		while (addrs[i]) {
			addr_count *e = addrs[i];
			addrs[i] = e->next;
			free(e);
		}
}

int net_over_conn_limit(struct lws *wsi)
{
	return lws_get_opaque_user_data(wsi) == &over_limit;
}

void net_conn_limit_message(char *out, size_t size)
{
	snprintf(out, size,
	         "too many connections from your address (at most %d at once): close some and try "
	         "again",
	         net_cfg->max_conns_per_addr);
}

void net_conn_accepted(struct lws *wsi)
{
	char addr[64];
	peers_addr(wsi, addr, sizeof addr);
	if (net_cfg->n_trust_proxy && peers_trusted(addr)) {
		/* a proxy carries many clients: they are limited one by one
		 * once their requests name them (ratelimit.c) */
		lws_set_opaque_user_data(wsi, NULL);
		return;
	}
	addr_count *e = addr_take(addr);
	lws_set_opaque_user_data(wsi, e ? (void *)e : (void *)&over_limit);
	if (!e) {
		/* a flood must not flood the log too: one line a second */
		static int64_t last_ms;
		static unsigned quiet;
		int64_t now = srv_now_ms();
		if (now - last_ms >= 1000) {
			srv_event("connection from %s over --max-conns-per-addr %d (%u more refused "
			          "since the last line)",
			          addr, net_cfg->max_conns_per_addr, quiet);
			last_ms = now;
			quiet = 0;
		} else {
			quiet++;
		}
	}
}

void net_conn_destroyed(struct lws *wsi)
{
	void *o = lws_get_opaque_user_data(wsi);
	if (o && o != (void *)&over_limit)
		addr_release(o);
	lws_set_opaque_user_data(wsi, NULL);
}
