"""Friends across several `carc serve` processes on one PostgreSQL database
(docs/server.md "Friends"): a request made on one process is seen and
accepted on another, presence written by one process is read by another
(online, then offline once the window has passed), an invite made on one
process shows on another and the invitee takes the seat there, and the
chat lines of a blocked account are kept from the blocker on a third.
Then every test of test_friends.py once more, on PostgreSQL (the store's
other implementation of the same steps and limits).

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import carcserver  # noqa: E402
import test_pg  # noqa: E402
from test_pg import ClusterCase  # noqa: E402
from test_accounts import Client  # noqa: E402
import test_friends  # noqa: E402
from test_friends import Person, OPEN  # noqa: E402

_saved_admin = carcserver.PG_ADMIN


def setUpModule():
    test_pg.setUpModule()
    # the single-process tests of test_friends.py: their servers on PostgreSQL
    carcserver.PG_ADMIN = test_pg.PG_URL


def tearDownModule():
    carcserver.PG_ADMIN = _saved_admin
    test_pg.tearDownModule()


class FriendsOnPostgres(test_friends.FriendsTest):
    def setUp(self):
        if test_pg.SKIP:
            self.skipTest(test_pg.SKIP)
        super().setUp()


class LimitsOnPostgres(test_friends.LimitsTest):
    def setUp(self):
        if test_pg.SKIP:
            self.skipTest(test_pg.SKIP)
        super().setUp()

FAST = OPEN + ["--presence-every", "1", "--online-window", "2",
               "--chat-rate", "600", "--chat-burst", "30"]


def on(srv, person):
    """The same account's browser on another process (its session is in the store)."""
    c = Client(srv, session=person.session)
    c.id, c.name = person.id, person.name
    c.friends = lambda: Person.friends(c)
    c.do = lambda verb, **body: Person.do(c, verb, **body)
    c.join = lambda tid: Person.join(c, tid)
    return c


class FriendsClusterTest(ClusterCase):
    def wait_for(self, fn, timeout=10):
        end = time.time() + timeout
        while True:
            v = fn()
            if v or time.time() > end:
                return v
            time.sleep(0.1)

    def test_requests_and_presence_across_processes(self):
        a, b = self.start(2, extra=FAST)
        alice, bob = Person(a, "Alice"), Person(b, "Bob")
        self.assertEqual(alice.do("request", name="Bob")[0], 200)  # on a
        self.assertEqual([p["name"] for p in bob.friends()["incoming"]], ["Alice"])  # on b
        self.assertEqual(bob.do("accept", id=alice.id)[0], 200)  # on b
        (fb,) = alice.friends()["friends"]  # on a: Bob was seen by b just now
        self.assertEqual((fb["name"], fb["online"]), ("Bob", True))
        time.sleep(3.2)
        (fb,) = alice.friends()["friends"]
        self.assertFalse(fb["online"], fb)
        bob.friends()  # Bob is back, on b
        # b writes his last-seen time in the background (its writer thread):
        # a reads it once that is committed
        fb = self.wait_for(lambda: [f for f in alice.friends()["friends"] if f["online"]], 5)
        self.assertEqual([f["name"] for f in fb], ["Bob"], alice.friends())
        # the second process sees the first one's writes the same way
        (fa,) = on(b, alice).friends()["friends"]
        self.assertEqual(fa["name"], "Bob")

    def test_an_invite_made_on_one_process_is_taken_on_another(self):
        a, b, c = self.start(3, extra=FAST)
        alice, bob = Person(a, "Alice"), Person(b, "Bob")
        t = alice.create(seats=[{}, {}], spectator_chat=True)
        tid = t["id"]
        st, r = alice.do("invite", table=tid, name="Bob")  # on a
        self.assertEqual(st, 200, r)
        (inv,) = bob.friends()["invites"]  # on b
        self.assertEqual((inv["table"], inv["from"]["name"]), (tid, "Alice"))
        jb = bob.join(tid)  # on b
        self.assertEqual(bob.friends()["invites"], [])
        st, info, _ = a.get("/api/tables/" + tid)
        self.assertEqual(self.wait_for(lambda: a.get("/api/tables/" + tid)[1]["status"]
                                       == "playing"), True, info)
        # Alice (on a) blocks Bob; his line written on b reaches a guest on c, not her
        wa = a.ws(tid, t["token"], headers=alice.cookie_header())
        wb = b.ws(tid, jb["token"], headers={"Cookie": "carc_session=" + bob.session})
        guest = c.ws(tid)
        self.sockets += [wa, wb, guest]
        for w in (wa, wb, guest):
            w.recv_type(("state",))
        # (by name: an id names only a linked account, and the invite went
        # when he sat down)
        self.assertEqual(on(c, alice).do("block", name="Bob")[0], 200)  # on c
        wb.send({"type": "chat", "text": "from Bob"})
        self.assertEqual(guest.recv_type(("chat",))["text"], "from Bob")
        wa.send({"type": "chat", "text": "from Alice"})
        self.assertEqual(guest.recv_type(("chat",))["text"], "from Alice")
        self.assertEqual(wa.recv_type(("chat",))["text"], "from Alice")  # not Bob's first


if __name__ == "__main__":
    unittest.main(verbosity=2)
