"""A burst of moves through a database restart, several `carc serve`
processes on one PostgreSQL (the fault table of docs/server.md).

Six two-person tables, each with one player on process A and the other on
process B, play as fast as they are answered while the database is
restarted (`pg_ctl restart -m fast`, then `-m immediate`). A move the
server refuses (the database is away: `storage`) is sent again until it is
taken. Afterwards: every move a player was told was taken is stored, each
turn exactly once, every process shows the same game, and play resumed
after the restart within a bound; the time to resume is printed.

Starts a PostgreSQL of its own (test_pg_owners.RestartablePostgres).
Run: CARC=build/test/carc PG_SUITES='tests/py/test_pg_faults.py' sh tests/pg/run.sh
"""
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
import test_pg_owners  # noqa: E402
from carcserver import WSClosed, first_legal, psql  # noqa: E402
from test_pg import ClusterCase, http_json  # noqa: E402

setUpModule = test_pg_owners.setUpModule
tearDownModule = test_pg_owners.tearDownModule

TABLES = 6
PACE_S = 0.03       # between a player's moves
RESUME_BOUND_S = 5  # after pg_ctl returned, every table has moved again within this


class Player(threading.Thread):
    """Plays one table for both of its seats (alice's socket on A, bob's on
    B), each move on the socket of the seat to move, until the game ends or
    `stop` is set. Records the turns it was told were taken, and when."""

    def __init__(self, case, tid, socks, nxt, stop):
        super().__init__(daemon=True)
        self.case, self.tid, self.socks, self.nxt, self.stop = case, tid, socks, nxt, stop
        self.taken = []       # (turn, time)
        self.refused = 0
        self.error = None

    def wait_turn(self, w, turn):
        """The answer to this seat's move of `turn`: ('move', msg) or ('error', msg)."""
        end = time.time() + 10
        while time.time() < end:
            m = w.recv_type(("move", "error"), timeout=max(0.1, end - time.time()))
            if m["type"] == "move" and m["entry"]["turn"] == turn:
                return "move", m
            if m["type"] == "error" and m.get("ref") == turn:
                return "error", m
        raise AssertionError("table %s: no answer to turn %d" % (self.tid, turn))

    def resync(self, port):
        st, state = http_json(port, "GET", "/api/tables/%s/state" % self.tid)
        if st == 200:
            self.nxt = state["game"]["next"]

    def run(self):
        try:
            while not self.stop.is_set() and not self.nxt["over"]:
                turn = self.nxt["turn"]
                seat = self.nxt["to_move"]
                w, port = self.socks[seat]
                w.send(dict(first_legal(self.nxt), type="move", turn=turn, ref=turn))
                kind, m = self.wait_turn(w, turn)
                if kind == "move":
                    self.taken.append((turn, time.time()))
                    self.nxt = m["next"]
                    time.sleep(PACE_S)
                    continue
                self.refused += 1
                time.sleep(0.1)
                if m["code"] == "stale_turn":
                    self.resync(port)  # taken after all, or another turn came first
        except (AssertionError, WSClosed, OSError) as e:
            self.error = e


class RestartBurstTest(ClusterCase):

    def burst_through_restart(self, mode):
        a, b, c = self.start(3)
        players, stop = [], threading.Event()
        for i in range(TABLES):
            st, made = http_json(a.port, "POST", "/api/tables",
                                 {"players": 2, "name": "alice", "seed": 40 + i})
            self.assertEqual(st, 201, made)
            tid = made["id"]
            st, joined = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
            self.assertEqual(st, 200, joined)
            wa = self.ws(a.port, tid, made["token"])
            wb = self.ws(b.port, tid, joined["token"])
            nxt = wa.recv_type("state")["game"]["next"]
            wb.recv_type("state")
            players.append(Player(self, tid, [(wa, a.port), (wb, b.port)], nxt, stop))
        for p in players:
            p.start()
        time.sleep(0.5)
        t_restart = time.time()
        took = test_pg_owners.PG.restart(mode)
        t_back = time.time()
        end = time.time() + 30
        for p in players:
            p.join(max(0.1, end - time.time()))
        stop.set()
        for p in players:
            p.join(5)
            self.assertIsNone(p.error, "%s: %s\n%s" % (p.tid, p.error, self.logs()[-4000:]))
        resumed = []
        for p in players:
            # every move a player was told was taken is stored, each turn once
            rows = psql(self.url, "select turn from moves where game_id='%s' order by turn"
                        % p.tid).split()
            stored = [int(r) for r in rows]
            self.assertEqual(stored, list(range(len(stored))), p.tid)
            told = [t for t, _ in p.taken]
            self.assertEqual(sorted(set(told)), told, "a turn taken twice: %s" % p.tid)
            self.assertTrue(set(told) <= set(stored), "lost: %s" % sorted(set(told) - set(stored)))
            # and every process shows that game
            for s in (a, b, c):
                st, state = http_json(s.port, "GET", "/api/tables/%s/state" % p.tid)
                self.assertEqual(st, 200)
                self.assertEqual(len(state["game"]["log"]), len(stored), (p.tid, s.port))
            after = [at for _, at in p.taken if at > t_back]
            if not p.nxt["over"] or after:
                self.assertTrue(after, "table %s never moved after the restart" % p.tid)
                resumed.append(after[0] - t_back)
        lost_twice = sum(len(p.taken) - len(set(t for t, _ in p.taken)) for p in players)
        worst = max(resumed) if resumed else 0.0
        print("\ntest_pg: faults: burst through pg_ctl restart -m %s (%.2f s): %d moves taken, "
              "%d refused and sent again, 0 lost, %d twice; play resumed %.2f-%.2f s after "
              "pg_ctl returned" % (mode, took, sum(len(p.taken) for p in players),
                                   sum(p.refused for p in players), lost_twice,
                                   min(resumed) if resumed else 0.0, worst), file=sys.stderr)
        self.assertLess(worst, RESUME_BOUND_S, "play resumed too late")
        self.assertGreater(t_back, t_restart)

    def test_a_burst_of_moves_through_a_fast_restart(self):
        self.burst_through_restart("fast")

    def test_a_burst_of_moves_through_an_immediate_restart(self):
        self.burst_through_restart("immediate")


if __name__ == "__main__":
    unittest.main(verbosity=2)
