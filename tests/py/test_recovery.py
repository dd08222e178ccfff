"""Accounts people can keep (issue 22, item 5) against the real server:
recovery codes shown once and stored only as keyed hashes, each usable
once, a new set invalidating the old; guessing limited per address and
through the name's guard on codes; changing the password ends the
other sessions; deleting an account erases exactly what docs/server.md
("Deleting an account") says and leaves its finished games anonymised;
the download returns every finished game as records `carc replay` accepts.

    CARC=build/release/carc python3 tests/py/test_recovery.py
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, HOST, PG_ADMIN, ServerCase, connect_db, psql  # noqa: E402
from test_accounts import PW, Client, first_legal  # noqa: E402

NEW_PW = "battery staple 42"
CODE_RE = r"^[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}$"
ANON = "(deleted player)"


def db_bytes(srv):
    """Everything the store holds: the SQLite file and its WAL, or every
    row of every table of the PostgreSQL database as text."""
    if PG_ADMIN:
        tables = psql(srv.db_arg, "SELECT tablename FROM pg_tables WHERE schemaname='public'")
        out = []
        for t in tables.split():
            out.append(psql(srv.db_arg, "SELECT x::text FROM %s x" % t))
        return "\n".join(out).encode()
    data = b""
    for p in (srv.db, srv.db + "-wal"):
        if os.path.exists(p):
            with open(p, "rb") as f:
                data += f.read()
    return data


def all_rows(srv):
    """Every row of every table, as text (what SQL sees, not free pages)."""
    if PG_ADMIN:
        return db_bytes(srv).decode()
    con = connect_db(srv.db)
    out = []
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"):
        for row in con.execute("SELECT * FROM %s" % t):
            out.append(t + ": " + repr(row))
    con.close()
    return "\n".join(out)


class KeepCase(ServerCase):
    def tearDown(self):
        if os.environ.get("KEEP_DEBUG"):
            for s in self.servers:
                with open(s.log_path, errors="replace") as f:
                    sys.stderr.write(f.read()[-6000:])
        super().tearDown()

    def recover(self, c, name, code, pw=NEW_PW, headers=None):
        return c.call("POST", "/api/account/recover", {"name": name, "code": code, "password": pw})

    def finished_game(self, srv, a, b):
        """A game of a against b that b resigns (rated, finished)."""
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        self.assertEqual(st, 201, t)
        st, j, _ = b.call("POST", "/api/tables/%s/join" % t["id"], {"name": "x"})
        self.assertEqual(st, 200, j)
        nxt = srv.state(t["id"])["game"]["next"]
        st, r, _ = srv.post("/api/tables/%s/move" % t["id"], dict(first_legal(nxt),
                            turn=nxt["turn"]), token=t["token"])
        self.assertEqual(st, 200, r)
        st, r, _ = b.call("POST", "/api/tables/%s/resign" % t["id"], {}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.wait_over(srv, t["id"])
        return t, j

    def played_out(self, srv, a):
        """A short game of a against a bot, played to its end."""
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "seats": [{}, {"bot": "random"}],
                          "tiles": {"U": 4, "E": 3}, "bot_delay_ms": 0})
        self.assertEqual(st, 201, t)
        deadline = time.time() + 20
        while time.time() < deadline:
            s = srv.state(t["id"])
            nxt = s["game"]["next"]
            if nxt["over"] or s["table"]["status"] == "over":
                self.wait_over(srv, t["id"])
                return t
            if nxt["to_move"] == 0 and s["table"]["status"] == "playing":
                st, r, _ = srv.post("/api/tables/%s/move" % t["id"],
                                    dict(first_legal(nxt), turn=nxt["turn"]), token=t["token"])
                self.assertIn(st, (200, 409), r)
            else:
                time.sleep(0.02)
        self.fail("game %s did not end" % t["id"])


class RecoveryTest(KeepCase):
    def test_codes_once_hashed_single_use(self):
        srv = self.start()
        a = Client(srv)
        st, r, _ = a.register("Alice")
        self.assertEqual(st, 201, r)
        codes = r["recovery_codes"]
        self.assertEqual(len(codes), 8)
        self.assertEqual(len(set(codes)), 8)
        for c in codes:
            self.assertRegex(c, CODE_RE)
        # shown once: nothing else answers them
        st, me, _ = a.call("GET", "/api/me")
        self.assertNotIn(codes[0], json.dumps(me))
        st, left, _ = a.call("GET", "/api/me/recovery")
        self.assertEqual((st, left["left"], left["count"]), (200, 8, 8))
        self.assertEqual(Client(srv).call("GET", "/api/me/recovery")[0], 401)
        # hashed at rest: no code, in any spelling, is in the database
        data = db_bytes(srv)
        for c in codes:
            for form in (c, c.replace("-", ""), c.upper(), c.replace("-", "").upper()):
                self.assertNotIn(form.encode(), data)
        rows = connect_db(srv.db).execute("SELECT hash FROM recovery_codes").fetchall()
        self.assertEqual(len(rows), 8)
        for (h,) in rows:
            self.assertRegex(h, "^[0-9a-f]{64}$")
        # a second browser, logged in, and the one that restores
        b = Client(srv)
        self.assertEqual(b.login("Alice")[0], 200)
        c = Client(srv)
        # wrong code, unknown name, malformed code: one answer
        for name, code in (("Alice", "2222-2222-2222-2222"), ("Nobody", codes[0]),
                           ("Alice", "not a code"), ("Alice", codes[0][:-1])):
            st, r, h = self.recover(c, name, code)
            self.assertEqual((st, r["error"]["code"]), (401, "bad_recovery"), (name, code))
            self.assertIsNone(c.session)
        # a bad new password is refused before the code is looked at
        st, r, _ = self.recover(c, "Alice", codes[0], pw="short")
        self.assertEqual((st, r["error"]["code"]), (400, "bad_password"))
        # the right code (case, spaces and dashes do not matter) sets the password
        typed = codes[0].upper().replace("-", " ")
        st, r, _ = self.recover(c, "alice", typed)
        self.assertEqual(st, 200, r)
        self.assertEqual((r["account"]["name"], r["codes_left"]), ("Alice", 7))
        self.assertIsNotNone(c.session)
        self.assertEqual(c.call("GET", "/api/me")[0], 200)
        # every other session of the account ended
        for old in (a, b):
            st, r, _ = old.call("GET", "/api/me")
            self.assertEqual((st, r["error"]["code"]), (401, "not_logged_in"))
        self.assertEqual(Client(srv).login("Alice", PW)[0], 401)
        self.assertEqual(Client(srv).login("Alice", NEW_PW)[0], 200)
        # single use
        st, r, _ = self.recover(Client(srv), "Alice", codes[0], pw="another one 1")
        self.assertEqual((st, r["error"]["code"]), (401, "bad_recovery"))
        self.assertEqual(c.call("GET", "/api/me/recovery")[1]["left"], 7)
        # a new set needs the password and invalidates the old set
        st, r, _ = c.call("POST", "/api/me/recovery", {"password": PW})
        self.assertEqual((st, r["error"]["code"]), (401, "bad_login"))
        st, r, _ = c.call("POST", "/api/me/recovery", {"password": NEW_PW})
        self.assertEqual(st, 200, r)
        fresh = r["recovery_codes"]
        self.assertEqual(len(fresh), 8)
        self.assertFalse(set(fresh) & set(codes))
        st, r, _ = self.recover(Client(srv), "Alice", codes[1])
        self.assertEqual((st, r["error"]["code"]), (401, "bad_recovery"))
        st, r, _ = self.recover(Client(srv), "Alice", fresh[3], pw=PW)
        self.assertEqual((st, r["codes_left"]), (200, 7))
        for form in fresh:
            self.assertNotIn(form.encode(), db_bytes(srv))

    def test_account_without_codes_makes_a_set(self):
        # accounts made before recovery codes existed have none (a store
        # without their rows): they make a set while logged in
        srv = self.start()
        a = Client(srv)
        a.register("Old")
        srv.stop()
        if PG_ADMIN:
            psql(srv.db_arg, "DELETE FROM recovery_codes")
        else:
            con = sqlite3.connect(srv.db)
            con.execute("DELETE FROM recovery_codes")
            con.commit()
            con.close()
        srv = self.start()
        a.srv = srv
        self.assertEqual(a.call("GET", "/api/me/recovery")[1]["left"], 0)
        st, r, _ = a.call("POST", "/api/me/recovery", {"password": PW})
        self.assertEqual(st, 200, r)
        st, r, _ = self.recover(Client(srv), "Old", r["recovery_codes"][0])
        self.assertEqual(st, 200, r)

    def test_guessing_is_limited(self):
        # per address: --rate-recover attempts an hour
        srv = self.start(extra=["--rate-recover", "3", "--trust-proxy", "127.0.0.1"])
        a = Client(srv)
        codes = a.register("Alice")[1]["recovery_codes"]
        sts = [self.recover(Client(srv), "Alice", "2222-2222-2222-2222")[0] for _ in range(4)]
        self.assertEqual(sts, [401, 401, 401, 429])
        # even the right code waits now, from this address
        st, r, h = self.recover(Client(srv), "Alice", codes[0])
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertIn("--rate-recover", r["error"]["message"])
        self.assertGreater(int(h.get("retry-after")), 0)

    def test_guesses_are_limited_per_name(self):
        # per account, from many addresses: the name's guard on codes
        # (--rate-recover-fails), apart from its guard on passwords (issue
        # 26: strangers' wrong codes used to spend the password's budget)
        srv = self.start(extra=["--rate-recover-fails", "3", "--rate-login-fails", "3",
                                "--trust-proxy", "127.0.0.1"])
        Client(srv).register("Bob")
        out = []
        for i in range(3):
            st, r, _ = srv.http("POST", "/api/account/recover",
                                body={"name": "Bob", "code": "2222-2222-2222-2222",
                                      "password": NEW_PW},
                                headers={"X-Real-IP": "198.51.100.%d" % (i + 1)})
            out.append(st)
        self.assertEqual(out, [401, 401, 401])
        # the guard on codes is spent: a code for Bob from a new address waits
        st, r, h = srv.http("POST", "/api/account/recover",
                            body={"name": "Bob", "code": "2222-2222-2222-2222", "password": NEW_PW},
                            headers={"X-Real-IP": "198.51.100.51"})
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertIn("--rate-recover-fails", r["error"]["message"])
        self.assertGreater(int(h.get("retry-after")), 0)
        # its password's is not
        st, r, _ = srv.http("POST", "/api/account/login", body={"name": "Bob", "password": "x" * 9},
                            headers={"X-Real-IP": "198.51.100.50"})
        self.assertEqual((st, r["error"]["code"]), (401, "bad_login"))

    def test_change_password_ends_other_sessions(self):
        srv = self.start(extra=["--rate-keep", "3"])
        a, b = Client(srv), Client(srv)
        a.register("Carol")
        b.login("Carol")
        st, r, _ = a.call("POST", "/api/account/password",
                          {"password": "wrong password", "new_password": NEW_PW})
        self.assertEqual((st, r["error"]["code"]), (401, "bad_login"))
        self.assertEqual(b.call("GET", "/api/me")[0], 200)  # nothing changed
        st, r, _ = a.call("POST", "/api/account/password", {"password": PW, "new_password": "short"})
        self.assertEqual((st, r["error"]["code"]), (400, "bad_password"))
        st, r, _ = a.call("POST", "/api/account/password", {"password": PW, "new_password": NEW_PW})
        self.assertEqual(st, 200, r)
        self.assertEqual(a.call("GET", "/api/me")[0], 200)  # this one stays
        st, r, _ = b.call("GET", "/api/me")
        self.assertEqual((st, r["error"]["code"]), (401, "not_logged_in"))
        self.assertEqual(Client(srv).login("Carol", PW)[0], 401)
        self.assertEqual(Client(srv).login("Carol", NEW_PW)[0], 200)
        # not logged in: refused
        st, r, _ = Client(srv).call("POST", "/api/account/password",
                                    {"password": NEW_PW, "new_password": PW})
        self.assertEqual((st, r["error"]["code"]), (401, "not_logged_in"))
        # --rate-keep 3 an hour for the account: the fourth waits
        st, r, _ = a.call("POST", "/api/account/password", {"password": NEW_PW, "new_password": PW})
        self.assertEqual(st, 429, r)
        self.assertIn("--rate-keep", r["error"]["message"])

    def test_keep_limit_per_account_across_addresses(self):
        srv = self.start(extra=["--rate-keep", "2", "--trust-proxy", "127.0.0.1"])
        a = Client(srv)
        a.register("Dora")
        sts = []
        for i in range(3):
            st, r, _ = srv.http("POST", "/api/me/recovery", body={"password": PW},
                                headers={"X-Real-IP": "198.51.100.%d" % (i + 1),
                                         "Cookie": "carc_session=" + a.session,
                                         "Origin": "http://%s:%d" % (HOST, srv.port)})
            sts.append(st)
        self.assertEqual(sts, [200, 200, 429])

    def test_keep_and_download_limits_per_address(self):
        # two accounts behind one address share its budget
        srv = self.start(extra=["--rate-keep", "2", "--rate-downloads", "2",
                                "--trust-proxy", "127.0.0.1"])
        a, b = Client(srv), Client(srv)
        a.register("Ivy")
        b.register("Jon")

        def call(c, method, path, body=None, ip="198.51.100.9"):
            hdrs = {"X-Real-IP": ip, "Cookie": "carc_session=" + c.session,
                    "Origin": "http://%s:%d" % (HOST, srv.port)}
            return srv.http(method, path, body=body, headers=hdrs)[0]
        self.assertEqual([call(a, "POST", "/api/me/recovery", {"password": PW}) for _ in range(2)],
                         [200, 200])
        self.assertEqual(call(b, "POST", "/api/me/recovery", {"password": PW}), 429)
        self.assertEqual(call(b, "POST", "/api/me/recovery", {"password": PW}, ip="198.51.100.10"),
                         200)
        self.assertEqual([call(a, "GET", "/api/me/records") for _ in range(2)], [200, 200])
        self.assertEqual(call(b, "GET", "/api/me/records"), 429)
        # and one account's downloads from many addresses are held to its own
        self.assertEqual(call(a, "GET", "/api/me/records", ip="198.51.100.11"), 429)
        self.assertEqual(call(b, "GET", "/api/me/records", ip="198.51.100.12"), 200)

    def test_malformed_requests(self):
        srv = self.start()
        a = Client(srv)
        a.register("Erin")
        for path, body in (("/api/account/recover", {"name": 1, "code": "x", "password": PW}),
                           ("/api/account/recover", {"name": "Erin", "code": "x" * 100,
                                                     "password": PW}),
                           ("/api/account/password", {"password": PW}),
                           ("/api/account/delete", {"pw": PW}),
                           ("/api/me/recovery", {"password": ["x"]})):
            st, r, _ = a.call("POST", path, body)
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), path)
        for q in ("?limit=0", "?limit=26", "?limit=x", "?after=../x", "?after=" + "a" * 40):
            st, r, _ = a.call("GET", "/api/me/records" + q)
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), q)
        self.assertEqual(a.call("GET", "/api/account/delete")[0], 405)


class DeleteTest(KeepCase):
    def test_delete_erases_what_the_docs_say(self):
        srv = self.start(extra=["--rated-min-moves", "0"])
        a, b = Client(srv), Client(srv)
        a.register("Alice")
        b.register("Bob")
        alice_id = a.call("GET", "/api/me")[1]["account"]["id"]
        # a finished rated game with chat lines of both
        t, j = self.finished_game(srv, a, b)
        wa = self.ws(srv, t["id"], t["token"])
        wb = self.ws(srv, t["id"], j["token"])
        wa.send({"type": "chat", "text": "alice says secret words"})
        wb.send({"type": "chat", "text": "bob says hello"})
        deadline = time.time() + 5
        while time.time() < deadline:
            st, ch, _ = srv.get("/api/tables/%s/chat" % t["id"])
            if len(ch.get("chat", [])) >= 2:
                break
            time.sleep(0.05)
        wa.close()
        wb.close()
        # a line Alice wrote logged in, as a spectator at Bob's table
        st, bt, _ = b.call("POST", "/api/tables", {"name": "Bob", "players": 2,
                                                    "spectator_chat": True})
        self.assertEqual(st, 201, bt)
        spec = self.ws(srv, bt["id"], headers={"Cookie": "carc_session=" + a.session,
                                                "Origin": "http://%s:%d" % (HOST, srv.port)})
        spec.recv_type(("state",))
        spec.send({"type": "chat", "text": "alice watching quietly", "name": "A"})
        deadline = time.time() + 5
        while time.time() < deadline:
            st, ch, _ = srv.get("/api/tables/%s/chat" % bt["id"])
            if ch.get("chat"):
                break
            time.sleep(0.05)
        self.assertEqual([x.get("text") for x in ch["chat"]], ["alice watching quietly"])
        spec.close()
        # a game being played: Alice's seat is given up when she goes
        st, live, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, lj, _ = b.call("POST", "/api/tables/%s/join" % live["id"], {"name": "x"})
        self.assertEqual(st, 200, lj)
        # the password is needed
        st, r, _ = a.call("POST", "/api/account/delete", {"password": "wrong password"})
        self.assertEqual((st, r["error"]["code"]), (401, "bad_login"))
        self.assertEqual(a.call("GET", "/api/me")[0], 200)
        second = Client(srv)
        second.login("Alice")
        st, r, h = a.call("POST", "/api/account/delete", {"password": PW})
        self.assertEqual(st, 200, r)
        self.assertEqual(r["games"], 2)
        self.assertIn("Max-Age=0", h.get("set-cookie", ""))
        # every session is gone, the login too
        for c in (a, second):
            self.assertEqual(c.call("GET", "/api/me")[0], 401)
        self.assertEqual(Client(srv).login("Alice")[0], 401)
        # the unfinished game was resigned (two players: it ended, Bob won)
        info = self.wait_over(srv, live["id"])
        self.assertEqual(info["seats"][0]["name"], ANON)
        # the finished game stays, anonymised, here and after a restart
        for s in (srv, None):
            if s is None:
                srv.stop()
                srv = self.start(extra=["--rated-min-moves", "0"])
                b.srv = srv
            st, info, _ = srv.get("/api/tables/" + t["id"])
            self.assertEqual(st, 200)
            self.assertEqual([x["name"] for x in info["seats"]], [ANON, "Bob"])
            st, rec, _ = srv.get("/api/tables/%s/record" % t["id"])
            self.assertEqual(st, 200)
            self.assertNotIn("Alice", json.dumps(rec))
            st, ch, _ = srv.get("/api/tables/%s/chat" % t["id"])
            text = json.dumps(ch)
            self.assertNotIn("secret words", text)
            self.assertIn("bob says hello", text)
            # Bob's games still list it, rated, with the neutral name
            st, g, _ = b.call("GET", "/api/me/games")
            ids = {x["id"]: x for x in g["games"]}
            self.assertIn(t["id"], ids)
        st, prof, _ = srv.get("/api/player?name=Bob")
        self.assertEqual(st, 200)
        self.assertIn(ANON, json.dumps(prof))
        self.assertEqual(srv.get("/api/player?name=Alice")[0], 404)
        # nothing of Alice is left in any row of any table
        rows = all_rows(srv)
        self.assertNotIn("Alice", rows)
        self.assertNotIn("alice", rows)
        self.assertNotIn("secret words", rows)
        self.assertNotIn("watching quietly", rows)
        con = connect_db(srv.db)
        for table, col in (("accounts", "id"), ("sessions", "account"), ("ratings", "account"),
                           ("recovery_codes", "account"), ("seats", "account")):
            n, = con.execute("SELECT count(*) FROM %s WHERE %s=?" % (table, col),
                             (alice_id,)).fetchone()
            self.assertEqual(n, 0, table)
        # what is kept: the games, their moves and results, Bob's rating history
        n, = con.execute("SELECT count(*) FROM games WHERE id IN (?,?)", (t["id"], live["id"])).fetchone()
        self.assertEqual(n, 2)
        n, = con.execute("SELECT count(*) FROM results WHERE game_id=?", (t["id"],)).fetchone()
        self.assertEqual(n, 1)
        n, = con.execute("SELECT count(*) FROM moves WHERE game_id=?", (t["id"],)).fetchone()
        self.assertGreater(n, 0)
        n, = con.execute("SELECT count(*) FROM ratings r JOIN accounts a ON a.id = r.account"
                         " WHERE a.name='Bob'").fetchone()
        self.assertEqual(n, 2)
        con.close()
        # the name is free again
        st, r, _ = Client(srv).register("alice")
        self.assertEqual(st, 201, r)
        self.assertNotEqual(r["account"]["id"], alice_id)
        st, g, _ = Client(srv, None).call("GET", "/api/me/games")
        self.assertEqual(st, 401)

    def test_delete_limits(self):
        srv = self.start(extra=["--rate-keep", "2"])
        a = Client(srv)
        a.register("Frank")
        for _ in range(2):
            st, r, _ = a.call("POST", "/api/account/delete", {"password": "wrong password"})
            self.assertEqual(st, 401, r)
        st, r, _ = a.call("POST", "/api/account/delete", {"password": PW})
        self.assertEqual(st, 429, r)
        self.assertEqual(Client(srv).call("POST", "/api/account/delete", {"password": PW})[0], 401)


class DownloadTest(KeepCase):
    def test_download_every_game_as_records(self):
        srv = self.start(extra=["--rated-min-moves", "0", "--rate-downloads", "6"])
        a, b = Client(srv), Client(srv)
        a.register("Gina")
        b.register("Hal")
        mine = [self.played_out(srv, a)["id"], self.played_out(srv, a)["id"],
                self.finished_game(srv, a, b)[0]["id"]]
        other = self.played_out(srv, b)["id"]  # not Gina's
        st, unfinished, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        # pages of one
        got, after, pages = [], "", 0
        while True:
            st, page, _ = a.call("GET", "/api/me/records?limit=1" + ("&after=" + after if after else ""))
            self.assertEqual(st, 200, page)
            pages += 1
            self.assertEqual(page["format"], "carc-records-1")
            self.assertEqual(page["missing"], [])
            got += page["records"]
            if not page["next"]:
                break
            after = page["next"]
        self.assertEqual(pages, 3)
        self.assertEqual(sorted(r["table"] for r in got), sorted(mine))
        self.assertNotIn(other, [r["table"] for r in got])
        self.assertNotIn(unfinished["id"], [r["table"] for r in got])
        # every record replays in the engine's checker
        with tempfile.TemporaryDirectory() as d:
            files = []
            for r in got:
                self.assertEqual(r["format"], "carc-record-1")
                p = os.path.join(d, r["table"] + ".json")
                with open(p, "w") as f:
                    json.dump(r, f)
                files.append(p)
            out = subprocess.run([CARC, "replay", "--json"] + files, capture_output=True,
                                 text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            lines = [json.loads(x) for x in out.stdout.splitlines()]
            self.assertEqual(len(lines), 3)
            self.assertTrue(all(x["ok"] for x in lines), lines)
            self.assertEqual(sum(1 for x in lines if x["over"]), 2)  # the resigned one is not
        # one page of all, the same records
        st, page, _ = a.call("GET", "/api/me/records")
        self.assertEqual((st, len(page["records"]), page["next"]), (200, 3, None))
        # limited: --rate-downloads 6 pages an hour for the account
        for _ in range(2):
            st, r, _ = a.call("GET", "/api/me/records")
            self.assertEqual(st, 200)
        st, r, h = a.call("GET", "/api/me/records")
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertIn("--rate-downloads", r["error"]["message"])
        self.assertEqual(Client(srv).call("GET", "/api/me/records")[0], 401)


if __name__ == "__main__":
    unittest.main()
