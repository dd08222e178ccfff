"""Quick match with several `carc serve` processes on one PostgreSQL
database (issue 22, item 2): the queue is in the store, so two people
queued on different processes find each other, exactly once; and many
people joining and polling at once on three processes are each seated at
most once (FOR UPDATE SKIP LOCKED in store_match.c).

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase  # noqa: E402
from carcserver import psql  # noqa: E402
from test_accounts import Client  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule

OPEN = ["--rate-logins", "0", "--auth-queue-per-addr", "0", "--rate-match", "0",
        "--rate-requests", "0", "--max-tables-share", "0", "--match-poll-ms", "0"]
CHOICE = {"players": 2, "rules": "base", "clock": "rt-60"}


class PgQuickMatchTest(ClusterCase):

    def register(self, srv, name):
        c = Client(srv)
        st, r, _ = c.register(name)
        self.assertEqual(st, 201, r)
        return c

    def poll_until_matched(self, c, timeout=20):
        end = time.time() + timeout
        r = None
        while time.time() < end:
            st, r, _ = c.call("GET", "/api/match")
            self.assertEqual(st, 200, r)
            if r["state"] == "matched" and r["ready"]:
                return r
            time.sleep(0.15)
        self.fail("not matched in %d s: %r\n%s" % (timeout, r, self.logs()))

    def seats_of_accounts(self):
        rows = psql(self.url, "SELECT account, count(*) FROM seats WHERE account <> 0"
                              " GROUP BY account").splitlines()
        return {int(a): int(n) for a, n in (r.split("\x1f") for r in rows)}

    def test_people_on_two_processes_meet_once(self):
        a, b = self.start(2, extra=OPEN)
        anna, bert = self.register(a, "anna"), self.register(b, "bert")
        st, r, _ = anna.call("POST", "/api/match", CHOICE)
        self.assertEqual((st, r["state"]), (201, "waiting"), r)
        st, r, _ = bert.call("POST", "/api/match", CHOICE)
        self.assertEqual(st, 201, r)
        ma, mb = self.poll_until_matched(anna), self.poll_until_matched(bert)
        self.assertEqual(ma["table"], mb["table"])
        self.assertNotEqual(ma["seat"], mb["seat"])
        tid = ma["table"]
        # one table, on both processes, with both accounts
        self.assertEqual(psql(self.url, "SELECT count(*) FROM games").strip(), "1")
        for srv, who in ((a, anna), (b, bert)):
            st, info, _ = srv.http("GET", "/api/tables/" + tid)
            self.assertEqual(st, 200, info)
            self.assertEqual(info["status"], "playing")
            st, cl, _ = who.call("POST", "/api/tables/%s/claim" % tid)
            self.assertEqual(st, 200, cl)
        self.assertEqual(sorted(self.seats_of_accounts().values()), [1, 1])
        # polling on the other process tells the same
        anna.srv = b
        st, r, _ = anna.call("GET", "/api/match")
        self.assertEqual((r["state"], r["table"]), ("matched", tid))

    def test_many_concurrent_joins_never_seat_anyone_twice(self):
        procs = self.start(3, extra=OPEN)
        n2, n3 = 24, 12  # two-player and three-player pools
        people = []
        for i in range(n2 + n3):
            people.append(self.register(procs[i % 3], "p%02d" % i))
        errors = []

        def play(i, c):
            try:
                choice = CHOICE if i < n2 else {"players": 3, "rules": "ic", "clock": "tb-1d"}
                # each joins on one process and polls on the others in turn
                c.srv = procs[(i + 1) % 3]
                st, r, _ = c.call("POST", "/api/match", choice)
                if st != 201:
                    errors.append((i, st, r))
                    return
                end = time.time() + 40
                k = 0
                while time.time() < end:
                    c.srv = procs[k % 3]
                    k += 1
                    st, r, _ = c.call("GET", "/api/match")
                    if st != 200:
                        errors.append((i, st, r))
                        return
                    if r["state"] == "matched" and r["ready"]:
                        return
                    time.sleep(0.05)
                errors.append((i, "never matched", r))
            except Exception as e:  # noqa: BLE001
                errors.append((i, repr(e)))

        threads = [threading.Thread(target=play, args=(i, c)) for i, c in enumerate(people)]
        t0 = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        print("test_pg: %d people joining and polling on 3 processes all seated in %.2f s"
              % (len(people), time.time() - t0), file=sys.stderr)
        self.assertEqual(errors, [], self.logs()[-3000:])
        seated = self.seats_of_accounts()
        self.assertEqual(len(seated), n2 + n3)
        self.assertEqual(set(seated.values()), {1}, seated)
        games = psql(self.url, "SELECT players, count(*) FROM games GROUP BY players").splitlines()
        counts = {int(p): int(n) for p, n in (g.split("\x1f") for g in games)}
        self.assertEqual(counts, {2: n2 // 2, 3: n3 // 3})
        # every table seats distinct accounts, as many as it has players
        rows = psql(self.url, "SELECT g.players, count(DISTINCT s.account) FROM games g"
                              " JOIN seats s ON s.game_id = g.id GROUP BY g.id, g.players").splitlines()
        for r in rows:
            p, d = r.split("\x1f")
            self.assertEqual(p, d)
        self.assertNotIn("match_failed", self.logs())


if __name__ == "__main__":
    unittest.main()
