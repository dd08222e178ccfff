"""Hostile web clients against `carc serve` (issue 21, second round): a page
of another site using a player's cookies (login, logout and resign CSRF,
text/plain bodies), the seat cookie of /claim, X-Real-IP behind a trusted
proxy, and /api/metrics and /api/health under a flood.

A browser sends `Origin` on every POST (and `Sec-Fetch-Site`); a page of
another site can send a "simple" POST (text/plain, a form) with the
victim's cookies. The server refuses a state-changing API request whose
Origin is not its own (or --allow-origin), whose Sec-Fetch-Site is
cross-site, or that carries a carc cookie with neither header; and a body
that is not application/json. Scripts (no Origin, a Bearer token or no
credentials at all) keep working.

Every server runs on 127.0.0.1; every loop is bounded in count and time.

Run: CARC=build/test/carc python3 tests/py/test_hostile_web.py
"""
import http.client
import json
import os
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import HOST, ServerCase, WebSocket, first_legal  # noqa: E402

EVIL = "http://evil.example"
PW = "correct horse battery"


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(port, method, path, body=None, headers=None, timeout=10, source=None):
    """A raw-ish request: `body` is sent as given (bytes or str), the headers
    exactly as given (no Content-Type added). Returns (status, JSON or text,
    headers with lower-case names)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    data = body.encode() if isinstance(body, str) else body
    conn.request(method, path, body=data, headers=dict(headers or {}))
    r = conn.getresponse()
    text = r.read().decode(errors="replace")
    conn.close()
    try:
        val = json.loads(text)
    except ValueError:
        val = text
    return r.status, val, {k.lower(): v for k, v in r.getheaders()}


def code_of(val):
    return val.get("error", {}).get("code") if isinstance(val, dict) else None


def session_of(hdrs):
    sc = hdrs.get("set-cookie", "")
    if not sc.startswith("carc_session="):
        return None
    return sc.split(";", 1)[0].split("=", 1)[1]


class CrossSiteTest(ServerCase):
    """Origin, Sec-Fetch-Site and Content-Type on state-changing requests."""

    def own(self, srv):
        return "http://%s:%d" % (HOST, srv.port)

    def register(self, srv, name):
        st, r, h = request(srv.port, "POST", "/api/account/register",
                           json.dumps({"name": name, "password": PW}),
                           {"Content-Type": "application/json"})
        self.assertEqual(st, 201, r)
        return session_of(h)

    def test_login_csrf_is_refused(self):
        srv = self.start()
        self.register(srv, "alice")
        body = json.dumps({"name": "alice", "password": PW})
        # the attack: a text/plain form post from another site's page
        st, r, h = request(srv.port, "POST", "/api/account/login", body,
                           {"Content-Type": "text/plain", "Origin": EVIL})
        self.assertEqual((st, code_of(r)), (403, "bad_origin"), r)
        self.assertNotIn("set-cookie", h)
        self.assertIn("evil.example", r["error"]["message"])
        # the same with a JSON type: the Origin alone refuses it
        st, r, h = request(srv.port, "POST", "/api/account/login", body,
                           {"Content-Type": "application/json", "Origin": EVIL})
        self.assertEqual((st, code_of(r)), (403, "bad_origin"), r)
        self.assertNotIn("set-cookie", h)
        # a browser that sends no Origin but says where the request comes from
        st, r, h = request(srv.port, "POST", "/api/account/login", body,
                           {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"})
        self.assertEqual((st, code_of(r)), (403, "bad_origin"), r)
        # a body that is not JSON by its type, from anywhere (even the site itself)
        for ctype in ("text/plain", "text/plain; charset=utf-8",
                      "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                      "application/jsonx", None):
            hdrs = {"Origin": self.own(srv)}
            if ctype:
                hdrs["Content-Type"] = ctype
            st, r, h = request(srv.port, "POST", "/api/account/login", body, hdrs)
            self.assertEqual((st, code_of(r)), (415, "bad_content_type"), (ctype, r))
            self.assertNotIn("set-cookie", h)
        st, r, h = request(srv.port, "POST", "/api/account/register",
                           json.dumps({"name": "bob", "password": PW}),
                           {"Content-Type": "text/plain"})
        self.assertEqual((st, code_of(r)), (415, "bad_content_type"), r)
        # the site's own page (and a script) log in
        for hdrs in ({"Origin": self.own(srv)}, {"Sec-Fetch-Site": "same-origin"}, {}):
            hdrs["Content-Type"] = "Application/JSON; charset=utf-8"
            st, r, h = request(srv.port, "POST", "/api/account/login", body, hdrs)
            self.assertEqual(st, 200, (hdrs, r))
            self.assertTrue(session_of(h), h)

    def test_seat_cookie_from_another_site_cannot_resign(self):
        srv = self.start()
        c = srv.create(players=2, name="alice")
        srv.join(c["id"], "bob")
        tid, token = c["id"], c["token"]
        cookie = {"Cookie": "carc_%s=%s" % (tid, token)}
        path = "/api/tables/%s/resign" % tid
        refused = [
            ({"Origin": EVIL}, "bad_origin"),
            ({"Origin": "null"}, "bad_origin"),
            ({"Origin": self.own(srv) + ".evil.example"}, "bad_origin"),
            ({"Origin": "http://%s:%d" % (HOST, srv.port + 1)}, "bad_origin"),
            ({"Sec-Fetch-Site": "cross-site"}, "bad_origin"),
            # a cookie with neither header: a browser would have said where
            # it came from; a script sends its token in a header instead
            ({}, "bad_origin"),
            ({"Origin": self.own(srv), "Content-Type": "text/plain"}, "bad_content_type"),
        ]
        for extra, code in refused:
            hdrs = dict(cookie, **extra)
            hdrs.setdefault("Content-Type", "application/json")
            st, r, _ = request(srv.port, "POST", path, "{}", hdrs)
            self.assertEqual((st, code_of(r)), (403 if code == "bad_origin" else 415, code),
                             (extra, r))
            # an empty body with no type: the Origin still counts
            if code == "bad_origin":
                hdrs.pop("Content-Type")
                st, r, _ = request(srv.port, "POST", path, b"", dict(hdrs, **{"Content-Length": "0"}))
                self.assertEqual((st, code_of(r)), (403, code), (extra, r))
        st, s, _ = srv.get("/api/tables/%s" % tid)
        self.assertEqual(s["status"], "playing", s)
        # a move from another site with the cookie: refused too
        nxt = srv.state(tid, token=token)["game"]["next"]
        st, r, _ = request(srv.port, "POST", "/api/tables/%s/move" % tid,
                           json.dumps(first_legal(nxt)),
                           dict(cookie, **{"Origin": EVIL, "Content-Type": "application/json"}))
        self.assertEqual((st, code_of(r)), (403, "bad_origin"), r)
        # the site's own page resigns with the cookie
        st, r, _ = request(srv.port, "POST", path, "{}",
                           dict(cookie, **{"Origin": self.own(srv),
                                           "Content-Type": "application/json",
                                           "Sec-Fetch-Site": "same-origin"}))
        self.assertEqual(st, 200, r)

    def test_logout_csrf_is_refused(self):
        srv = self.start()
        sess = self.register(srv, "alice")
        cookie = {"Cookie": "carc_session=" + sess}
        for extra in ({"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}, {}):
            st, r, h = request(srv.port, "POST", "/api/account/logout", b"",
                               dict(cookie, **extra, **{"Content-Length": "0"}))
            self.assertEqual((st, code_of(r)), (403, "bad_origin"), (extra, r))
            self.assertNotIn("set-cookie", h)
        st, me, _ = request(srv.port, "GET", "/api/me", headers=cookie)
        self.assertEqual((st, me["account"]["name"]), (200, "alice"), me)
        st, r, h = request(srv.port, "POST", "/api/account/logout", "{}",
                           dict(cookie, **{"Origin": self.own(srv),
                                           "Content-Type": "application/json"}))
        self.assertEqual(st, 200, r)
        st, me, _ = request(srv.port, "GET", "/api/me", headers=cookie)
        self.assertEqual(st, 401, me)

    def test_scripts_and_allowed_origins_still_work(self):
        srv = self.start(extra=["--allow-origin", "https://carc.example.org"])
        # a script: no Origin, no cookie (curl -d sends a form type)
        st, r, _ = request(srv.port, "POST", "/api/tables", '{"players": 2}',
                           {"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(st, 201, r)
        # but from a browser the type counts
        st, r, _ = request(srv.port, "POST", "/api/tables", '{"players": 2}',
                           {"Content-Type": "text/plain", "Sec-Fetch-Site": "same-origin"})
        self.assertEqual((st, code_of(r)), (415, "bad_content_type"), r)
        # a script with a Bearer token
        c = srv.create(players=2, name="alice")
        j = srv.join(c["id"], "bob")
        tid = c["id"]
        nxt = srv.state(tid, token=c["token"])["game"]["next"]
        st, r, _ = request(srv.port, "POST", "/api/tables/%s/move" % tid,
                           json.dumps(first_legal(nxt)),
                           {"Content-Type": "application/json",
                            "Authorization": "Bearer " + c["token"]})
        self.assertEqual(st, 200, r)
        # a page of the allowed site, behind a proxy whose Host is another
        cookie = {"Cookie": "carc_%s=%s" % (tid, j["token"])}
        st, r, _ = request(srv.port, "POST", "/api/tables/%s/resign" % tid, "{}",
                           dict(cookie, **{"Origin": "https://carc.example.org",
                                           "Content-Type": "application/json"}))
        self.assertEqual(st, 200, r)
        # GET is not state-changing: any origin may read (the browser keeps
        # the answer from another site's script without CORS)
        st, r, _ = request(srv.port, "GET", "/api/tables/%s/state" % tid,
                           headers=dict(cookie, Origin=EVIL))
        self.assertEqual(st, 200, r)

    def test_claim_cookie_is_strict(self):
        srv = self.start()
        sess = self.register(srv, "alice")
        hdrs = {"Cookie": "carc_session=" + sess, "Origin": "http://%s:%d" % (HOST, srv.port),
                "Content-Type": "application/json"}
        st, t, h = request(srv.port, "POST", "/api/tables",
                           json.dumps({"name": "x", "players": 2}), hdrs)
        self.assertEqual(st, 201, t)
        self.assertIn("SameSite=Strict", h.get("set-cookie", ""))
        st, c, h = request(srv.port, "POST", "/api/tables/%s/claim" % t["id"], "{}", hdrs)
        self.assertEqual(st, 200, c)
        sc = h.get("set-cookie", "")
        self.assertTrue(sc.startswith("carc_%s=%s;" % (t["id"], c["token"])), sc)
        attrs = [a.strip() for a in sc.split(";")[1:]]
        self.assertIn("SameSite=Strict", attrs)
        self.assertIn("HttpOnly", attrs)
        self.assertNotIn("SameSite=Lax", attrs)


class RealIpTest(ServerCase):
    """X-Real-IP from a trusted proxy names the client (--trust-proxy)."""

    def creates(self, srv, headers, n=3):
        out = []
        for _ in range(n):
            st, _, _ = request(srv.port, "POST", "/api/tables", json.dumps({"players": 2}),
                               dict(headers, **{"Content-Type": "application/json"}))
            out.append(st)
        return out

    def test_x_real_ip_keys_the_limits(self):
        srv = self.start(extra=["--trust-proxy", "127.0.0.1", "--rate-tables", "2"])
        self.assertEqual(self.creates(srv, {"X-Real-IP": "198.51.100.1"}), [201, 201, 429])
        # another client behind the proxy has a budget of its own
        self.assertEqual(self.creates(srv, {"X-Real-IP": " 198.51.100.2 "}), [201, 201, 429])
        self.assertEqual(self.creates(srv, {"X-Real-IP": "2001:db8::7"}), [201, 201, 429])
        # and so has the proxy itself (no header)
        self.assertEqual(self.creates(srv, {}, 1), [201])
        # X-Forwarded-For comes first when both are there
        self.assertEqual(self.creates(srv, {"X-Forwarded-For": "203.0.113.4",
                                            "X-Real-IP": "198.51.100.1"}, 1), [201])

    def test_x_real_ip_of_an_untrusted_peer_is_ignored(self):
        srv = self.start(extra=["--trust-proxy", "10.0.0.1", "--rate-tables", "2"])
        self.assertEqual(self.creates(srv, {"X-Real-IP": "198.51.100.1"}), [201, 201, 429])
        self.assertEqual(self.creates(srv, {"X-Real-IP": "198.51.100.2"}, 1), [429])


class MonitoringTest(ServerCase):
    """/api/metrics for loopback (or its own listener); /api/health cached."""

    def test_metrics_only_for_loopback_by_default(self):
        srv = self.start(extra=["--trust-proxy", "127.0.0.1"])
        st, text, h = request(srv.port, "GET", "/api/metrics")
        self.assertEqual(st, 200, text)
        self.assertIn("carc_info", text)
        # a client the trusted proxy names is not loopback
        for hdrs in ({"X-Forwarded-For": "203.0.113.5"}, {"X-Real-IP": "203.0.113.5"}):
            st, r, _ = request(srv.port, "GET", "/api/metrics", headers=hdrs)
            self.assertEqual((st, code_of(r)), (403, "forbidden"), (hdrs, r))
            self.assertIn("--metrics-listen", r["error"]["message"])
        st, _, _ = request(srv.port, "GET", "/api/metrics", headers={"X-Real-IP": "127.0.0.9"})
        self.assertEqual(st, 200)
        # an untrusted loopback peer forwarding a remote client: refused too
        srv2 = self.start(db="b.sqlite")
        st, r, _ = request(srv2.port, "GET", "/api/metrics",
                           headers={"X-Forwarded-For": "203.0.113.5"})
        self.assertEqual((st, code_of(r)), (403, "forbidden"), r)

    def test_metrics_listen(self):
        mport = free_port()
        srv = self.start(extra=["--metrics-listen", "127.0.0.1:%d" % mport])
        st, text, h = request(mport, "GET", "/api/metrics")
        self.assertEqual(st, 200, text)
        self.assertIn("carc_info", text)
        self.assertTrue(h["content-type"].startswith("text/plain; version=0.0.4"))
        st, hl, _ = request(mport, "GET", "/api/health")
        self.assertEqual((st, hl["ok"]), (200, True))
        # the main port has no metrics any more, even for loopback
        st, r, _ = request(srv.port, "GET", "/api/metrics")
        self.assertEqual((st, code_of(r)), (403, "forbidden"), r)
        # the metrics listener answers nothing else: no API, no files, no WebSocket
        for path in ("/api/tables", "/", "/index.html", "/api/tiles"):
            st, r, _ = request(mport, "GET", path)
            self.assertEqual((st, code_of(r)), (404, "not_found"), (path, r))
        st, r, _ = request(mport, "POST", "/api/tables", "{}",
                           {"Content-Type": "application/json"})
        self.assertEqual(st, 404, r)
        c = srv.create(players=2)
        with self.assertRaises(Exception):
            WebSocket(mport, "/ws/" + c["id"], timeout=5)
        # the main port still serves the rest
        self.assertEqual(request(srv.port, "GET", "/api/health")[0], 200)
        # a bad value is refused at start
        import subprocess
        from carcserver import CARC
        for bad in ("9100", "127.0.0.1:", "127.0.0.1:70000", ":x"):
            p = subprocess.run([CARC, "serve", "--metrics-listen", bad], capture_output=True,
                               text=True, timeout=10)
            self.assertEqual(p.returncode, 2, (bad, p.stderr))
            self.assertIn("--metrics-listen", p.stderr)

    def test_health_is_a_cached_snapshot(self):
        srv = self.start(extra=["--health-cache", "5000"])
        t0 = time.time()
        # the first 10 of a window are fresh (a monitor sees exact numbers)
        for _ in range(10):
            st, h1, _ = request(srv.port, "GET", "/api/health")
            self.assertEqual(st, 200, h1)
        srv.create(players=2)
        st, h2, _ = request(srv.port, "GET", "/healthz")
        if time.time() - t0 < 4:
            self.assertEqual(h2, h1)  # the snapshot: the new table is not in it yet
        deadline = time.time() + 10
        while time.time() < deadline:
            st, h3, _ = request(srv.port, "GET", "/api/health")
            if h3["tables"] == 1:
                break
            time.sleep(0.2)
        self.assertEqual(h3["tables"], 1, h3)
        self.assertLess(time.time() - t0, 8)
        # a flood of health checks from one address: answered, cheaply
        n, end = 0, time.time() + 1.0
        conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
        while time.time() < end and n < 20000:
            conn.request("GET", "/api/health")
            r = conn.getresponse()
            r.read()
            self.assertEqual(r.status, 200)
            n += 1
        conn.close()
        self.assertGreater(n, 50)
        # with the cache off every answer is fresh
        srv2 = self.start(db="b.sqlite", extra=["--health-cache", "0"])
        for _ in range(12):
            st, a, _ = request(srv2.port, "GET", "/api/health")
        srv2.create(players=2)
        st, b, _ = request(srv2.port, "GET", "/api/health")
        self.assertEqual((a["tables"], b["tables"]), (0, 1))


if __name__ == "__main__":
    unittest.main(verbosity=2)
