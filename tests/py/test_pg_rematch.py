"""Rematches across processes (issue 22, defects 1 and 2): two `carc
serve` processes on one PostgreSQL database, each account with a browser
on each process. Alice asks for the rematch on process A, her second
browser claims her seat on process B, Bob's second browser (on A) picks
up the seat kept for him, the game is played from both processes to the
end, and the store holds the seats' accounts and the ratings exactly once.
The steps are tests/py/test_rematch.py's check_rematch.

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase  # noqa: E402
from carcserver import psql  # noqa: E402
from test_accounts import Client  # noqa: E402
from test_rematch import check_rematch  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


class PgRematchTest(ClusterCase):
    def rows(self, sql, args):
        q = sql
        for a in args:
            q = q.replace("%s", "'%s'" % str(a).replace("'", "''"), 1)
        out = psql(self.url, q)
        return [tuple(line.split("\x1f")) for line in out.splitlines() if line]

    def test_a_rematch_follows_the_accounts_over_two_processes(self):
        a, b = self.start(2)
        a1, b1 = Client(a), Client(b)
        self.assertEqual(a1.register("Alice")[0], 201)
        self.assertEqual(b1.register("Bob")[0], 201)
        a2, b2 = Client(b), Client(a)  # each account's other browser, on the other process
        self.assertEqual(a2.login("Alice")[0], 200)
        self.assertEqual(b2.login("Bob")[0], 200)
        nid = check_rematch(self, a1, b1, a2, b2, self.rows)
        # rated once: one row per account, whichever process stored the last move
        self.assertEqual(len(self.rows("SELECT account FROM ratings WHERE game_id=%s", (nid,))), 2)
        self.assertNotIn("writes fail from now on", self.logs())


if __name__ == "__main__":
    unittest.main()
