"""Hostile clients at the edges of the server (issue 26, findings 11-13),
against the real server on loopback:

- a window that takes again the seat it holds already is answered alone:
  300 such messages made the server send 6,000 to the table's watchers;
- DNS rebinding: the server answers only the host names it serves
  (--host-name; by default its listening address and, on loopback,
  localhost); a request from loopback with `Host: evil.example` was
  treated as the server's own site (POST /api/tables 201, /api/metrics
  200, a WebSocket): now 421 `bad_host` and no WebSocket;
- a chat line with nothing visible in it (only U+200B, other format
  characters, blanks, fillers) is refused as an empty one;
- an account at a tutorial table (never rated) may take moves back.

Run: CARC=build/test/carc python3 tests/py/test_hostile_edges.py
"""
import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, HOST, ServerCase, Server  # noqa: E402
from test_undo import UndoCase  # noqa: E402

W1 = "1" * 16


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(port, method, path, host, body=None, headers=None, timeout=10):
    """A request to 127.0.0.1:port whose Host header is `host` (None: no
    Host header at all). Returns (status, JSON or text)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    if host is not None:
        conn.putheader("Host", host)
    for k, v in hdrs.items():
        conn.putheader(k, v)
    if data is not None:
        conn.putheader("Content-Length", str(len(data)))
    conn.endheaders(data)
    r = conn.getresponse()
    text = r.read().decode(errors="replace")
    conn.close()
    try:
        return r.status, json.loads(text)
    except ValueError:
        return r.status, text


def handshake(port, path, host, origin=None, timeout=5):
    """A WebSocket handshake with the given Host: what the server answered,
    its headers (and, for a refusal, the body up to the server's hang-up;
    b"" when it closed at once)."""
    sock = socket.create_connection((HOST, port), timeout=timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    req = ("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
           % (path, host, key, "Origin: %s\r\n" % origin if origin else ""))
    out = b""
    try:
        sock.sendall(req.encode())
        deadline = time.time() + timeout
        while time.time() < deadline:
            if b"\r\n\r\n" in out and out.split(b" ")[1:2] == [b"101"]:
                break  # upgraded: the server does not hang up
            chunk = sock.recv(4096)
            if not chunk:
                break
            out += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    finally:
        sock.close()
    return out


def code_of(v):
    return v.get("error", {}).get("code") if isinstance(v, dict) else None


class WindowsTest(ServerCase):
    def test_taking_a_held_seat_again_is_answered_to_the_asker_alone(self):
        srv = self.start()
        c = srv.create(name="Alice", players=2)
        j = srv.join(c["id"], "Bob")
        tid = c["id"]
        w = self.ws(srv, tid, c["token"])
        w.recv_type(("state",))
        w.send({"type": "window", "window": W1, "take": True})
        self.assertEqual(w.recv_type(("seat_window",))["window"], W1)
        # the other player and watchers, there after the take
        bob = self.ws(srv, tid, j["token"])
        watchers = [self.ws(srv, tid) for _ in range(5)]
        for x in [bob] + watchers:
            x.recv_type(("state",))
        n = 50
        for _ in range(n):
            w.send({"type": "window", "window": W1, "take": True})
        for _ in range(n):  # the asker is told each time
            m = w.recv_type(("seat_window", "error"))
            self.assertEqual((m["type"], m.get("window")), ("seat_window", W1), m)
        # the others hear nothing of it: nothing comes before the answer
        # to a ping sent after the asker had all its answers
        heard = []
        for x in [bob] + watchers:
            x.send({"type": "ping"})
            for _ in range(n + 5):
                m = x.recv(timeout=5)
                if m["type"] == "pong":
                    break
                heard.append(m["type"])
        self.assertEqual([t for t in heard if t == "seat_window"], [],
                         "%d seat_window messages to the others" % heard.count("seat_window"))
        # a real change of hands still reaches everyone
        w.send({"type": "window", "window": "2" * 16, "take": True})
        self.assertEqual(w.recv_type(("seat_window",))["window"], "2" * 16)
        for x in [bob] + watchers:
            self.assertEqual(x.recv_type(("seat_window",))["window"], "2" * 16)


class HostTest(ServerCase):
    EVIL = "evil.example"

    def assert_refused(self, port, host, path="/api/options", method="GET", body=None,
                       headers=None):
        st, r = request(port, method, path, host, body=body, headers=headers)
        self.assertEqual((st, code_of(r)), (421, "bad_host"), (host, path, r))
        return r

    def assert_served(self, port, host, path="/api/options"):
        st, r = request(port, "GET", path, host)
        self.assertEqual(st, 200, (host, path, r))

    def test_a_name_the_server_does_not_serve_gets_421_and_no_websocket(self):
        web = os.path.join(self.dir, "web")
        os.makedirs(web)
        with open(os.path.join(web, "index.html"), "w") as f:
            f.write("<!doctype html><title>carc</title>")
        srv = self.start(web=web)
        p = srv.port
        # a page of evil.example whose name now points at 127.0.0.1
        evil = {"Origin": "http://" + self.EVIL}
        r = self.assert_refused(p, self.EVIL, "/api/tables", "POST", {"players": 2}, evil)
        self.assertIn("--host-name", r["error"]["message"])
        self.assert_refused(p, "%s:%d" % (self.EVIL, p), "/api/metrics")
        self.assert_refused(p, self.EVIL, "/")
        self.assert_refused(p, self.EVIL, "/api/health")
        t = srv.create(players=2)
        head = handshake(p, "/ws/" + t["id"], "%s:%d" % (self.EVIL, p), "http://%s:%d" % (self.EVIL, p))
        self.assertEqual(head.split(b" ")[1:2], [b"421"], head[:200])
        self.assertNotIn(b"upgrade", head.split(b"\r\n\r\n")[0].lower())
        self.assertIn(b'"bad_host"', head)
        # names that only look like the server's
        for bad in ("127.0.0.1.evil.example", "localhost.evil.example", "evilocalhost",
                    "127.0.0.2", "[::1]:%d" % p, "localhost:%d@evil.example" % p, "0x7f000001"):
            self.assert_refused(p, bad)
        # its own: the listening address and, on loopback, localhost; the
        # port (any) does not count, nor case, nor a final dot
        for good in ("127.0.0.1:%d" % p, "127.0.0.1", "localhost", "localhost:%d" % p,
                     "LocalHost:%d" % p, "localhost.", "localhost.:%d" % p):
            self.assert_served(p, good)
        # a request without a Host (HTTP/1.0: no browser) is answered
        self.assert_served(p, None)
        self.assertEqual(request(p, "GET", "/", "127.0.0.1:%d" % p)[0], 200)
        head = handshake(p, "/ws/" + t["id"], "localhost:%d" % p, "http://localhost:%d" % p)
        self.assertTrue(head.startswith(b"HTTP/1.1 101"), head[:200])

    def test_host_name_adds_the_public_name(self):
        mport = free_port()
        srv = self.start(extra=["--host-name", "carc.example.org", "--host-name", "Play.Example.NET.",
                                "--host-name", "2001:DB8::1", "--host-name", "[2001:db8::2]",
                                "--host-name", "203.0.113.5",
                                "--metrics-listen", "127.0.0.1:%d" % mport])
        p = srv.port
        for good in ("carc.example.org", "CARC.example.org:443", "play.example.net",
                     "play.example.net.:8080", "127.0.0.1:%d" % p, "localhost",
                     "[2001:db8::1]:443", "[2001:db8:0::1]", "[2001:DB8::2]", "203.0.113.5:80"):
            self.assert_served(p, good)
        st, r = request(p, "POST", "/api/tables", "carc.example.org", {"players": 2},
                        {"Origin": "https://carc.example.org"})
        self.assertEqual(st, 201, r)
        for bad in (self.EVIL, "example.org", "www.carc.example.org", "carc.example.org.evil",
                    "[2001:db8::3]", "203.0.113.6", "carc.example.org:x", "carc.example.org:123456"):
            self.assert_refused(p, bad)
        # the metrics listener answers the same names, and its own address
        self.assertEqual(request(mport, "GET", "/api/metrics", "127.0.0.1:%d" % mport)[0], 200)
        self.assertEqual(request(mport, "GET", "/api/health", "carc.example.org")[0], 200)
        self.assert_refused(mport, self.EVIL, "/api/metrics")
        # a bad name is refused at start
        for bad in ("http://carc.example.org", "carc.example.org:443", "a b", "", "-x.org",
                    "x" * 300, "carc.example.org/"):
            pr = subprocess.run([CARC, "serve", "--host-name", bad], capture_output=True,
                                text=True, timeout=10)
            self.assertEqual(pr.returncode, 2, (bad, pr.stderr))
            self.assertIn("--host-name", pr.stderr)

    def test_on_every_address_the_default_is_addresses_and_localhost(self):
        # 0.0.0.0 names no host: without --host-name the server warns at
        # start and answers a Host that is an address (a rebinding needs a
        # name) or localhost
        srv = self.start(extra=["--host", "0.0.0.0"])
        p = srv.port
        for good in ("127.0.0.1:%d" % p, "10.1.2.3", "[::1]:%d" % p, "[2001:db8::1]",
                     "localhost:%d" % p):
            self.assert_served(p, good)
        for bad in (self.EVIL, "carc.example.org", "10.1.2.3.nip.io", "[::1"):
            self.assert_refused(p, bad)
        log = srv.read_log()
        self.assertIn("--host-name", log)
        self.assertIn("0.0.0.0", log)
        # with --host-name there is nothing to warn of
        srv2 = self.start(db="b.sqlite", extra=["--host", "0.0.0.0", "--host-name",
                                                 "carc.example.org"])
        self.assert_served(srv2.port, "carc.example.org")
        self.assert_served(srv2.port, "127.0.0.1:%d" % srv2.port)
        self.assertNotIn("--host-name", srv2.read_log())


class ChatTest(ServerCase):
    def test_a_line_with_nothing_visible_is_refused(self):
        srv = self.start(extra=["--chat-rate", "600", "--chat-burst", "100"])
        c = srv.create(name="Alice", players=2)
        j = srv.join(c["id"], "Bob")
        wa = self.ws(srv, c["id"], c["token"])
        wb = self.ws(srv, c["id"], j["token"])
        for w in (wa, wb):
            w.recv_type(("state",))
        invisible = ["\u200b", "\u200b\u200c\u200d", " \u200b\u00a0", "\u2060\u2063", "\u00ad",
                     "\u180e", "\u3164", "\u115f\u1160", "\uffa0", "\u2800", "\ufe0f",
                     "\U000e0041\U000e0042", "\u034f", "\u2000\u2003\u205f", "\u061c",
                     "\U0001d173"]
        for i, text in enumerate(invisible):
            wb.send({"type": "chat", "text": text, "ref": i})
            m = wb.recv_type(("error", "chat"))
            self.assertEqual((m["type"], m.get("code"), m.get("ref")), ("error", "malformed", i),
                             (repr(text), m))
        # visible text among them is a line
        for i, text in enumerate(["\u200bhi", "a\u200db", "\U0001f468\u200d\U0001f469", "\u00e9"]):
            wb.send({"type": "chat", "text": text})
            m = wa.recv_type(("chat",))
            self.assertEqual(m["text"], text)
        st, lst, _ = srv.get("/api/tables/%s/chat" % c["id"])
        self.assertEqual(len(lst["chat"]), 4, lst)


class TutorialUndoTest(UndoCase):
    def test_an_account_at_a_tutorial_table_may_undo(self):
        srv = self.start()
        hdrs = self.register(srv, "Learner")
        st, c, _ = srv.post("/api/tables", {"seats": [{}, {"bot": "medium"}], "seed": 9,
                                            "name": "Learner", "tutorial": True}, headers=hdrs)
        self.assertEqual(st, 201, c)
        self.assertEqual(c["table"].get("undo_seat"), 0, c["table"])
        mine = self.play(srv, c["id"], c["token"], 2)
        self.my_turn(srv, c["id"], c["token"])
        st, r, _ = self.undo(srv, c["id"], c["token"])
        self.assertEqual(st, 200, r)
        self.assertEqual((r["undone"], r["turn"]), (1, mine[-1]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
