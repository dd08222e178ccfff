/*
 * net_static.c - the transport's static files: the web client from the
 * --web folder, or a placeholder page when it is not installed.
 *
 * The path is checked for "..", resolved with realpath() and must stay
 * inside the folder's own resolved path; only regular files are served,
 * by libwebsockets (lws_serve_http_file), with a type by extension.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "net_internal.h"

static char web_root[PATH_MAX]; /* the --web folder resolved ("": none) */

void net_static_setup(const char *web_dir)
{
	web_root[0] = 0;
	if (web_dir && !realpath(web_dir, web_root)) {
		web_root[0] = 0;
		srv_event("web folder %s not found: serving the API and a placeholder page", web_dir);
	}
}

static const char *mime_of(const char *path)
{
	static const struct {
		const char *ext, *mime;
	} M[] = {
		{".html", "text/html; charset=utf-8"}, {".js", "text/javascript"},
		{".mjs", "text/javascript"},           {".css", "text/css"},
		{".json", "application/json"},         {".svg", "image/svg+xml"},
		{".png", "image/png"},                 {".jpg", "image/jpeg"},
		{".ico", "image/x-icon"},              {".woff2", "font/woff2"},
		{".txt", "text/plain; charset=utf-8"}, {".wasm", "application/wasm"},
		{".webp", "image/webp"},               {".map", "application/json"},
	};
	const char *dot = strrchr(path, '.');
	for (size_t i = 0; dot && i < sizeof M / sizeof M[0]; i++)
		if (!strcmp(dot, M[i].ext))
			return M[i].mime;
	return "application/octet-stream";
}

static const char FALLBACK_PAGE[] =
	"<!doctype html><meta charset=utf-8><title>carc</title>"
	"<h1>carc serve</h1><p>The server runs, but the web client is not installed "
	"(no <code>index.html</code> in the --web folder).</p>"
	"<p>API: <a href=/api/health>/api/health</a>, <a href=/api/tables>/api/tables</a>, "
	"<a href=/api/tiles>/api/tiles</a>; see docs/protocol.md.</p>\n";

/* Serves a file under web_root. Returns what the callback should return. */
int net_serve_static(srv_conn *c, const char *path)
{
	if (c->method != LWSHUMETH_GET && c->method != LWSHUMETH_HEAD)
		return net_http_error(c, 405, "method_not_allowed", "GET only");
	const char *rel = !strcmp(path, "/") ? "/index.html" : path;
	int bad = rel[0] != '/' || strstr(rel, "..") || strstr(rel, "//") || strchr(rel, '\\') ||
	          strlen(rel) > 200;
	for (const unsigned char *p = (const unsigned char *)rel; *p && !bad; p++)
		bad = *p < 32 || *p == 127;
	if (bad)
		return net_http_error(c, 400, "malformed", "bad path");
	char full[PATH_MAX], real[PATH_MAX];
	struct stat sb;
	if (web_root[0]) {
		size_t rl = strlen(web_root), ql = strlen(rel);
		if (rl + ql >= sizeof full)
			return net_http_error(c, 404, "not_found", "no such file");
		memcpy(full, web_root, rl);
		memcpy(full + rl, rel, ql + 1);
		if (realpath(full, real) && !strncmp(real, web_root, rl) && real[rl] == '/' &&
		    !stat(real, &sb) && S_ISREG(sb.st_mode)) {
			c->answered = 1;
			int n = lws_serve_http_file(c->wsi, real, mime_of(real), NULL, 0);
			if (n < 0)
				return -1;
			if (n > 0 && lws_http_transaction_completed(c->wsi))
				return -1;
			return 0;
		}
	}
	if (!strcmp(rel, "/index.html")) {
		char *s = srv_xstrdup(FALLBACK_PAGE);
		return net_http_send(c, 200, "text/html; charset=utf-8", s, strlen(s), NULL, NULL);
	}
	return net_http_error(c, 404, "not_found", "no such file");
}

