"""Quick match against abuse with several `carc serve` processes on one
PostgreSQL database (issue 26; the one-process tests are in
test_hostile_match.py): the address a person joined from travels with
their queue entry, so the process that makes a table counts it against
them whichever process they joined on; a no-show's hold is in the store,
so every process refuses its join; the person who came goes back to the
front of the queue on any process.

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase  # noqa: E402
from carcserver import first_legal  # noqa: E402
from test_hostile_match import OPEN, TB, RT, PW, Person  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


class PgMatchAbuseTest(ClusterCase):

    def person(self, srv, name, src):
        p = Person(srv, src)
        st, r, _ = p.call("POST", "/api/account/register", {"name": name, "password": PW})
        self.assertEqual(st, 201, r)
        p.name = name
        return p

    def on(self, p, srv):
        p.srv = srv
        return p

    def matched(self, p, timeout=20):
        end = time.time() + timeout
        r = None
        while time.time() < end:
            st, r, _ = p.call("GET", "/api/match")
            self.assertEqual(st, 200, r)
            if r["state"] == "matched" and r["ready"]:
                return r
            time.sleep(0.05)
        self.fail("%s not matched in %d s: %r\n%s" % (p.name, timeout, r, self.logs()[-3000:]))

    def test_the_address_travels_with_the_entry(self):
        a, b = self.start(2, extra=OPEN + ["--max-tables", "10", "--max-tables-share", "10"])
        # one table an address: x1 of 127.0.0.2 joins on a, y1 on b, and b makes the table
        x1 = self.person(a, "xone", "127.0.0.2")
        y1 = self.person(b, "yone", "127.0.0.3")
        self.assertEqual(x1.call("POST", "/api/match", TB)[0], 201)
        self.assertEqual(y1.call("POST", "/api/match", TB)[0], 201)
        tid = self.matched(y1)["table"]
        self.assertEqual(self.matched(self.on(x1, b))["table"], tid)
        # on b the address of x1 holds its share: another account of it is refused there
        x2 = self.person(b, "xtwo", "127.0.0.2")
        st, r, _ = x2.call("POST", "/api/match", TB)
        self.assertEqual((st, r.get("error", {}).get("code")), (429, "too_many_tables"), r)
        # x3 of the same address joins on a (which does not hold that table),
        # y3 on b: b makes the table and counts x3's address, which joined on a
        x3 = self.person(a, "xthree", "127.0.0.2")
        y3 = self.person(b, "ythree", "127.0.0.4")
        self.assertEqual(x3.call("POST", "/api/match", TB)[0], 201)
        self.assertEqual(y3.call("POST", "/api/match", TB)[0], 201)
        time.sleep(0.5)
        st, r, _ = y3.call("GET", "/api/match")
        self.assertEqual((st, r["state"]), (200, "waiting"), r)
        st, r, _ = x3.call("GET", "/api/match")
        self.assertEqual((st, r.get("error", {}).get("code")), (429, "too_many_tables"), r)
        self.assertIn("event=match_returned why=share", self.logs())

    def test_a_no_show_is_held_out_on_every_process(self):
        a, b = self.start(2, extra=OPEN + ["--match-first-move", "2", "--match-hold", "60"])
        came = self.person(a, "came", "127.0.0.2")
        parked = self.person(b, "parked", "127.0.0.3")
        self.assertEqual(came.call("POST", "/api/match", RT)[0], 201)
        self.assertEqual(parked.call("POST", "/api/match", RT)[0], 201)  # b makes the table
        tid = self.matched(parked)["table"]
        self.assertEqual(self.matched(came)["table"], tid)
        t0 = time.time()
        # waiting for its first move, the parked account may queue on no process
        for srv in (a, b):
            st, r, _ = self.on(parked, srv).call("POST", "/api/match", RT)
            self.assertEqual((st, r.get("error", {}).get("code"), r.get("error", {}).get("table")),
                             (409, "match_pending", tid), r)
        st, cl, _ = came.call("POST", "/api/tables/%s/claim" % tid)
        self.assertEqual(st, 200, cl)
        end = time.time() + 30
        state = None
        while time.time() < end:
            st, state, _ = came.call("GET", "/api/tables/%s/state" % tid)
            self.assertEqual(st, 200, state)
            if state["table"]["status"] == "over":
                break
            nxt = state["game"]["next"]
            if nxt["to_move"] == cl["seat"] and not state["game"]["log"]:
                came.call("POST", "/api/tables/%s/move" % tid,
                          dict(first_legal(nxt), turn=nxt["turn"]), token=cl["token"])
            time.sleep(0.1)
        self.assertEqual(state["table"]["status"], "over", self.logs()[-3000:])
        self.assertEqual(state["table"]["clock"]["ended"]["reason"], "no_show")
        self.assertEqual(state["table"]["clock"]["ended"]["seat"], 1 - cl["seat"])
        # the hold is in the store: both processes refuse the no-show
        for srv in (a, b):
            st, r, _ = self.on(parked, srv).call("POST", "/api/match", RT)
            self.assertEqual((st, r.get("error", {}).get("code")), (429, "held_out"), r)
        # the one who came goes back to its place on the other process
        st, r, _ = self.on(came, b).call("POST", "/api/match", RT)
        self.assertEqual(st, 201, r)
        self.assertGreaterEqual(r["waited_ms"], (time.time() - t0) * 1000 - 500)
        self.assertEqual(self.logs().count("event=void"), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
