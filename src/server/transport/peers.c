/*
 * peers.c - who a connection is: its address (an IPv6-mapped IPv4 address
 * as IPv4), the client a trusted proxy names (--trust-proxy: the last
 * X-Forwarded-For entry that is no trusted proxy, or X-Real-IP), whether
 * an Origin is the server's own or one --allow-origin names, and whether a
 * request comes from this machine. Pure functions of the request and the
 * configuration given to peers_setup; net.c asks them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "peers.h"

const srv_config *peers_cfg;

void peers_setup(const srv_config *c) { peers_cfg = c; }

/* ---- trusted proxies (--trust-proxy) ------------------------------------------------------ */

/* An address as bytes (4 or 16) with its family; -1 when it is none. */
static int addr_bytes(const char *s, unsigned char *b)
{
	if (inet_pton(AF_INET, s, b) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, b) == 1)
		return 16;
	return -1;
}

int srv_addr_match(const char *spec, const char *addr)
{
	char net[64];
	const char *slash = strchr(spec, '/');
	size_t n = slash ? (size_t)(slash - spec) : strlen(spec);
	if (n == 0 || n >= sizeof net)
		return -1;
	memcpy(net, spec, n);
	net[n] = 0;
	unsigned char nb[16], ab[16];
	int len = addr_bytes(net, nb);
	if (len < 0)
		return -1;
	long bits = len * 8;
	if (slash) {
		char *end;
		bits = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || bits < 0 || bits > len * 8)
			return -1;
	}
	if (addr_bytes(addr, ab) != len)
		return 0;
	for (long i = 0; i < bits; i++)
		if ((nb[i / 8] ^ ab[i / 8]) & (0x80 >> (i % 8)))
			return 0;
	return 1;
}

int peers_trusted(const char *addr)
{
	for (int i = 0; i < peers_cfg->n_trust_proxy; i++)
		if (srv_addr_match(peers_cfg->trust_proxy[i], addr) == 1)
			return 1;
	return 0;
}

void peers_strip_v4(char *a)
{
	if (!strncmp(a, "::ffff:", 7) && strchr(a + 7, '.'))
		memmove(a, a + 7, strlen(a + 7) + 1);
}

/* Behind a trusted proxy: the client named by the headers. In
 * X-Forwarded-For every proxy appends the address it was reached from, so
 * the client is the last entry that is not a trusted proxy itself (the
 * entries before it may be made up by the client); X-Real-IP (nginx's
 * $remote_addr) when there is no X-Forwarded-For. 0, or -1 when the
 * headers name no address (then the proxy's address stays). */
int peers_forwarded(struct lws *wsi, char *out, size_t size)
{
	char h[1024];
	unsigned char b[16];
	int n = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
	if (n > 0 && n < (int)sizeof h && lws_hdr_copy(wsi, h, sizeof h, WSI_TOKEN_X_FORWARDED_FOR) > 0) {
		char *end = h + strlen(h);
		while (end > h) {
			char *start = end;
			while (start > h && start[-1] != ',')
				start--;
			char *a = start, *e = end;
			while (a < e && (*a == ' ' || *a == '\t'))
				a++;
			while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			*e = 0;
			peers_strip_v4(a);
			if (addr_bytes(a, b) < 0)
				return -1; /* not an address: nothing after it is believed */
			if (!peers_trusted(a) || start == h) {
				snprintf(out, size, "%s", a);
				return 0;
			}
			end = start > h ? start - 1 : h;
		}
		return -1;
	}
	/* lws knows X-Real-IP by name (a token of its own, not a custom header:
	 * lws_hdr_custom_copy never sees it) */
	n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_X_REAL_IP);
	if (n > 0 && n < (int)sizeof h && lws_hdr_copy(wsi, h, sizeof h, WSI_TOKEN_HTTP_X_REAL_IP) > 0) {
		char *a = h;
		while (*a == ' ')
			a++;
		a[strcspn(a, " \t")] = 0;
		peers_strip_v4(a);
		if (addr_bytes(a, b) < 0)
			return -1;
		snprintf(out, size, "%s", a);
		return 0;
	}
	return -1;
}

/* The peer's address as text ("" when unknown), the key of per-address
 * limits. An IPv4 client on a dual-stack socket reads "::ffff:1.2.3.4":
 * the prefix is dropped so that it counts once. Behind a proxy of
 * --trust-proxy, the client the proxy names (once the headers are in). */
void peers_addr(struct lws *wsi, char *out, size_t size)
{
	out[0] = 0;
	if (!lws_get_peer_simple(wsi, out, size))
		out[0] = 0;
	peers_strip_v4(out);
	if (peers_cfg->n_trust_proxy && peers_trusted(out))
		peers_forwarded(wsi, out, size); /* no headers yet (at accept): -1 */
}


/* ---- origins ---------------------------------------------------------------------- */

/* scheme://host[:port] of an Origin header, lower case, without a default
 * port; "" when it is none of http or https. */
static void origin_norm(const char *in, char *out, size_t size)
{
	out[0] = 0;
	int https = !strncasecmp(in, "https://", 8);
	if (!https && strncasecmp(in, "http://", 7))
		return;
	const char *host = in + (https ? 8 : 7);
	size_t n = strcspn(host, "/?#");
	if (!n || n + 9 >= size)
		return;
	int k = snprintf(out, size, "%s://%.*s", https ? "https" : "http", (int)n, host);
	for (int i = 0; i < k; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	const char *dflt = https ? ":443" : ":80";
	size_t dl = strlen(dflt);
	if ((size_t)k > dl && !strcmp(out + k - dl, dflt))
		out[k - dl] = 0;
}

/* 1 when a page of this Origin may open a WebSocket here: the server's own
 * origin (the Host header, by http or https) or one of --allow-origin. */
int peers_origin_ok(const char *origin, const char *host)
{
	char o[300], h[300];
	origin_norm(origin, o, sizeof o);
	if (!o[0])
		return 0;
	for (int i = 0; i < peers_cfg->n_allow_origin; i++) {
		origin_norm(peers_cfg->allow_origin[i], h, sizeof h);
		if (h[0] && !strcmp(o, h))
			return 1;
	}
	if (!host[0] || strlen(host) > 250)
		return 0;
	for (int https = 0; https < 2; https++) {
		char with[300];
		snprintf(with, sizeof with, "%s://%s", https ? "https" : "http", host);
		origin_norm(with, h, sizeof h);
		if (h[0] && !strcmp(o, h))
			return 1;
	}
	return 0;
}

/* ---- on this machine -------------------------------------------------------------- */

int peers_loopback(const char *a)
{
	return srv_addr_match("127.0.0.0/8", a) == 1 || srv_addr_match("::1", a) == 1;
}

/* Whether the client is on this machine: the peer is on loopback (or a
 * trusted proxy) and, when the request is forwarded (X-Forwarded-For or
 * X-Real-IP), a trusted proxy names a loopback client. A peer that is no
 * trusted proxy and forwards for somebody is a proxy the server does not
 * know: its client may be anywhere. */
int peers_local(struct lws *wsi)
{
	char peer[64], client[64];
	if (!lws_get_peer_simple(wsi, peer, sizeof peer))
		return 0;
	peers_strip_v4(peer);
	int trusted = peers_cfg->n_trust_proxy && peers_trusted(peer);
	int fwd = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR) > 0 ||
	          lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_X_REAL_IP) > 0;
	if (!fwd)
		return peers_loopback(peer);
	return trusted && !peers_forwarded(wsi, client, sizeof client) && peers_loopback(client);
}
