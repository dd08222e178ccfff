/*
 * peers.c - who a connection is: its address (an IPv6-mapped IPv4 address
 * as IPv4), the client a trusted proxy names (--trust-proxy: the last
 * X-Forwarded-For entry that is no trusted proxy, or X-Real-IP), whether
 * an Origin is the server's own or one --allow-origin names, whether the
 * Host a request names is one the server serves (DNS rebinding), and
 * whether a request comes from this machine. Pure functions of the request
 * and the configuration given to peers_setup; net*.c ask them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "peers.h"

const srv_config *peers_cfg;

static int listens_anywhere(const char *listen);

void peers_setup(const srv_config *c)
{
	peers_cfg = c;
	if (c->n_host_names)
		return;
	/* an address of every interface names no host: say what is served */
	const char *any = listens_anywhere(c->host)                                ? c->host
	                  : c->metrics_host && listens_anywhere(c->metrics_host) ? c->metrics_host
	                                                                         : NULL;
	if (any)
		srv_error("listening on %s without --host-name: only requests whose Host is an "
		          "address or localhost are answered (others get 421 bad_host); name the "
		          "site's host names with --host-name", any[0] ? any : "every address");
}

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

/* ---- the host names served ----------------------------------------------------------- */

/* A DNS name (labels of 1..63 letters, digits and '-', not at a label's
 * ends; at most 253 bytes) or an address, each with a final dot or not,
 * an IPv6 address in brackets or not. */
int srv_host_name_ok(const char *v)
{
	char h[256];
	unsigned char b[16];
	size_t n = strlen(v);
	if (n && v[n - 1] == '.')
		n--;
	if (!n || n >= sizeof h)
		return 0;
	memcpy(h, v, n);
	h[n] = 0;
	if (h[0] == '[' && h[n - 1] == ']' && n > 2) {
		h[n - 1] = 0;
		return inet_pton(AF_INET6, h + 1, b) == 1;
	}
	if (addr_bytes(h, b) > 0)
		return 1;
	if (n > 253)
		return 0;
	for (const char *label = h; *label;) {
		size_t k = strspn(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
		if (k == 0 || k > 63 || label[0] == '-' || label[k - 1] == '-' ||
		    (label[k] && label[k] != '.') || (label[k] == '.' && !label[k + 1]))
			return 0;
		label += k + (label[k] == '.');
	}
	return 1;
}

/* The name part of a Host header into out (lower case,
 * without brackets or a final dot): "name", "name:port", "[v6]",
 * "[v6]:port". 0, or -1 when it is none of those. */
static int host_part(const char *h, char *out, size_t size)
{
	const char *end;
	if (h[0] == '[') {
		end = strchr(h, ']');
		if (!end)
			return -1;
		h++;
	} else {
		end = h + strcspn(h, ":");
	}
	size_t n = (size_t)(end - h);
	const char *port = end + (*end == ']');
	if (*port == ':') {
		size_t d = strspn(port + 1, "0123456789");
		if (d == 0 || d > 5 || port[1 + d])
			return -1;
	} else if (*port) {
		return -1;
	}
	if (n && h[n - 1] == '.')
		n--;
	if (!n || n >= size)
		return -1;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)h[i]);
	out[n] = 0;
	return 0;
}

/* A listening address that is no one address (none, 0.0.0.0, ::, an
 * interface's name): the machine's addresses are not known here. */
static int listens_anywhere(const char *listen)
{
	unsigned char b[16];
	int len = listen ? addr_bytes(listen, b) : -1;
	if (len < 0)
		return 1;
	for (int i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Whether `name` (host_part's) is one the server serves: a --host-name;
 * else the listener's own address and, when it is on loopback, localhost;
 * a listener on every address serves every address (a DNS rebinding needs
 * a name: an address names only the machine it is) and localhost. */
static int host_served(const char *name, const char *listen)
{
	unsigned char b[16];
	int literal = addr_bytes(name, b) > 0;
	char want[256];
	for (int i = 0; i < peers_cfg->n_host_names; i++) {
		/* srv_host_name_ok's: no port, an IPv6 address in brackets or not */
		const char *v = peers_cfg->host_names[i];
		size_t n = strlen(v);
		n -= n && v[n - 1] == '.';
		if (n >= 2 && v[0] == '[')
			v++, n -= 2;
		if (!n || n >= sizeof want)
			continue;
		for (size_t k = 0; k < n; k++)
			want[k] = (char)tolower((unsigned char)v[k]);
		want[n] = 0;
		if (literal ? srv_addr_match(want, name) == 1 : !strcmp(want, name))
			return 1;
	}
	if (listens_anywhere(listen))
		return literal || !strcmp(name, "localhost");
	if (literal)
		return srv_addr_match(listen, name) == 1;
	return !strcmp(name, "localhost") && peers_loopback(listen);
}

int peers_host_ok(struct lws *wsi, int metrics)
{
	char h[300], name[256];
	int n = lws_hdr_total_length(wsi, WSI_TOKEN_HOST);
	if (n <= 0)
		return 1; /* no Host (HTTP/1.0): no browser sent it */
	if (n >= (int)sizeof h || lws_hdr_copy(wsi, h, sizeof h, WSI_TOKEN_HOST) <= 0)
		return 0;
	if (host_part(h, name, sizeof name))
		return 0;
	return host_served(name, metrics ? peers_cfg->metrics_host : peers_cfg->host);
}

void peers_host_message(struct lws *wsi, char *out, size_t size)
{
	char h[300], shown[64];
	h[0] = 0;
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) < (int)sizeof h)
		lws_hdr_copy(wsi, h, sizeof h, WSI_TOKEN_HOST);
	srv_utf8_fix(h, shown, sizeof shown); /* quoted in JSON: UTF-8, cut short */
	snprintf(out, size, "this server does not answer for the host '%s': it answers for the "
	         "names of --host-name, its listening address and, on loopback, localhost",
	         shown);
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
