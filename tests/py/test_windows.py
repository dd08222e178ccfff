"""One seat open in several windows (issue 22, defect 10) against the real
server on loopback: the newest window to open a seat takes its controls
({"type": "window", "window": id, "take": true}); every client at the seat
hears "seat_window" with the holder's id; a window that reconnects asks
(take false) and is told who holds the seat, also after a restart (the
holder is stored with the seat); the message's limits (the id's form,
"take"'s type, a seat needed, takes of one seat per second).

    CARC=build/release/carc python3 tests/py/test_windows.py

tests/py/test_pg_windows.py checks the same with the windows on two
processes of one PostgreSQL database.
"""
import os
import time
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, connect_db  # noqa: E402

W1, W2, W3 = "1" * 16, "2" * 16, "abcdef0123456789"


def holder(w, seat=0, timeout=5):
    """The next "seat_window" of `seat` on socket w (errors fail the test)."""
    while True:
        m = w.recv_type(("seat_window", "error"), timeout=timeout)
        if m["type"] == "error":
            raise AssertionError("error instead of seat_window: %r" % m)
        if m["seat"] == seat:
            return m["window"]


def error_of(w, timeout=5):
    return w.recv_type(("error",), timeout=timeout)


class WindowsTest(ServerCase):
    def table(self, srv):
        c = srv.create(name="Alice", players=2)
        j = srv.join(c["id"], "Bob")
        return c["id"], c["token"], j["token"]

    def open(self, srv, tid, token):
        w = self.ws(srv, tid, token)
        w.recv_type("state")
        return w

    def test_the_newest_window_takes_the_seat_and_a_reconnect_only_asks(self):
        srv = self.start()
        tid, ta, tb = self.table(srv)
        w1 = self.open(srv, tid, ta)
        w1.send({"type": "window", "window": W1, "take": True})
        self.assertEqual(holder(w1), W1)
        # a second window of the same seat: it takes the controls, the first hears it
        w2 = self.open(srv, tid, ta)
        w2.send({"type": "window", "window": W2, "take": True})
        self.assertEqual(holder(w2), W2)
        self.assertEqual(holder(w1), W2)
        # the other seat's player hears it too (a seat_window of seat 0) and
        # holds its own seat apart
        bob = self.open(srv, tid, tb)
        bob.send({"type": "window", "window": W3, "take": True})
        self.assertEqual(holder(bob, seat=1), W3)
        # the first window reconnects: it asks, and is told the second holds it
        w1.close()
        w1 = self.open(srv, tid, ta)
        w1.send({"type": "window", "window": W1, "take": False})
        self.assertEqual(holder(w1), W2)
        # the first window takes the seat back (its button)
        w1.send({"type": "window", "window": W1, "take": True})
        self.assertEqual(holder(w1), W1)
        self.assertEqual(holder(w2), W1)
        # stored with the seat: after a restart a reconnect is told the same
        # (the writer stores it after the answer: wait for it, bounded)
        deadline = time.time() + 5
        while True:
            con = connect_db(srv.db)
            rows = con.execute("SELECT seat, window_id FROM seats WHERE game_id=? ORDER BY seat",
                               (tid,)).fetchall()
            con.close()
            # (str: the PostgreSQL reader of connect_db makes numbers of digits)
            rows = [(int(a), str(b)) for a, b in rows]
            if rows == [(0, W1), (1, W3)] or time.time() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(rows, [(0, W1), (1, W3)])
        for w in (w1, w2, bob):
            w.close()
        srv.stop()
        srv = self.start()
        w2 = self.open(srv, tid, ta)
        w2.send({"type": "window", "window": W2, "take": False})
        self.assertEqual(holder(w2), W1)
        # a seat nobody holds yet is taken by the first window that asks
        st = srv.create(name="Carl", players=2)
        w = self.open(srv, st["id"], st["token"])
        w.send({"type": "window", "window": W3, "take": False})
        self.assertEqual(holder(w), W3)

    def test_the_limits_of_a_window_message(self):
        srv = self.start()
        tid, ta, _ = self.table(srv)
        w = self.open(srv, tid, ta)
        for bad in ("", "abc", "1" * 15, "1" * 17, "ABCDEF0123456789", "g" * 16, 12, None,
                    "1" * 1000):
            w.send({"type": "window", "window": bad, "take": True})
            e = error_of(w)
            self.assertEqual(e["code"], "malformed", bad if not isinstance(bad, str) else bad[:20])
        w.send({"type": "window", "window": W1, "take": "yes"})
        self.assertEqual(error_of(w)["code"], "malformed")
        # a spectator holds no seat
        spec = self.open(srv, tid, None)
        spec.send({"type": "window", "window": W1, "take": True})
        self.assertEqual(error_of(spec)["code"], "bad_token")
        # takes of one seat: WINDOW_TAKE_BURST at once, then refused with a wait
        for i in range(5):
            w.send({"type": "window", "window": "%016x" % (i + 1), "take": True})
            self.assertEqual(holder(w), "%016x" % (i + 1))
        w.send({"type": "window", "window": "%016x" % 99, "take": True})
        e = error_of(w)
        self.assertEqual(e["code"], "rate_limited")
        self.assertGreaterEqual(e["retry_after_s"], 1)
        # asking costs nothing, and the holder is unchanged
        w.send({"type": "window", "window": W2, "take": False})
        self.assertEqual(holder(w), "%016x" % 5)


if __name__ == "__main__":
    unittest.main()
