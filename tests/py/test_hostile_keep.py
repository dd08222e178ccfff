"""Hostile clients against keeping an account (issue 26, findings 4, 5
and 13): seat tokens read with a stolen session must die with a password
change, a recovery or a deletion, while the session that remains gets
fresh ones; strangers flooding a name with wrong passwords and codes from
many addresses must not lock its owner out of login and recovery on a
browser that logged in before (a device cookie); a deleted account's name
must leave the SQLite file and its WAL, and its open table must not start
with a seat its old token still moves.

Each attacker has its own source address on loopback (127.0.0.x, a client
socket bound to it). Runs on SQLite, and on PostgreSQL under CARC_TEST_DB
(tests/pg/run.sh); the same with two processes is in test_pg_keep.py.

    CARC=build/test/carc python3 tests/py/test_hostile_keep.py
"""
import http.client
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import HOST, PG_ADMIN, ServerCase, first_legal  # noqa: E402
from test_accounts import PW, Client  # noqa: E402

NEW_PW = "battery staple 42"
ANON = "(deleted player)"


class Browser:
    """A browser on one loopback address: its cookies (every Set-Cookie of
    an answer is kept, as a browser does), its Origin."""

    def __init__(self, port, src="127.0.0.1"):
        self.port, self.src = port, src
        self.jar = {}

    def call(self, method, path, body=None, headers=None):
        if method == "POST" and body is None:
            body = {}
        hdrs = {"Origin": "http://%s:%d" % (HOST, self.port)}
        hdrs.update(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        if self.jar:
            hdrs["Cookie"] = "; ".join("%s=%s" % kv for kv in self.jar.items())
        conn = http.client.HTTPConnection(HOST, self.port, timeout=30,
                                          source_address=(self.src, 0))
        try:
            conn.request(method, path, body=data, headers=hdrs)
            r = conn.getresponse()
            text = r.read()
            cookies = r.msg.get_all("Set-Cookie") or []
        finally:
            conn.close()
        for sc in cookies:
            name, _, value = sc.split(";")[0].partition("=")
            if "Max-Age=0" in sc or not value:
                self.jar.pop(name, None)
            else:
                self.jar[name] = value
        try:
            val = json.loads(text)
        except ValueError:
            val = text
        return r.status, val, cookies

    def login(self, name, pw=PW):
        return self.call("POST", "/api/account/login", {"name": name, "password": pw})

    def recover(self, name, code, pw=NEW_PW):
        return self.call("POST", "/api/account/recover",
                         {"name": name, "code": code, "password": pw})


def my_token(client, tid):
    st, g, _ = client.call("GET", "/api/me/games")
    assert st == 200, g
    for x in g["games"]:
        if x["id"] == tid:
            return x.get("token")
    return None


class TokenCase(ServerCase):
    def tearDown(self):
        if os.environ.get("KEEP_DEBUG"):
            for s in self.servers:
                with open(s.log_path, errors="replace") as f:
                    sys.stderr.write(f.read()[-6000:])
        super().tearDown()

    def two_player(self, srv, a, b):
        """A game being played: a at seat 0 (to move first), b at seat 1."""
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        self.assertEqual(st, 201, t)
        st, j, _ = b.call("POST", "/api/tables/%s/join" % t["id"], {"name": "x"})
        self.assertEqual(st, 200, j)
        return t, j

    def move(self, srv, tid, token):
        nxt = srv.state(tid)["game"]["next"]
        return srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt), turn=nxt["turn"]),
                        token=token)

    def ws_move(self, srv, w, tid):
        nxt = srv.state(tid)["game"]["next"]
        w.send(dict(first_legal(nxt), type="move", turn=nxt["turn"], ref="m"))
        return w.recv_type(("error", "move"))

    def wait_seat_lost(self, w):
        """The WebSocket that held a seat with a revoked token is told so
        and sees the table as a spectator from then on."""
        deadline = time.time() + 10
        told = False
        while time.time() < deadline:
            try:
                m = w.recv(max(0.01, deadline - time.time()))
            except TimeoutError:
                break
            if m.get("type") == "error" and m.get("code") == "bad_token":
                told = True
            if m.get("type") == "state" and told:
                return m
        self.fail("the connection was not told that its seat's token was revoked")

    def revoked(self, srv, tid, stolen, w):
        """Everything a revoked token did before is refused now (the
        process that made the change has loaded the new hashes before it
        answered)."""
        st, r, _ = self.move(srv, tid, stolen)
        self.assertEqual((st, r.get("error", {}).get("code")), (403, "bad_token"), r)
        self.wait_seat_lost(w)
        m = self.ws_move(srv, w, tid)
        self.assertEqual((m["type"], m.get("code")), ("error", "bad_token"), m)
        st, r, _ = srv.post("/api/tables/%s/resign" % tid, {}, token=stolen)
        self.assertEqual((st, r.get("error", {}).get("code")), (403, "bad_token"), r)
        self.assertIsNone(srv.state(tid, token=stolen)["you"])
        # a new connection with it watches
        w2 = self.ws(srv, tid, stolen)
        m = w2.recv_type(("error",))
        self.assertEqual(m["code"], "bad_token")
        self.assertIsNone(w2.recv_type(("state",))["you"])


class TokenRevokeTest(TokenCase):
    def test_password_change_revokes_seat_tokens(self):
        srv = self.start()
        a, b = Client(srv), Client(srv)
        a.register("Alice")
        b.register("Bob")
        t, j = self.two_player(srv, a, b)
        tid = t["id"]
        # a finished game of Alice's too (its token asks for rematches)
        st, f, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, fj, _ = b.call("POST", "/api/tables/%s/join" % f["id"], {"name": "x"})
        self.assertEqual(self.move(srv, f["id"], f["token"])[0], 200)
        self.assertEqual(b.call("POST", "/api/tables/%s/resign" % f["id"], {},
                                token=fj["token"])[0], 200)
        self.wait_over(srv, f["id"])
        # the thief's stolen session (another of Alice's logins) reads her
        # seat tokens
        thief = Client(srv)
        self.assertEqual(thief.login("Alice")[0], 200)
        stolen = my_token(thief, tid)
        self.assertEqual(stolen, t["token"])
        st, c, _ = thief.call("POST", "/api/tables/%s/claim" % f["id"])
        stolen_over = c["token"]
        w = self.ws(srv, tid, stolen)
        self.assertEqual(w.recv_type(("state",))["you"]["seat"], 0)
        # Alice changes her password: the thief's session ends, and its tokens
        st, r, _ = a.call("POST", "/api/account/password", {"password": PW, "new_password": NEW_PW})
        self.assertEqual(st, 200, r)
        self.assertEqual(thief.call("GET", "/api/me")[0], 401)
        self.revoked(srv, tid, stolen, w)
        st, r, _ = srv.post("/api/tables/%s/rematch" % f["id"], {"token": stolen_over})
        self.assertEqual((st, r.get("error", {}).get("code")), (403, "bad_token"), r)
        # the session that remains gets fresh tokens, from both paths, and plays
        fresh = my_token(a, tid)
        self.assertTrue(fresh)
        self.assertNotEqual(fresh, stolen)
        st, c, _ = a.call("POST", "/api/tables/%s/claim" % tid)
        self.assertEqual((st, c["token"], c["seat"]), (200, fresh, 0))
        st, r, _ = self.move(srv, tid, fresh)
        self.assertEqual(st, 200, r)
        wf = self.ws(srv, tid, fresh)
        self.assertEqual(wf.recv_type(("state",))["you"]["seat"], 0)
        # and the finished game's fresh token asks for its rematch
        st, c, _ = a.call("POST", "/api/tables/%s/claim" % f["id"])
        self.assertNotEqual(c["token"], stolen_over)
        st, r, _ = srv.post("/api/tables/%s/rematch" % f["id"], {"token": c["token"]})
        self.assertEqual(st, 200, r)
        # after a restart the same
        srv.stop()
        srv = self.start()
        a.srv = srv
        self.assertEqual(self.move(srv, tid, stolen)[0], 403)
        self.assertEqual(my_token(a, tid), fresh)

    def test_recovery_revokes_seat_tokens(self):
        srv = self.start()
        a, b = Client(srv), Client(srv)
        codes = a.register("Alice")[1]["recovery_codes"]
        b.register("Bob")
        t, j = self.two_player(srv, a, b)
        tid = t["id"]
        thief = Client(srv)
        self.assertEqual(thief.login("Alice")[0], 200)
        stolen = my_token(thief, tid)
        w = self.ws(srv, tid, stolen)
        w.recv_type(("state",))
        owner = Client(srv)
        st, r, _ = owner.call("POST", "/api/account/recover",
                              {"name": "Alice", "code": codes[0], "password": NEW_PW})
        self.assertEqual(st, 200, r)
        self.assertEqual(thief.call("GET", "/api/me")[0], 401)
        self.revoked(srv, tid, stolen, w)
        fresh = my_token(owner, tid)
        self.assertNotEqual(fresh, stolen)
        st, r, _ = self.move(srv, tid, fresh)
        self.assertEqual(st, 200, r)

    def test_rematch_seat_kept_for_the_account(self):
        # a rematch keeps a seat for Alice; the token of the old game the
        # thief holds must not claim it once the password changed
        srv = self.start()
        a, b = Client(srv), Client(srv)
        a.register("Alice")
        b.register("Bob")
        st, f, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, fj, _ = b.call("POST", "/api/tables/%s/join" % f["id"], {"name": "x"})
        self.assertEqual(self.move(srv, f["id"], f["token"])[0], 200)
        self.assertEqual(b.call("POST", "/api/tables/%s/resign" % f["id"], {},
                                token=fj["token"])[0], 200)
        self.wait_over(srv, f["id"])
        stolen = f["token"]
        st, rm, _ = srv.post("/api/tables/%s/rematch" % f["id"], {"token": fj["token"]})
        self.assertEqual(st, 200, rm)
        st, r, _ = a.call("POST", "/api/account/password", {"password": PW, "new_password": NEW_PW})
        self.assertEqual(st, 200, r)
        st, r, _ = srv.post("/api/tables/%s/rematch" % f["id"], {"token": stolen})
        self.assertEqual((st, r.get("error", {}).get("code")), (403, "bad_token"), r)
        # the account claims it (from any browser of its own)
        st, c, _ = a.call("POST", "/api/tables/%s/claim" % rm["id"])
        self.assertEqual(st, 200, c)
        self.assertEqual(c["token"], my_token(a, rm["id"]))

    def test_delete_frees_open_tables_and_revokes(self):
        srv = self.start()
        name = "Zyxwvuts"
        a, b = Client(srv), Client(srv)
        a.register(name)
        b.register("Bob")
        # an open table of three: Alice, Bob, one seat open
        st, o, _ = a.call("POST", "/api/tables", {"name": "x", "players": 3})
        self.assertEqual(st, 201, o)
        st, oj, _ = b.call("POST", "/api/tables/%s/join" % o["id"], {"name": "x"})
        self.assertEqual(st, 200, oj)
        # a game being played, a finished one
        t, j = self.two_player(srv, a, b)
        st, f, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, fj, _ = b.call("POST", "/api/tables/%s/join" % f["id"], {"name": "x"})
        self.assertEqual(self.move(srv, f["id"], f["token"])[0], 200)
        self.assertEqual(b.call("POST", "/api/tables/%s/resign" % f["id"], {},
                                token=fj["token"])[0], 200)
        self.wait_over(srv, f["id"])
        w = self.ws(srv, o["id"], o["token"])
        self.assertEqual(w.recv_type(("state",))["you"]["seat"], 0)
        st, r, _ = a.call("POST", "/api/account/delete", {"password": PW})
        self.assertEqual(st, 200, r)
        # the open table: Alice's seat is open again, no deleted player sits there
        st, info, _ = srv.get("/api/tables/" + o["id"])
        self.assertEqual(info["status"], "open")
        self.assertEqual(info["seats"][0]["kind"], "open", info)
        self.assertNotIn(ANON, json.dumps(info))
        self.wait_seat_lost(w)
        st, r, _ = srv.post("/api/tables/%s/join" % o["id"], {"name": "Carol"})
        self.assertEqual(st, 200, r)
        st, r, _ = srv.post("/api/tables/%s/join" % o["id"], {"name": "Dave"})
        self.assertEqual(st, 200, r)
        st, info, _ = srv.get("/api/tables/" + o["id"])
        self.assertEqual(info["status"], "playing")
        self.assertEqual(sorted(s["name"] for s in info["seats"]), ["Bob", "Carol", "Dave"])
        # the old token moves nothing, holds nothing, anywhere
        self.assertIsNone(srv.state(o["id"], token=o["token"])["you"])
        self.assertEqual(self.move(srv, o["id"], o["token"])[0], 403)
        self.wait_over(srv, t["id"])
        for tid, tok in ((t["id"], t["token"]), (f["id"], f["token"])):
            self.assertIsNone(srv.state(tid, token=tok)["you"], tid)
            st, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": tok})
            self.assertEqual((st, r.get("error", {}).get("code")), (403, "bad_token"), r)
        if PG_ADMIN:
            return  # docs/server.md says what PostgreSQL keeps, and for how long
        # no copy of the name in the database file nor in its WAL
        deadline = time.time() + 20
        while True:
            counts = {}
            for p in (srv.db, srv.db + "-wal"):
                if os.path.exists(p):
                    with open(p, "rb") as fh:
                        data = fh.read()
                    counts[os.path.basename(p)] = data.count(name.encode()) + \
                        data.count(name.lower().encode())
            if not any(counts.values()) or time.time() > deadline:
                break
            time.sleep(0.2)
        self.assertIn(os.path.basename(srv.db), counts)
        self.assertEqual(counts, {k: 0 for k in counts}, "the name's bytes stay")


class Lockout(TokenCase):
    """--rate-login-fails: strangers from many addresses use up a name's
    budget of wrong passwords and codes; a browser that logged in to it
    before (its device cookie) still gets in and recovers."""

    def stranger_flood(self, srv, name, first, n, code=False):
        """n wrong attempts from n addresses 127.0.0.first..: their statuses."""
        out = []
        for i in range(n):
            br = Browser(srv.port, "127.0.0.%d" % (first + i))
            if code:
                st, r, _ = br.recover(name, "2222-2222-2222-2222")
            else:
                st, r, _ = br.login(name, "wrong password %d" % i)
            out.append(st)
        return out

    def test_device_cookie_passes_a_strangers_flood(self):
        srv = self.start(extra=["--rate-login-fails", "3", "--rate-recover-fails", "3"])
        owner = Browser(srv.port, "127.0.0.2")
        st, r, cookies = owner.call("POST", "/api/account/register",
                                    {"name": "Alice", "password": PW})
        self.assertEqual(st, 201, r)
        codes = r["recovery_codes"]
        dev = [c for c in cookies if c.startswith("carc_device=")]
        self.assertEqual(len(dev), 1, cookies)
        attrs = [x.strip() for x in dev[0].split(";")]
        self.assertIn("HttpOnly", attrs)
        self.assertIn("SameSite=Strict", attrs)
        self.assertTrue(any(x.startswith("Max-Age=") and int(x[8:]) > 86400 for x in attrs),
                        attrs)
        # the same browser on another address (a phone on a new network):
        # none of the addresses the name logged in from
        owner.src = "127.0.0.3"
        owner.jar.pop("carc_session")
        # strangers: wrong passwords and wrong codes from many addresses
        sts = self.stranger_flood(srv, "Alice", 10, 5)
        self.assertEqual(sts[:3], [401, 401, 401])
        self.assertEqual(sts[3:], [429, 429])
        sts = self.stranger_flood(srv, "Alice", 20, 5, code=True)
        self.assertEqual(sts[:3], [401, 401, 401])
        self.assertEqual(sts[3:], [429, 429])
        # a browser without the cookie is held to the limit, right password or not
        other = Browser(srv.port, "127.0.0.4")
        st, r, _ = other.login("Alice")
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"), r)
        st, r, _ = other.recover("Alice", codes[0])
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"), r)
        # a made-up or borrowed device cookie is no device cookie
        forged = Browser(srv.port, "127.0.0.5")
        forged.jar["carc_device"] = owner.jar["carc_device"][:-4] + "0000"
        self.assertEqual(forged.login("Alice")[0], 429)
        # the owner's browser logs in and recovers
        st, r, _ = owner.login("Alice")
        self.assertEqual(st, 200, r)
        st, r, _ = owner.recover("Alice", codes[0])
        self.assertEqual(st, 200, r)
        # its device cookie is Alice's only: Bob's name stays limited for it
        Browser(srv.port, "127.0.0.6").call("POST", "/api/account/register",
                                           {"name": "Bobby", "password": PW})
        self.stranger_flood(srv, "Bobby", 30, 3)
        st, r, _ = Browser(srv.port, "127.0.0.7").login("Bobby")
        self.assertEqual(st, 429)
        owner.src = "127.0.0.8"
        st, r, _ = owner.login("Bobby")
        self.assertEqual(st, 429, r)

    def test_device_has_a_budget_of_its_own(self):
        # a stolen device cookie guesses no faster than the name's limit
        srv = self.start(extra=["--rate-login-fails", "3"])
        owner = Browser(srv.port, "127.0.0.2")
        owner.call("POST", "/api/account/register", {"name": "Alice", "password": PW})
        owner.jar.pop("carc_session")
        sts = []
        for i in range(5):
            owner.src = "127.0.0.%d" % (40 + i)
            sts.append(owner.login("Alice", "wrong password %d" % i)[0])
        self.assertEqual(sts, [401, 401, 401, 429, 429])

    def test_device_cookie_secure_under_tls(self):
        # Secure when the request came over TLS (a trusted proxy says so),
        # as the session's
        srv = self.start(extra=["--trust-proxy", "127.0.0.1"])

        def device(st_cookies):
            st, r, cookies = st_cookies
            self.assertIn(st, (200, 201), r)
            dev = [c for c in cookies if c.startswith("carc_device=")]
            self.assertEqual(len(dev), 1, cookies)
            return [x.strip() for x in dev[0].split(";")]
        tls = {"X-Forwarded-Proto": "https"}
        attrs = device(Browser(srv.port).call("POST", "/api/account/register",
                                              {"name": "Alice", "password": PW}, headers=tls))
        self.assertIn("Secure", attrs)
        attrs = device(Browser(srv.port).call("POST", "/api/account/login",
                                              {"name": "Alice", "password": PW}))
        self.assertNotIn("Secure", attrs)
        self.assertIn("Path=/", attrs)

    def test_many_seat_cookies_keep_the_session(self):
        # a player's browser keeps a carc_<table> cookie per table for 30
        # days, and now a device cookie too: a Cookie header over 1 KB (18
        # tables) was dropped whole, the session with it (logged out)
        srv = self.start()
        br = Browser(srv.port)
        st, r, _ = br.call("POST", "/api/account/register", {"name": "Alice", "password": PW})
        self.assertEqual(st, 201, r)
        self.assertEqual(set(br.jar), {"carc_session", "carc_device"})
        for i in range(40):
            br.jar["carc_%016x" % i] = "%032x" % i
        st, r, _ = br.call("GET", "/api/me")
        self.assertEqual(st, 200, r)
        st, t, _ = br.call("POST", "/api/tables", {"name": "x", "players": 2})
        self.assertEqual(st, 201, t)
        br.jar["carc_" + t["id"]] = t["token"]
        w = self.ws(srv, t["id"], headers={"Cookie": "; ".join("%s=%s" % kv
                                                                 for kv in br.jar.items())})
        self.assertEqual(w.recv_type(("state",))["you"]["seat"], 0)

    def test_codes_have_a_budget_of_their_own(self):
        # wrong codes do not use up the name's wrong passwords: at the
        # defaults, more wrong codes than --rate-login-fails leave the right
        # password usable from a new address, without a device cookie
        srv = self.start()
        Browser(srv.port, "127.0.0.2").call("POST", "/api/account/register",
                                           {"name": "Alice", "password": PW})
        sts = self.stranger_flood(srv, "Alice", 50, 12, code=True)
        self.assertEqual(sts, [401] * 12)
        st, r, _ = Browser(srv.port, "127.0.0.3").login("Alice")
        self.assertEqual(st, 200, r)


if __name__ == "__main__":
    unittest.main()
