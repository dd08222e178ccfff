"""One seat open in two windows on two `carc serve` processes of one
PostgreSQL database (issue 22, defect 10): the window on process B takes
the seat and the one on process A hears it; A's takes it back and B's
hears it; a third process that loads the table later tells a reconnecting
window who holds the seat (the holder is in the store, not in one
process's memory).

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase, http_json  # noqa: E402
from test_windows import W1, W2, holder  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


class PgWindowsTest(ClusterCase):
    def test_the_holder_of_a_seat_is_seen_by_every_process(self):
        a, b, c = self.start(3)
        st, made = http_json(a.port, "POST", "/api/tables", {"players": 2, "name": "alice"})
        self.assertEqual(st, 201, made)
        tid, ta = made["id"], made["token"]
        st, _ = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
        self.assertEqual(st, 200)
        wa, wb = self.ws(a.port, tid, ta), self.ws(b.port, tid, ta)
        for w in (wa, wb):
            w.recv_type("state")
        wa.send({"type": "window", "window": W1, "take": True})
        self.assertEqual(holder(wa), W1)
        self.assertEqual(holder(wb), W1, "process B hears of A's window")
        t0 = time.time()
        wb.send({"type": "window", "window": W2, "take": True})
        self.assertEqual(holder(wb), W2)
        self.assertEqual(holder(wa), W2, "process A hears of B's window")
        print("\ntest_pg_windows: a take on B reached the window on A in %.0f ms"
              % ((time.time() - t0) * 1000), file=sys.stderr)
        wa.send({"type": "window", "window": W1, "take": True})
        self.assertEqual(holder(wa), W1)
        self.assertEqual(holder(wb), W1)
        # process C had nothing of the table: a window reconnecting there asks
        wc = self.ws(c.port, tid, ta)
        wc.recv_type("state")
        wc.send({"type": "window", "window": W2, "take": False})
        self.assertEqual(holder(wc), W1)
        self.assertNotIn("was not stored", self.logs())


if __name__ == "__main__":
    unittest.main()
