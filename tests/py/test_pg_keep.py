"""Keeping an account with several `carc serve` processes on one
PostgreSQL database (issue 22, item 5): a session that a recovery, a
password change or a deletion ends on one process is refused on the
others at once (sessions are read from the store on every request), and
a deleted account's seats show the neutral name on a process that held
the table in memory, its game being played given up there too; the seat
tokens a password change, a recovery or a deletion on one process revoke
are refused by the others, and their connections lose the seat (issue 26).

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase  # noqa: E402
from carcserver import first_legal, psql  # noqa: E402
from test_accounts import PW, Client  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule

NEW_PW = "battery staple 42"
ANON = "(deleted player)"


class KeepClusterTest(ClusterCase):
    def me(self, c):
        return c.call("GET", "/api/me")[0]

    def wait(self, what, fn, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            v = fn()
            if v:
                return v
            time.sleep(0.05)
        self.fail("%s: not within %d s\n%s" % (what, timeout, self.logs()[-4000:]))

    def test_sessions_ended_on_one_process_are_refused_on_another(self):
        a, b = self.start(2)
        on_a = Client(a)
        st, r, _ = on_a.register("Alice")
        self.assertEqual(st, 201, r)
        codes = r["recovery_codes"]
        on_b = Client(b)
        self.assertEqual(on_b.login("Alice")[0], 200)
        self.assertEqual(self.me(on_b), 200)
        # the codes are hashed in PostgreSQL too
        rows = psql(self.url, "SELECT x::text FROM recovery_codes x")
        self.assertEqual(len(rows.split()), 8)
        for c in codes:
            self.assertNotIn(c.replace("-", ""), rows)
            self.assertNotIn(c, rows)
        # a recovery on a ends the session held on b
        fresh = Client(a)
        st, r, _ = fresh.call("POST", "/api/account/recover",
                              {"name": "Alice", "code": codes[0], "password": NEW_PW})
        self.assertEqual(st, 200, r)
        self.assertEqual(self.me(on_b), 401)
        self.assertEqual(self.me(on_a), 401)
        # the new session works on both processes
        self.assertEqual(self.me(fresh), 200)
        self.assertEqual(self.me(Client(b, fresh.session)), 200)
        # the code is used up for every process
        st, r, _ = Client(b).call("POST", "/api/account/recover",
                                  {"name": "Alice", "code": codes[0], "password": PW})
        self.assertEqual((st, r["error"]["code"]), (401, "bad_recovery"))
        # a password change on b ends the session on a, keeps b's own
        keeper = Client(b)
        self.assertEqual(keeper.login("Alice", NEW_PW)[0], 200)
        st, r, _ = keeper.call("POST", "/api/account/password",
                               {"password": NEW_PW, "new_password": PW})
        self.assertEqual(st, 200, r)
        self.assertEqual(self.me(fresh), 401)
        self.assertEqual(self.me(Client(b, fresh.session)), 401)
        self.assertEqual(self.me(keeper), 200)
        self.assertEqual(self.me(Client(a, keeper.session)), 200)
        # two processes using one code at once: one of them wins
        codes2 = [c for c in codes[1:3]]
        import threading
        out = []

        def use(srv):
            out.append(Client(srv).call("POST", "/api/account/recover",
                                        {"name": "Alice", "code": codes2[0],
                                         "password": NEW_PW})[0])
        ts = [threading.Thread(target=use, args=(s,)) for s in (a, b)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(sorted(out), [200, 401])

    def test_delete_on_one_process_anonymises_tables_held_by_another(self):
        a, b = self.start(2, extra=["--rated-min-moves", "0"])
        alice, bob = Client(a), Client(b)
        alice.register("Alice")
        bob.register("Bob")
        # a finished game, held in memory by b (Bob plays there)
        st, t, _ = alice.call("POST", "/api/tables", {"name": "x", "players": 2})
        self.assertEqual(st, 201, t)
        st, j, _ = bob.call("POST", "/api/tables/%s/join" % t["id"], {"name": "x"})
        self.assertEqual(st, 200, j)
        nxt = a.state(t["id"])["game"]["next"]
        st, r, _ = a.post("/api/tables/%s/move" % t["id"], dict(first_legal(nxt),
                          turn=nxt["turn"]), token=t["token"])
        self.assertEqual(st, 200, r)
        st, r, _ = bob.call("POST", "/api/tables/%s/resign" % t["id"], {}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.wait("over on b", lambda: b.get("/api/tables/" + t["id"])[1]["status"] == "over")
        # both processes say it was rated (issue 29: the description's
        # "rating", worked out by each from the store)
        self.wait("over on a", lambda: a.get("/api/tables/" + t["id"])[1]["status"] == "over")
        for srv in (a, b):
            self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"], {"rated": True})
        # a game being played, Bob watching it on b
        st, live, _ = alice.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, lj, _ = bob.call("POST", "/api/tables/%s/join" % live["id"], {"name": "x"})
        self.assertEqual(st, 200, lj)
        w = self.ws(b.port, live["id"], lj["token"])
        w.recv_type("state")
        second = Client(b)
        second.login("Alice")
        st, r, _ = alice.call("POST", "/api/account/delete", {"password": PW})
        self.assertEqual((st, r.get("games")), (200, 2), r)
        self.assertEqual(self.me(second), 401)  # the session on b is gone too
        # b: the finished table shows the neutral name, the live one ended
        self.wait("anonymised on b", lambda: [s["name"] for s in
                  b.get("/api/tables/" + t["id"])[1]["seats"]] == [ANON, "Bob"])
        self.wait("resigned on b", lambda: b.get("/api/tables/" + live["id"])[1]["status"]
                  == "over")
        st, rec, _ = b.get("/api/tables/%s/record" % t["id"])
        self.assertNotIn("Alice", json.dumps(rec))
        rows = psql(self.url, "SELECT x::text FROM seats x") + psql(
            self.url, "SELECT x::text FROM accounts x") + psql(self.url, "SELECT options FROM games")
        self.assertNotIn("Alice", rows)
        # the name is free again, on either process
        st, r, _ = Client(b).register("Alice")
        self.assertEqual(st, 201, r)
        self.assertNotIn("writes fail from now on", self.logs())

    # ---- issue 26: seat tokens die with a password change, a recovery and a
    # deletion on every process

    def move(self, srv, tid, token):
        nxt = srv.state(tid)["game"]["next"]
        return srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt), turn=nxt["turn"]),
                        token=token)

    def my_token(self, c, tid):
        st, g, _ = c.call("GET", "/api/me/games")
        self.assertEqual(st, 200, g)
        return {x["id"]: x.get("token") for x in g["games"]}.get(tid)

    def seat_lost(self, w):
        """The connection that held the seat is told, then watches."""
        end = time.time() + 10
        told = False
        while time.time() < end:
            try:
                m = w.recv(max(0.01, end - time.time()))
            except TimeoutError:
                break
            told = told or (m.get("type") == "error" and m.get("code") == "bad_token")
            if told and m.get("type") == "state":
                self.assertIsNone(m["you"])
                return
        self.fail("the seat was not taken from the connection\n" + self.logs()[-4000:])

    def test_tokens_revoked_on_every_process(self):
        a, b = self.start(2)
        alice, bob = Client(a), Client(b)
        codes = alice.register("Alice")[1]["recovery_codes"]
        bob.register("Bob")
        st, t, _ = alice.call("POST", "/api/tables", {"name": "x", "players": 2})
        self.assertEqual(st, 201, t)
        tid = t["id"]
        st, j, _ = bob.call("POST", "/api/tables/%s/join" % tid, {"name": "x"})
        self.assertEqual(st, 200, j)
        # a thief's session of Alice's on b reads her token and holds her
        # seat there (the table is in b's memory)
        thief = Client(b)
        self.assertEqual(thief.login("Alice")[0], 200)
        stolen = self.my_token(thief, tid)
        self.assertEqual(stolen, t["token"])
        w = self.ws(b.port, tid, stolen)
        self.assertEqual(w.recv_type("state")["you"]["seat"], 0)
        # Alice changes her password on a
        st, r, _ = alice.call("POST", "/api/account/password",
                              {"password": PW, "new_password": NEW_PW})
        self.assertEqual(st, 200, r)
        self.seat_lost(w)
        for srv in (b, a):
            st, r, _ = self.move(srv, tid, stolen)
            self.assertEqual((st, r["error"]["code"]), (403, "bad_token"), r)
        # the session that changed it plays with its fresh token, on b too
        fresh = self.my_token(alice, tid)
        self.assertNotEqual(fresh, stolen)
        st, c, _ = Client(b, alice.session).call("POST", "/api/tables/%s/claim" % tid)
        self.assertEqual((st, c["token"]), (200, fresh))
        st, r, _ = self.move(b, tid, fresh)
        self.assertEqual(st, 200, r)
        # Bob's turn; then a recovery on b revokes what Alice's sessions held
        st, r, _ = self.move(a, tid, j["token"])
        self.assertEqual(st, 200, r)
        wf = self.ws(a.port, tid, fresh)
        self.assertEqual(wf.recv_type("state")["you"]["seat"], 0)
        owner = Client(b)
        st, r, _ = owner.call("POST", "/api/account/recover",
                              {"name": "Alice", "code": codes[0], "password": PW})
        self.assertEqual(st, 200, r)
        self.seat_lost(wf)
        for srv in (a, b):
            self.assertEqual(self.move(srv, tid, fresh)[0], 403)
        newest = self.my_token(owner, tid)
        self.assertNotIn(newest, (fresh, stolen))
        st, r, _ = self.move(a, tid, newest)
        self.assertEqual(st, 200, r)
        # a deletion on a: the open table b holds gets the seat back, open,
        # and the game being played ends there; no old token moves
        st, o, _ = Client(b, owner.session).call("POST", "/api/tables", {"name": "x",
                                                                          "players": 3})
        self.assertEqual(st, 201, o)
        st, oj, _ = bob.call("POST", "/api/tables/%s/join" % o["id"], {"name": "x"})
        self.assertEqual(st, 200, oj)
        wo = self.ws(b.port, o["id"], o["token"])
        self.assertEqual(wo.recv_type("state")["you"]["seat"], 0)
        st, r, _ = Client(a, owner.session).call("POST", "/api/account/delete",
                                                 {"password": PW})
        self.assertEqual(st, 200, r)
        self.seat_lost(wo)
        self.wait("the seat open on b", lambda: b.get("/api/tables/" + o["id"])[1]["seats"][0]
                  ["kind"] == "open")
        self.wait("the game ended on b", lambda: b.get("/api/tables/" + tid)[1]["status"]
                  == "over")
        for srv in (a, b):
            self.assertIsNone(srv.state(o["id"], token=o["token"])["you"])
            self.assertIsNone(srv.state(tid, token=newest)["you"])
        self.assertNotIn("(deleted player)", json.dumps(b.get("/api/tables/" + o["id"])[1]))

    def test_two_password_changes_at_once_leave_tokens_that_work(self):
        # two sessions of one account change its password on two processes
        # at once: the epochs follow each other, and the seats hold the
        # token of the last one (store_keep.c: a change that met the
        # other's epoch re-keys again)
        import threading
        a, b = self.start(2)
        one, two = Client(a), Client(b)
        one.register("Alice")
        self.assertEqual(two.login("Alice")[0], 200)
        bob = Client(b)
        bob.register("Bob")
        tables = []
        for _ in range(3):
            st, t, _ = one.call("POST", "/api/tables", {"name": "x", "players": 2})
            self.assertEqual(bob.call("POST", "/api/tables/%s/join" % t["id"], {"name": "x"})[0],
                             200)
            tables.append(t["id"])
        out = []

        def change(c, new):
            out.append(c.call("POST", "/api/account/password",
                              {"password": PW, "new_password": new})[0])
        ts = [threading.Thread(target=change, args=(c, pw))
              for c, pw in ((one, NEW_PW), (two, "another one 42"))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(out, [200, 200])
        # each ended the other's session (or the last one's stays); the
        # password is the last one's
        self.assertLessEqual(len([c for c in (one, two) if self.me(c) == 200]), 1)
        now = Client(a)
        self.assertEqual(sorted(now.login("Alice", pw)[0] for pw in (NEW_PW, "another one 42")),
                         [200, 401])
        epoch = int(psql(self.url, "SELECT epoch FROM accounts WHERE name='Alice'").strip())
        self.assertEqual(epoch, 2)
        for tid in tables:
            tok = self.my_token(now, tid)
            for srv in (a, b):
                self.wait("the token holds the seat on every process",
                          lambda: (srv.state(tid, token=tok)["you"] or {}).get("seat") == 0)


if __name__ == "__main__":
    unittest.main()
