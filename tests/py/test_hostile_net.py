"""Hostile clients against the transport of `carc serve` (src/server/transport/net.c):
request bodies and lengths that froze or leaked, WebSocket handshakes from
other sites and with a token in the URL, frames the protocol does not take,
the response headers, and the per-address and total-queue limits.

Every server runs on 127.0.0.1 and is stopped with SIGTERM at the end of its
test (so that LeakSanitizer runs under the ASan build), its log checked for
sanitizer reports. Every loop is bounded in count and time.

Run: CARC=build/test/carc python3 tests/py/test_hostile_net.py
     CARC=build/san-clang/carc python3 tests/py/test_hostile_net.py
"""
import base64
import hashlib
import json
import os
import re
import signal
import socket
import struct
import http.client
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, HOST, ServerCase, WebSocket, WSClosed  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")


def sanitized_build():
    """True when CARC was built with ASan (its RSS says nothing about leaks:
    freed memory waits in ASan's quarantine)."""
    try:
        with open(CARC, "rb") as f:
            return b"AddressSanitizer" in f.read()
    except OSError:
        return False


SANITIZED = sanitized_build()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def http_status(raw):
    """The status code of a raw HTTP answer (None when there is none)."""
    m = re.match(rb"HTTP/1\.[01] (\d{3})", raw)
    return int(m.group(1)) if m else None


def http_split(raw):
    """(status, headers as a lower-case dict, body bytes) of a raw answer."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return http_status(raw), hdrs, body


def ws_handshake(port, path, headers=None, timeout=5):
    """Sends a WebSocket upgrade by hand; returns the raw answer (up to the
    close or `timeout`) and the socket (still open when it was accepted)."""
    sock = socket.create_connection((HOST, port), timeout=timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join("%s: %s\r\n" % kv for kv in (headers or {}).items())
    sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                  "Sec-WebSocket-Version: 13\r\n%s\r\n" % (path, HOST, port, key, extra)).encode())
    out = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        sock.settimeout(max(0.01, deadline - time.time()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        out += chunk
        if out.startswith(b"HTTP/1.1 101") and b"\r\n\r\n" in out:
            break
    return out, sock


def read_close(w, timeout=5):
    """Reads frames until the server's close frame; returns (code, reason).
    (None, b"") when the connection ends without one."""
    deadline = time.time() + timeout
    try:
        while True:
            b0, b1 = w._read(2, deadline)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", w._read(2, deadline))[0]
            elif n == 127:
                n = struct.unpack(">Q", w._read(8, deadline))[0]
            data = w._read(n, deadline)
            if op == 8:
                code = struct.unpack(">H", data[:2])[0] if len(data) >= 2 else None
                return code, data[2:]
    except (WSClosed, ConnectionResetError, OSError):
        return None, b""


def send_unmasked(w, payload, opcode=1):
    """A client frame without a mask (RFC 6455 5.1: the server must close)."""
    n = len(payload)
    assert n < 126
    w.sock.sendall(bytes([0x80 | opcode, n]) + payload)


class HostileNetTest(ServerCase):
    def tearDown(self):
        # SIGTERM, so that LeakSanitizer runs; then the log must be clean
        for w in self.sockets:
            w.close()
        self.sockets = []
        for s in self.servers:
            if s.proc.poll() is None:
                s.stop()
            log = s.read_log()
            for mark in SANITIZER_MARKS:
                self.assertNotIn(mark, log, "sanitizer report in the server log:\n" + log[-4000:])
        super().tearDown()

    def start_env(self, extra=(), web=None, env=None):
        """A server with extra environment variables (e.g. ASAN_OPTIONS)."""
        old = {k: os.environ.get(k) for k in (env or {})}
        os.environ.update(env or {})
        try:
            return self.start(db="carc-%d.sqlite" % len(self.servers), extra=extra, web=web)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def assert_healthy(self, srv, within=2.0):
        """The server answers /api/health within `within` seconds."""
        t = time.time()
        try:
            st, h, _ = srv.get("/api/health", timeout=within + 1)
        except OSError as e:
            self.fail("no answer to /api/health: %s" % e)
        took = time.time() - t
        self.assertEqual(st, 200, h)
        self.assertLess(took, within, "health took %.2f s" % took)

    def assert_stops(self, srv, within=5.0):
        """SIGTERM stops the server within `within` seconds, with status 0."""
        srv.proc.send_signal(signal.SIGTERM)
        try:
            rc = srv.proc.wait(within)
        except subprocess.TimeoutExpired:
            self.fail("SIGTERM did not stop the server in %.0f s" % within)
        self.assertEqual(rc, 0, srv.read_log()[-2000:])

    # -- defect 1 --------------------------------------------------------------

    def test_connection_close_is_answered_with_close(self):
        # a proxy that keeps upstream connections (nginx with keepalive)
        # reuses a connection unless the answer says it closes: without the
        # header it sent the next request on a closing connection (502
        # "upstream prematurely closed" in test_pg.py's nginx test)
        srv = self.start()
        t0 = time.time()
        out = srv.raw(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                      timeout=5)
        head = out.split(b"\r\n\r\n", 1)[0].lower()
        self.assertTrue(head.startswith(b"http/1.1 200"), out[:80])
        self.assertIn(b"\r\nconnection: close", head)
        self.assertLess(time.time() - t0, 4)  # closed by the server, not the timeout
        out = srv.raw(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout=1)
        self.assertNotIn(b"connection: close", out.lower())  # keep-alive stays

    def test_bodies_that_froze_the_loop(self):
        """curl -X POST -d '' and friends spun the loop at 100% CPU forever
        (the body buffer grew from capacity 0 by doubling)."""
        srv = self.start()
        cases = [
            # (request, expected status)
            (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
             b"Connection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n",
             201),
            (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n{}", 400),
            (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n{}", 400),
            (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1e3\r\n\r\n{}", 400),
            (b"PUT / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
             b"hello", 405),
            (b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
             b"Connection: close\r\n\r\nhello", 200),
            # no length at all: no body (RFC 9112 6.3), answered at once
            (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 201),
        ]
        for req, want in cases:
            t = time.time()
            out = srv.raw(req, timeout=3, shut=False)
            took = time.time() - t
            st, hdrs, body = http_split(out)
            self.assertEqual(st, want, (req, out[:300]))
            if st >= 400:
                self.assertEqual(json.loads(body)["error"]["code"],
                                 {400: "malformed", 405: "method_not_allowed"}[st], body)
            if req.startswith(b"POST") and b"Content-Length: 0" not in req:
                # a length the server cannot trust: answered at once, then closed
                self.assertLess(took, 2.5, (req, took))
            self.assert_healthy(srv)
        # one keep-alive connection: a body (PUT and POST), then more requests
        conn = http.client.HTTPConnection(HOST, srv.port, timeout=3)
        for method, path, body, want in (("PUT", "/", b"hello", 405),
                                         ("POST", "/api/tables", b'{"players":3}', 201),
                                         ("GET", "/api/health", b"xyz", 200),
                                         ("GET", "/api/health", None, 200)):
            conn.request(method, path, body=body)
            r = conn.getresponse()
            r.read()
            self.assertEqual(r.status, want, (method, path))
        conn.close()
        self.assert_stops(srv)

    # -- defect 2 --------------------------------------------------------------

    def test_early_413_and_static_posts_do_not_leak(self):
        """A body answered early (413 for POST /api/records with
        Content-Length 2000000, 405 for a POST to a static file) leaked
        about 52 KB a request."""
        srv = self.start_env(env={"ASAN_OPTIONS": os.environ.get(
            "ASAN_OPTIONS", "") + ":detect_leaks=1"})
        head = (b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 2000000\r\n\r\n")
        # answered before the body is sent, and the connection is closed
        out = srv.raw(head, timeout=3)
        st, hdrs, body = http_split(out)
        self.assertEqual(st, 413, out[:300])
        self.assertEqual(json.loads(body)["error"]["code"], "too_large")
        self.assertEqual(hdrs.get("connection"), "close")

        big = head + b"x" * 2000000
        static = (b"POST /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 12000\r\n\r\n"
                  + b"y" * 12000)

        def one(req):
            sock = socket.create_connection((HOST, srv.port), timeout=3)
            try:
                try:
                    sock.sendall(req)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server answered and closed before all was sent
                try:
                    sock.shutdown(socket.SHUT_WR)
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                return http_status(data)
            finally:
                sock.close()

        for _ in range(20):  # warm up: the allocator's pools, sqlite's cache
            one(big)
            one(static)
        before = rss_kb(srv.proc.pid)
        statuses = set()
        deadline = time.time() + 20
        n = 0
        while n < 300 and time.time() < deadline:
            statuses.add(one(big))
            statuses.add(one(static))
            n += 1
        self.assertGreaterEqual(n, 100, "too slow: %d requests in 20 s" % n)
        statuses.discard(None)  # a reset before the answer was read
        self.assertLessEqual(statuses, {413, 405}, statuses)
        grown = rss_kb(srv.proc.pid) - before
        if not SANITIZED:
            self.assertLess(grown, 4096, "RSS grew by %d KB over %d requests" % (grown, 2 * n))
        self.assert_healthy(srv)
        self.assert_stops(srv)
        self.assertNotIn("LeakSanitizer", srv.read_log())

    # -- defect 12 (chunked) ---------------------------------------------------

    def test_chunked_body_is_answered_at_once(self):
        """A chunked POST body got no answer at all."""
        srv = self.start()
        req = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
               b"Content-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
        t = time.time()
        out = srv.raw(req, timeout=3)
        self.assertLess(time.time() - t, 2.5, "no answer, or the connection stayed open")
        st, hdrs, body = http_split(out)
        self.assertEqual(st, 411, out[:300])
        self.assertEqual(json.loads(body)["error"]["code"], "length_required")
        self.assert_healthy(srv)
        # nothing was created
        st, tables, _ = srv.get("/api/tables?status=all")
        self.assertEqual(tables["tables"] if isinstance(tables, dict) else tables, [])

    # -- defect 8 --------------------------------------------------------------

    def test_websocket_origin_is_checked(self):
        """A page of another site could open a WebSocket with the player's
        cookie and get the seat."""
        srv = self.start(extra=["--allow-origin", "https://carc.example.org",
                                "--allow-origin", "http://lan-box:8080/"])
        c = srv.create(players=2, name="alice")
        tid, token = c["id"], c["token"]
        cookie = "carc_%s=%s" % (tid, token)
        own = "http://%s:%d" % (HOST, srv.port)
        refused = ["http://evil.example", "https://evil.example", "null",
                   own + ".evil.example", "http://%s:%d" % (HOST, srv.port + 1),
                   "ftp://%s:%d" % (HOST, srv.port), "http://carc.example.org",
                   "https://carc.example.org:8443", "x" * 400]
        for origin in refused:
            for cred in ({"Cookie": cookie}, {"Authorization": "Bearer " + token}):
                out, sock = ws_handshake(srv.port, "/ws/" + tid, dict(cred, Origin=origin))
                sock.close()
                st, hdrs, body = http_split(out)
                self.assertEqual(st, 403, (origin, out[:200]))
                self.assertEqual(json.loads(body)["error"]["code"], "bad_origin")
        allowed = [own, "https://%s:%d" % (HOST, srv.port), "HTTP://%s:%d" % (HOST, srv.port),
                   "https://carc.example.org", "https://CARC.example.org:443",
                   "http://lan-box:8080"]
        for origin in allowed:
            w = self.ws(srv, tid, headers={"Cookie": cookie, "Origin": origin})
            self.assertEqual(w.recv_type("state").get("you"), {"seat": 0}, origin)
            w.close()
        # a script sends no Origin: it still works, with the cookie or a header
        w = self.ws(srv, tid, headers={"Cookie": cookie})
        self.assertEqual(w.recv_type("state").get("you"), {"seat": 0})
        w = self.ws(srv, tid, token)
        self.assertEqual(w.recv_type("state").get("you"), {"seat": 0})
        self.assert_healthy(srv)

    # -- defect 11, tokens ------------------------------------------------------

    def test_token_never_in_the_url(self):
        """?token= in the WebSocket URL is refused with a clear error; the
        header, the cookie and a first auth message work."""
        srv = self.start()
        c = srv.create(players=2, name="alice")
        tid, ta = c["id"], c["token"]
        tb = srv.join(tid, "bob")["token"]
        for path in ("/ws/%s?token=%s" % (tid, ta), "/ws/%s?x=1&token=%s" % (tid, ta),
                     "/ws/%s?token=" % tid):
            out, sock = ws_handshake(srv.port, path)
            sock.close()
            st, hdrs, body = http_split(out)
            self.assertEqual(st, 400, (path, out[:200]))
            err = json.loads(body)["error"]
            self.assertEqual(err["code"], "token_in_url")
            self.assertIn("header", err["message"])
        self.assertNotIn(ta, srv.read_log())
        # Authorization: Bearer (what Server.ws sends)
        w = self.ws(srv, tid, ta)
        self.assertEqual(w.recv_type("state").get("you"), {"seat": 0})
        # X-Carc-Token, however it is spelled
        for name in ("X-Carc-Token", "x-carc-token"):
            w = self.ws(srv, tid, headers={name: tb})
            self.assertEqual(w.recv_type("state").get("you"), {"seat": 1}, name)
        # the cookie
        w = self.ws(srv, tid, headers={"Cookie": "carc_%s=%s" % (tid, tb)})
        self.assertEqual(w.recv_type("state").get("you"), {"seat": 1})
        # nothing on the handshake, then the first message
        w = self.ws(srv, tid)
        self.assertIsNone(w.recv_type("state").get("you"))
        w.send({"type": "auth", "token": ta, "ref": 1})
        self.assertEqual(w.recv_type("state").get("you"), {"seat": 0})
        w.send({"type": "auth", "token": "0" * 32, "ref": 2})
        self.assertEqual(w.recv_type("error")["code"], "bad_token")

    def test_security_headers_on_every_answer(self):
        web = os.path.join(self.dir, "web")
        os.makedirs(web)
        with open(os.path.join(web, "index.html"), "w") as f:
            f.write("<!doctype html><title>carc</title>hello")
        with open(os.path.join(web, "app.js"), "w") as f:
            f.write("console.log('carc')")
        srv = self.start(web=web)
        bare = self.start_env()  # no web folder: the placeholder page

        def check(hdrs, what):
            hdrs = {k.lower(): v for k, v in hdrs.items()}
            csp = hdrs.get("content-security-policy", "")
            for part in ("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'",
                         "object-src 'none'", "connect-src 'self' ws: wss:"):
                self.assertIn(part, csp, what)
            self.assertNotIn("unsafe-eval", csp, what)
            self.assertNotIn("'unsafe-inline'", csp.split("script-src")[1].split(";")[0], what)
            self.assertEqual(hdrs.get("x-content-type-options"), "nosniff", what)
            self.assertEqual(hdrs.get("x-frame-options"), "DENY", what)
            self.assertIn(hdrs.get("referrer-policy"), ("no-referrer", "same-origin"), what)

        for path, want in (("/api/health", 200), ("/api/tiles", 200), ("/", 200),
                           ("/app.js", 200), ("/nothere.js", 404), ("/api/nothing", 404),
                           ("/a%01b", 400)):
            st, _, hdrs = srv.get(path)
            self.assertEqual(st, want, path)
            check(hdrs, path)
        st, _, hdrs = srv.http("POST", "/api/tables", raw="{oops")
        self.assertEqual(st, 400)
        check(hdrs, "400 from the API")
        st, _, hdrs = srv.http("DELETE", "/app.js")
        self.assertEqual(st, 405)
        check(hdrs, "405")
        st, body, hdrs = bare.get("/")
        self.assertEqual(st, 200)
        self.assertIn("carc serve", body)
        check(hdrs, "the placeholder page")
        # answers sent before a body is read, and a refused handshake
        for raw in (b"GET x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  # refused by lws itself
                    b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n",
                    b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999\r\n\r\n",
                    b"GET /ws/x?token=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    b"Sec-WebSocket-Version: 13\r\n\r\n",
                    b"GET /api/health HTTP/1.1\r\nHost: evil.example\r\n\r\n",  # 421
                    b"GET /ws/x HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\n"
                    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    b"Sec-WebSocket-Version: 13\r\n\r\n"):
            st, hdrs, _ = http_split(srv.raw(raw, timeout=3))
            self.assertIn(st, (400, 403, 413, 421), raw)
            check(hdrs, raw[:40])

    def test_web_client_fits_the_content_policy(self):
        """The policy allows scripts from files only: no page of the web
        client may carry an inline script, an inline event handler or a
        javascript: URL."""
        pages = []
        for d, _, files in os.walk(os.path.join(ROOT, "web")):
            pages += [os.path.join(d, f) for f in files if f.endswith(".html")]
        self.assertTrue(pages)
        for p in pages:
            with open(p, encoding="utf-8") as f:
                html = f.read()
            for m in re.finditer(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I):
                self.assertIn("src=", m.group(1), "%s: an inline script" % p)
                self.assertEqual(m.group(2).strip(), "", p)
            self.assertIsNone(re.search(r"<[^>]+\son[a-z]+\s*=", html, re.I),
                              "%s: an inline event handler" % p)
            self.assertNotIn("javascript:", html.lower(), p)
        with open(os.path.join(ROOT, "web", "js", "api.js"), encoding="utf-8") as f:
            self.assertNotIn("?token=", f.read(), "the web client puts the token in the URL")

    # -- defect 12 (frames) ----------------------------------------------------

    @unittest.expectedFailure
    def test_unmasked_frames_close_the_connection(self):
        """RFC 6455 5.1: a server must close on an unmasked client frame
        (1002). libwebsockets 4.1 unmasks what is masked and passes on what
        is not, and its API does not tell a callback which it was: not
        enforced yet (browsers always mask, so a page cannot use this)."""
        srv = self.start()
        tid = srv.create(players=2)["id"]
        w = self.ws(srv, tid)
        w.recv_type("state")
        send_unmasked(w, b'{"type":"ping"}')
        code, reason = read_close(w, timeout=2)
        self.assertEqual(code, 1002, reason)

    def test_binary_frames_close_the_connection(self):
        srv = self.start()
        tid = srv.create(players=2)["id"]
        w = self.ws(srv, tid)
        w.recv_type("state")
        w.send_frame(b'{"type":"ping"}', opcode=2)
        code, reason = read_close(w)
        self.assertEqual(code, 1003, reason)
        self.assertIn(b"text", reason)

        # a well-formed client next to them is unaffected
        w = self.ws(srv, tid)
        w.recv_type("state")
        w.send({"type": "ping", "ref": 7})
        self.assertEqual(w.recv_type("pong")["ref"], 7)
        self.assert_healthy(srv)

    def test_malformed_json_with_bytes_that_are_not_utf8_is_answered(self):
        # the WebSocket fuzzer (fuzz_ws) found a message that got no answer
        # at all: jansson's error text quotes the bad input, and an error
        # message with bytes that are not UTF-8 could not be made into JSON
        srv = self.start()
        tid = srv.create(players=2)["id"]
        w = self.ws(srv, tid)
        w.recv_type("state")
        bad = b'{"\\\xc2\xab3\xfd\x7f\x00\x00ndo"}'
        # a text frame is UTF-8 to a browser; a client need not be one
        w.send_frame(bad, opcode=1)
        try:
            e = w.recv_type("error", timeout=5)
            self.assertEqual(e["code"], "malformed", e)
        except WSClosed:
            pass  # libwebsockets may close on a text frame that is not UTF-8
        # the same in an HTTP body: a 400 that says why, as JSON
        st, r, _ = srv.http("POST", "/api/tables", raw=bad)
        self.assertEqual(st, 400, r)
        self.assertEqual(r["error"]["code"], "malformed", r)
        self.assertIn("JSON", r["error"]["message"])
        # the connection and the server go on
        w = self.ws(srv, tid)
        w.recv_type("state")
        w.send({"type": "ping", "ref": 8})
        self.assertEqual(w.recv_type("pong")["ref"], 8)
        self.assert_healthy(srv)

    # -- limits --------------------------------------------------------------------

    def test_connections_per_address(self):
        srv = self.start(extra=["--max-conns-per-addr", "4"])
        tid = srv.create(players=2)["id"]
        open_ws = []
        for _ in range(4):
            w = self.ws(srv, tid)
            w.recv_type("state")
            open_ws.append(w)
        # a fifth: the handshake is refused, and so is an HTTP request
        out, sock = ws_handshake(srv.port, "/ws/" + tid)
        sock.close()
        st, hdrs, body = http_split(out)
        self.assertEqual(st, 429, out[:200])
        self.assertEqual(json.loads(body)["error"]["code"], "rate_limited")
        self.assertGreater(int(hdrs["retry-after"]), 0)
        st, body, hdrs = srv.get("/api/health", timeout=3)
        self.assertEqual(st, 429)
        self.assertEqual(body["error"]["code"], "rate_limited")
        self.assertGreater(int({k.lower(): v for k, v in hdrs.items()}["retry-after"]), 0)
        # the four keep working
        for i, w in enumerate(open_ws):
            w.send({"type": "ping", "ref": i})
            self.assertEqual(w.recv_type("pong")["ref"], i)
        # one goes: a new connection is taken again
        open_ws.pop().close()
        deadline = time.time() + 5
        while True:
            out, sock = ws_handshake(srv.port, "/ws/" + tid, timeout=3)
            sock.close()
            if out.startswith(b"HTTP/1.1 101"):
                break
            self.assertEqual(http_status(out), 429, out[:200])
            self.assertLess(time.time(), deadline, "the closed connection still counts")
            time.sleep(0.1)
        for w in open_ws:
            w.close()
        deadline = time.time() + 5
        while srv.get("/api/health", timeout=3)[0] != 200:
            self.assertLess(time.time(), deadline)
            time.sleep(0.1)

    def test_connection_flood_from_one_address_leaves_others_served(self):
        """One address holds its limit of idle connections and hammers the
        server with more; a client from another loopback address (127.0.0.2)
        is served all along."""
        srv = self.start(extra=["--max-conns-per-addr", "16"])
        held = []
        for _ in range(40):  # 16 are taken, 24 are refused at their request
            held.append(socket.create_connection((HOST, srv.port), timeout=3))
        stop = time.time() + 2.0
        counts = {"sent": 0, 429: 0, 200: 0, "other": 0}

        def flood():
            while time.time() < stop:
                try:
                    s = socket.create_connection((HOST, srv.port), timeout=2)
                    s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    st = http_status(s.recv(4096))
                    s.close()
                except OSError:
                    st = None
                counts["sent"] += 1
                counts[st if st in (200, 429) else "other"] += 1

        threads = [threading.Thread(target=flood) for _ in range(2)]
        for t in threads:
            t.start()
        lat = []
        try:
            while time.time() < stop:
                c = http.client.HTTPConnection(HOST, srv.port, timeout=3,
                                               source_address=("127.0.0.2", 0))
                t0 = time.time()
                c.request("GET", "/api/health")
                r = c.getresponse()
                r.read()
                lat.append(time.time() - t0)
                c.close()
                self.assertEqual(r.status, 200)
                time.sleep(0.02)
        finally:
            for t in threads:
                t.join(5)
            for h in held:
                h.close()
        lat.sort()
        print("\n  flood from 127.0.0.1: %d requests in 2 s (%d answered 429, %d 200, %d other);"
              " health from 127.0.0.2: n=%d p50 %.1f ms max %.1f ms"
              % (counts["sent"], counts[429], counts[200], counts["other"], len(lat),
                 1000 * lat[len(lat) // 2], 1000 * lat[-1]), file=sys.stderr)
        self.assertGreater(counts[429], 0)
        self.assertEqual(counts[200], 0, "the flood got past the limit")
        self.assertGreater(len(lat), 10)
        self.assertLess(lat[len(lat) // 2], 0.25, "health p50 during the flood")

    def test_total_queue_cap_drops_the_largest_slow_reader(self):
        """Each slow client stays under --max-queue, but together they pass
        --max-queue-total: the one with the largest queue goes."""
        srv = self.start(extra=["--max-queue", str(4 << 20), "--max-queue-total", str(256 << 10)])
        tid = srv.create(players=2)["id"]
        fast = self.ws(srv, tid)
        state_len = len(json.dumps(fast.recv_type("state")))
        slow_big = self.ws(srv, tid, rcvbuf=2048)
        slow_small = self.ws(srv, tid, rcvbuf=2048)
        # ask for far more than the kernel's buffers and 256 KiB hold (and
        # less than 4 MiB): the answers queue up on the server
        n_big = min(2000, (3 << 20) // state_len)
        sent = 0
        try:
            for i in range(n_big):
                slow_big.send({"type": "state"})
                sent += 1
        except (ConnectionResetError, BrokenPipeError):
            pass  # dropped while still asking: what the test wants
        for i in range(5):
            slow_small.send({"type": "state"})
        deadline = time.time() + 8
        while "--max-queue-total" not in srv.read_log():
            self.assertLess(time.time(), deadline, "nobody was dropped:\n" + srv.read_log()[-2000:])
            time.sleep(0.05)
        self.assertNotIn("over --max-queue)", srv.read_log())
        # the big one is gone: reading it ends in a close within the time
        got = 0
        deadline = time.time() + 8
        with self.assertRaises((WSClosed, ConnectionResetError, TimeoutError)):
            while time.time() < deadline and got <= n_big:
                slow_big.recv(timeout=max(0.01, deadline - time.time()))
                got += 1
            raise AssertionError("still open after %d messages" % got)
        self.assertLess(got, sent, "every answer arrived: nothing was dropped")
        # the small one and the fast one are still served
        for w in (slow_small, fast):
            w.send({"type": "ping", "ref": "p"})
            self.assertEqual(w.recv_type("pong", timeout=8)["ref"], "p")
        self.assert_healthy(srv)


if __name__ == "__main__":
    unittest.main(verbosity=2)
