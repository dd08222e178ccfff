"""Training against bots with several `carc serve` processes on one
PostgreSQL database: moves taken back on one process (src/server/table/
undo.c) reach every other process through the table's stream. The undo's
transaction bumps games.seq and counts games.undos; a process whose count
differs from the store's loads the table again, so a spectator on another
process sees the position taken back, live, and a process that held the
table without a client finds it after the undo and the moves played again.

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase, http_json  # noqa: E402
from carcserver import CARC, first_legal  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


class PgUndoTest(ClusterCase):

    def state(self, srv, tid, token=None):
        st, s = http_json(srv.port, "GET", "/api/tables/%s/state" % tid, token=token)
        self.assertEqual(st, 200, s)
        return s

    def my_turn(self, srv, tid, token, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.state(srv, tid, token)
            nxt = s["game"]["next"]
            if nxt["over"] or nxt["to_move"] == 0:
                return s
            time.sleep(0.02)
        self.fail("the person never came to move")

    def play(self, srv, tid, token, n):
        turns = []
        for _ in range(n):
            nxt = self.my_turn(srv, tid, token)["game"]["next"]
            if nxt["over"]:
                break
            st, r = http_json(srv.port, "POST", "/api/tables/%s/move" % tid,
                              dict(first_legal(nxt), turn=nxt["turn"]), token=token)
            self.assertEqual(st, 200, r)
            turns.append(nxt["turn"])
        return turns

    def test_spectator_on_another_process_sees_the_undo(self):
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"seats": [{}, {"bot": "random"}], "name": "me", "seed": 21})
        self.assertEqual(st, 201, made)
        tid, tok = made["id"], made["token"]
        mine = self.play(a, tid, tok, 4)
        self.my_turn(a, tid, tok)
        w = self.ws(b.port, tid)
        s = w.recv_type("state")
        self.assertEqual(len(s["game"]["log"]), mine[-1] + 2)
        st, r = http_json(a.port, "POST", "/api/tables/%s/undo" % tid, {"moves": 2}, token=tok)
        self.assertEqual(st, 200, r)
        self.assertEqual(r["turn"], mine[2])
        m = w.recv_type("undone", timeout=10)
        self.assertEqual((m["turn"], m["undos"]), (mine[2], 2))
        w.send({"type": "state"})
        s = w.recv_type("state")
        self.assertEqual(len(s["game"]["log"]), mine[2])
        self.assertEqual(s["game"]["next"]["turn"], mine[2])
        self.assertEqual(s["table"]["undos"], 2)
        # played on: the spectator on b gets the new moves, the same as a's
        self.play(a, tid, tok, 2)
        self.my_turn(a, tid, tok)
        want = self.state(a, tid)["game"]["log"]
        got = []
        deadline = time.time() + 10
        while len(got) < len(want) - mine[2] and time.time() < deadline:
            got.append(w.recv_type("move", timeout=10)["entry"])
        self.assertEqual(got, want[mine[2]:])
        self.assertEqual(self.state(b, tid)["game"]["log"], want)

    def test_a_process_without_clients_finds_the_moves_played_again(self):
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"seats": [{}, {"bot": "random"}], "name": "me", "seed": 22})
        self.assertEqual(st, 201, made)
        tid, tok = made["id"], made["token"]
        self.play(a, tid, tok, 3)
        self.my_turn(a, tid, tok)
        before = self.state(b, tid)["game"]["log"]  # b holds it now, without a client
        # the last move taken back and played again otherwise: as many moves
        # as b holds, but not the same ones
        st, r = http_json(a.port, "POST", "/api/tables/%s/undo" % tid, {}, token=tok)
        self.assertEqual(st, 200, r)
        nxt = self.state(a, tid, tok)["game"]["next"]
        pl = nxt["legal"]["placements"][-1]
        st, mv = http_json(a.port, "POST", "/api/tables/%s/move" % tid,
                           {"x": pl["x"], "y": pl["y"], "rot": pl["rot"], "meeple": None,
                            "turn": nxt["turn"]}, token=tok)
        self.assertEqual(st, 200, mv)
        self.my_turn(a, tid, tok)
        after = self.state(a, tid)["game"]["log"]
        self.assertEqual(len(after), len(before))
        self.assertNotEqual(after, before)
        self.assertEqual(self.state(b, tid)["game"]["log"], after)
        # to the end on b this time: the record replays and a has the same
        deadline = time.time() + 60
        while time.time() < deadline:
            if not self.play(b, tid, tok, 1):
                break
        rec_b = http_json(b.port, "GET", "/api/tables/%s/record" % tid)[1]
        rec_a = http_json(a.port, "GET", "/api/tables/%s/record" % tid)[1]
        self.assertEqual(rec_b["turns"], rec_a["turns"])
        self.assertEqual(rec_b["undos"], 1)
        path = os.path.join(self.dir, "undo-record.json")
        with open(path, "w") as f:
            json.dump(rec_b, f)
        p = subprocess.run([CARC, "replay", path], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
