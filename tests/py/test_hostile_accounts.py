"""Hostile clients against the accounts of `carc serve` (issue 21, second
round): a login flood from many addresses that blocked every real login, no
limit on wrong passwords for one account, private games shown in public
profiles, and account names guessed without limit at /api/player; and
(issue 29) the session probe every page makes, GET /api/session.

Each attacker has its own source address on loopback (127.0.x.y: a client
socket is bound to it before it connects), the limits are at their defaults
unless a test says otherwise. Every loop is bounded in count and time; the
figures measured are printed (docs/server.md, "Accounts", has the table).

Run: CARC=build/test/carc python3 tests/py/test_hostile_accounts.py
"""
import http.client
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import HOST, ServerCase, first_legal  # noqa: E402

PW = "correct horse"
SHORT = {"U": 2, "E": 1}  # a game of four tiles (the start tile and three)


class Client:
    """A keep-alive HTTP client from one source address, with its session
    cookie (carc_session) once it logged in."""

    def __init__(self, port, src="127.0.0.1", timeout=60):
        self.port, self.src, self.timeout = port, src, timeout
        self.conn = None
        self.session = None

    def call(self, method, path, body=None, token=None):
        hdrs = {}
        data = None
        if method == "POST" and body is None:
            body = {}
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        if token:
            hdrs["Authorization"] = "Bearer " + token
        if self.session:
            # a browser: its cookie goes with the page's Origin (cross-site checks)
            hdrs["Cookie"] = "carc_session=" + self.session
            hdrs["Origin"] = "http://%s:%d" % (HOST, self.port)
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout,
                                                       source_address=(self.src, 0))
            try:
                self.conn.request(method, path, body=data, headers=hdrs)
                r = self.conn.getresponse()
                text = r.read()
                hd = {k.lower(): v for k, v in r.getheaders()}
                if hd.get("connection", "").lower() == "close":
                    self.close()
                sc = hd.get("set-cookie", "")
                if sc.startswith("carc_session="):
                    self.session = sc.split(";")[0].split("=", 1)[1] or None
                try:
                    val = json.loads(text)
                except ValueError:
                    val = text
                return r.status, val, hd
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def login(self, name, pw=PW):
        return self.call("POST", "/api/account/login", {"name": name, "password": pw})

    def register(self, name, pw=PW):
        return self.call("POST", "/api/account/register", {"name": name, "password": pw})

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def code_of(r):
    return r.get("error", {}).get("code") if isinstance(r, dict) else None


class HostileAccounts(ServerCase):

    def play_out(self, srv, tid, tokens, timeout=30):
        """Moves for the human seats (tokens: seat -> token) until the end."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = srv.state(tid, token=next(iter(tokens.values())))
            nxt = st["game"]["next"]
            if nxt["over"] or st["table"]["status"] == "over":
                break
            seat = nxt["to_move"]
            if seat in tokens and st["table"]["status"] == "playing":
                code, r, _ = srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt),
                                      turn=nxt["turn"]), token=tokens[seat])
                self.assertIn(code, (200, 409), r)
            else:
                time.sleep(0.02)
        for _ in range(500):
            st, info, _ = srv.get("/api/tables/" + tid, token=next(iter(tokens.values())))
            if st == 200 and info["status"] == "over":
                return
            time.sleep(0.05)
        self.fail("game %s did not end" % tid)

    # 1. a flood from 30 addresses filled the hashing queue: every real login 503
    def test_real_login_during_a_flood_from_30_addresses(self):
        srv = self.start()
        st, r, _ = Client(srv.port).register("Real User")
        self.assertEqual(st, 201, r)
        stop = threading.Event()
        lock = threading.Lock()
        attack = {}

        def attacker(k, n):
            c = Client(srv.port, "127.0.1.%d" % k)
            for i in range(1000):
                if stop.is_set():
                    break
                try:
                    st, r, h = c.login("guess %d %d %d" % (k, n, i), "wrong password")
                except OSError:
                    st, h = 0, {}
                with lock:
                    attack[st] = attack.get(st, 0) + 1
                if st == 429:  # a patient attacker: back when its budget allows
                    stop.wait(min(10, int(h.get("retry-after", "1"))))
            c.close()

        threads = [threading.Thread(target=attacker, args=(k, n))
                   for k in range(1, 31) for n in range(3)]
        for t in threads:
            t.start()
        time.sleep(2.0)  # the queue is full by now
        user = []

        def real(k):
            t0 = time.time()
            try:
                st, r, _ = Client(srv.port, "127.0.2.%d" % k).login("Real User")
            except OSError as e:
                st, r = 0, str(e)
            with lock:
                user.append((st, round(time.time() - t0, 2), code_of(r)))

        users = [threading.Thread(target=real, args=(k,)) for k in range(1, 9)]
        for t in users:
            t.start()
        for t in users:
            t.join(90)
        stop.set()
        for t in threads:
            t.join(30)
        lat = sorted(x[1] for x in user)
        print("\nlogin during a flood from 30 addresses (3 connections each): the user's 8 "
              "logins %s; latency min %.2f median %.2f max %.2f s; the attackers' answers %s"
              % (sorted(x[0] for x in user), lat[0], lat[len(lat) // 2], lat[-1],
                 sorted(attack.items())), file=sys.stderr)
        self.assertEqual(len(user), 8)
        self.assertEqual([x[0] for x in user], [200] * 8, user)
        self.assertIn(503, attack)  # the flood did fill the queue

    # 2. 50 wrong passwords for one account from 5 addresses were all tried
    def test_wrong_passwords_for_one_account_are_limited(self):
        srv = self.start()
        owner = Client(srv.port, "127.0.3.1")
        st, r, _ = owner.register("Owner")
        self.assertEqual(st, 201, r)
        results = []
        lock = threading.Lock()

        def guesser(k):
            c = Client(srv.port, "127.0.4.%d" % k)
            for i in range(10):
                st, r, h = c.login("owner", "wrong password %d" % i)
                with lock:
                    results.append((st, code_of(r)))

        threads = [threading.Thread(target=guesser, args=(k,)) for k in range(1, 6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        tried = sum(1 for st, _ in results if st == 401)
        print("\n50 wrong passwords for one account from 5 addresses: %d tried (401), %d "
              "refused (429)" % (tried, sum(1 for st, _ in results if st == 429)),
              file=sys.stderr)
        self.assertEqual(len(results), 50)
        self.assertLessEqual(tried, 10)
        self.assertEqual(set(results) - {(401, "bad_login")}, {(429, "rate_limited")})
        # the owner still gets in from the address it logged in from before
        st, r, _ = Client(srv.port, "127.0.3.1").login("Owner")
        self.assertEqual(st, 200, r)
        # from a new address the right password waits like a wrong one
        st, r, h = Client(srv.port, "127.0.3.2").login("Owner")
        self.assertEqual((st, code_of(r)), (429, "rate_limited"), r)
        self.assertGreaterEqual(int(h["retry-after"]), 1)
        # a name that does not exist is limited the same way (no hint that it does not)
        codes = [Client(srv.port, "127.0.5.%d" % (1 + i // 5)).login("Nobody Here", "x" * 9)[0]
                 for i in range(15)]
        self.assertEqual(codes, [401] * 10 + [429] * 5)

    # 3. a private game's id, record and chat were public through a profile
    def test_private_games_only_for_their_players(self):
        srv = self.start()
        alice = Client(srv.port, "127.0.6.1")
        self.assertEqual(alice.register("Alice")[0], 201)
        ids = {}
        for private in (True, False):
            st, t, _ = alice.call("POST", "/api/tables", {
                "name": "x", "tiles": SHORT, "seats": [{}, {"bot": "random"}],
                "bot_delay_ms": 0, "private": private})
            self.assertEqual(st, 201, t)
            self.play_out(srv, t["id"], {0: t["token"]})
            ids[private] = (t["id"], t["token"])
        priv, token = ids[True]
        pub = ids[False][0]
        other = Client(srv.port, "127.0.6.2")
        self.assertEqual(other.register("Mallory")[0], 201)
        for who, c in (("a guest", Client(srv.port, "127.0.6.3")), ("another account", other)):
            st, p, _ = c.call("GET", "/api/player?name=alice")
            self.assertEqual(st, 200, p)
            self.assertEqual([g["id"] for g in p["recent_games"]], [pub], who)
            self.assertNotIn(priv, json.dumps(p), who)
            for sub in ("", "/state", "/record", "/chat", "/analysis"):
                st, r, _ = c.call("GET", "/api/tables/%s%s" % (priv, sub))
                self.assertEqual((st, code_of(r)), (404, "not_found"), (who, sub, r))
                st, r, _ = c.call("GET", "/api/tables/%s%s" % (pub, sub))
                self.assertIn(st, (200, 202), (who, sub, r))
            for sub in ("/analysis", "/rematch", "/claim"):
                st, r, _ = c.call("POST", "/api/tables/%s%s" % (priv, sub))
                self.assertEqual((st, code_of(r)), (404, "not_found"), (who, sub, r))
        # its players see it: by the account's session, or by the seat's token
        st, p, _ = alice.call("GET", "/api/player?name=alice")
        self.assertEqual(sorted(g["id"] for g in p["recent_games"]), sorted([priv, pub]))
        st, g, _ = alice.call("GET", "/api/me/games")
        self.assertIn(priv, [x["id"] for x in g["games"]])
        for sub in ("", "/state", "/record", "/chat", "/analysis"):
            st, r, _ = alice.call("GET", "/api/tables/%s%s" % (priv, sub))
            self.assertIn(st, (200, 202), (sub, r))
            st, r, _ = Client(srv.port, "127.0.6.4").call("GET", "/api/tables/%s%s" % (priv, sub),
                                                          token=token)
            self.assertIn(st, (200, 202), (sub, r))
        # an open private table is still reached by its id (the invitation)
        st, t, _ = alice.call("POST", "/api/tables", {"name": "x", "players": 2,
                                                       "private": True})
        self.assertEqual(st, 201, t)
        st, r, _ = Client(srv.port, "127.0.6.5").call("GET", "/api/tables/" + t["id"])
        self.assertEqual(st, 200, r)
        st, r, _ = Client(srv.port, "127.0.6.5").call("POST", "/api/tables/%s/join" % t["id"],
                                                      {"name": "Bob"})
        self.assertEqual(st, 200, r)
        # the WebSocket of a finished private game is closed to the others too
        w = self.ws(srv, priv)
        m = w.recv()
        self.assertEqual((m.get("type"), m.get("code")), ("error", "not_found"), m)

    # 4. 500 name guesses at /api/player in 0.3 s, accounts without games shown
    def test_player_names_cannot_be_enumerated(self):
        srv = self.start()
        self.assertEqual(Client(srv.port, "127.0.7.1").register("Quiet One")[0], 201)
        c = Client(srv.port, "127.0.7.2")
        st, r, _ = c.call("GET", "/api/player?name=quiet%20one")
        st2, r2, _ = c.call("GET", "/api/player?name=nobody%20here")
        self.assertEqual((st, code_of(r)), (404, "not_found"), r)
        self.assertEqual(r, r2)
        t0 = time.time()
        codes = {}
        for i in range(500):
            st, r, h = c.call("GET", "/api/player?name=guess%d" % i)
            codes[st] = codes.get(st, 0) + 1
        print("\n500 name guesses at /api/player from one address in %.2f s: %s"
              % (time.time() - t0, sorted(codes.items())), file=sys.stderr)
        self.assertLessEqual(codes.get(404, 0), 30)
        self.assertGreaterEqual(codes.get(429, 0), 470)
        # another address is not held back by this one
        st, r, _ = Client(srv.port, "127.0.7.3").call("GET", "/api/player?name=guess1")
        self.assertEqual(st, 404)

    # 5. GET /api/session (issue 29: every page asks it, a guest too): any
    # cookie is a guest unless it is a live session, a session in it is
    # never found by guessing, and a flood from one address is limited
    # like any request (--rate-requests) without holding back others
    def test_the_session_probe_takes_any_cookie_and_is_limited(self):
        srv = self.start(extra=("--rate-requests", "40"))
        real = Client(srv.port, "127.0.8.1")
        self.assertEqual(real.register("Probe Owner")[0], 201)
        st, r, _ = real.call("GET", "/api/session")
        self.assertEqual((st, r["account"]["name"]), (200, "Probe Owner"), r)
        live = real.session
        # junk cookies from another address: a guest each time, never an error
        junk = Client(srv.port, "127.0.8.2")
        cookies = [
            "carc_session=",
            "carc_session=not-hex-at-all",
            "carc_session=" + "A" * 64,                  # the right length, upper case
            "carc_session=" + "0" * 64,                  # well formed, no such session
            "carc_session=" + live[:-1] + ("0" if live[-1] != "0" else "1"),  # one digit off
            "carc_session=" + live + "00",               # too long
            "carc_session=" + "f" * 3000,                # long
            "; ".join("c%d=%d" % (i, i) for i in range(300)),  # many cookies, none ours
            "xcarc_session=" + live,                     # another cookie's name ending in ours
        ]
        for ck in cookies:
            junk.conn = junk.conn or http.client.HTTPConnection(HOST, srv.port, timeout=30,
                                                                 source_address=("127.0.8.2", 0))
            junk.conn.request("GET", "/api/session", headers={"Cookie": ck})
            resp = junk.conn.getresponse()
            body = json.loads(resp.read())
            self.assertEqual((resp.status, body), (200, {"account": None}), ck[:80])
        # a header larger than the server takes is refused, and it goes on serving
        big = http.client.HTTPConnection(HOST, srv.port, timeout=30, source_address=("127.0.8.3", 0))
        try:
            big.request("GET", "/api/session", headers={"Cookie": "carc_session=" + "f" * 20000})
            st_big = big.getresponse().status
        except (http.client.HTTPException, OSError):
            st_big = None  # the connection closed: refused too
        big.close()
        self.assertNotEqual(st_big, 200)
        # a flood of probes from one address: 40 answered, then 429
        flood = Client(srv.port, "127.0.8.4")
        sts = [flood.call("GET", "/api/session")[0] for _ in range(50)]
        self.assertEqual(sts, [200] * 40 + [429] * 10)
        # the owner, from its own address, is still recognised
        st, r, _ = real.call("GET", "/api/session")
        self.assertEqual((st, r["account"]["name"]), (200, "Probe Owner"), r)
        for c in (real, junk, flood):
            c.close()


if __name__ == "__main__":
    unittest.main()
