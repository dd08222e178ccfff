"""Turns made of steps with several `carc serve` processes on one
PostgreSQL database (issue 27; tests/py/test_steps.py has the rest): the
test build's "test-pass" step, which the engine alone knows, decided on
one process and heard on another through the store and the table's
stream.

- Two people on two processes play a "test-pass" table to the end over
  the WebSocket: each decides on its own process, so every turn's pass is
  made on the other process than the tile before it. One process is
  restarted midway and its person connects to the new one. Both processes
  end with the same game; the record replays with `carc replay`, the
  analysis asked of one process is read from the other.
- A person against a bot, the person's connection on another process than
  the one that made the table: the person's decisions taken back (an undo
  that lands on a test-pass step), heard on every process; played to the
  end after it.

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase, http_json  # noqa: E402
from test_steps import TEST_STEP, Table, check_record_and_analysis, names  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


class PgSteps(ClusterCase):
    def setUp(self):
        super().setUp()
        v = names()
        if TEST_STEP not in v["steps"]:
            self.skipTest("a test build's engine knows the test-pass step (make MODE=test)")
        self.tile_step = v["steps"][0]

    def finished_state(self, srv, tid):
        st, s = http_json(srv.port, "GET", "/api/tables/%s/state" % tid)
        self.assertEqual(st, 200, s)
        self.assertEqual(s["table"]["status"], "over")
        return s

    def test_two_people_on_two_processes_play_a_test_pass_game(self):
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"name": "Ann", "expansions": [TEST_STEP], "seed": 2729})
        self.assertEqual(st, 201, made)
        tid = made["id"]
        st, j = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "Bob"})
        self.assertEqual(st, 200, j)
        home = {0: a, 1: b}
        table = Table(self, lambda seat, tok: self.ws(home[seat].port, tid, tok), tid,
                      {0: made["token"], 1: j["token"]})
        rng = random.Random(29)
        where = []

        def seen(tb, m):
            e = m["entry"]
            if TEST_STEP in e:
                where.append((home[tb.log[-2]["player"]].port, home[e["player"]].port))

        table.play(rng, lambda tb: len(tb.log) >= 20, seen)
        # a restarted: Ann's person connects to the new process
        a.stop()
        (a2,) = self.start(1)
        home[0] = a2
        before = table.log
        table.connect()
        self.assertEqual(table.log, before)
        table.play(rng, lambda tb: False, seen)
        self.assertTrue(where and all(x != y for x, y in where), where)
        sa, sb = self.finished_state(a2, tid), self.finished_state(b, tid)
        self.assertEqual(sa["game"]["log"], sb["game"]["log"])
        self.assertEqual(sa["game"]["log"], table.log)
        check_record_and_analysis(
            self, lambda path: http_json(b.port, "GET", path),
            lambda path: http_json(a2.port, "POST", path, {}), tid, sb)

    def test_a_person_against_a_bot_takes_decisions_back_on_another_process(self):
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"name": "Ann", "seats": [{}, {"bot": "random"}],
                              "expansions": [TEST_STEP], "seed": 2730})
        self.assertEqual(st, 201, made)
        tid, tok = made["id"], made["token"]
        table = Table(self, lambda seat, t: self.ws(b.port, tid, t), tid, {0: tok})
        watch = self.ws(a.port, tid)
        watch.recv_type(("state",))
        rng = random.Random(30)
        # the person's latest decision a pass on the bot's turn
        table.play(rng, lambda tb: len(tb.log) >= 10 and tb.nxt["to_move"] == 0 and
                   tb.nxt["step_kind"] == self.tile_step and tb.log[-1]["player"] == 0)
        back = table.log[-1]
        self.assertIn(TEST_STEP, back)
        table.socks[0].send({"type": "undo", "moves": 1})
        for w in (table.reader, watch):
            u = w.recv_type(("undone",), timeout=15)
            self.assertEqual((u["step"], u["turn"], u["undone"] in (0, 1), u["undos"]),
                             (back["step"], back["turn"], True, 1))
        for srv in (a, b):
            st, s = http_json(srv.port, "GET", "/api/tables/%s/state" % tid)
            nxt = s["game"]["next"]
            self.assertEqual((nxt["step"], nxt["step_kind"], nxt["to_move"], nxt["turn_player"]),
                             (back["step"], TEST_STEP, 0, 1))
        table.socks[0].send({"type": "state"})
        s = table.reader.recv_type(("state",))
        table.log, table.nxt = s["game"]["log"], s["game"]["next"]
        table.play(rng, lambda tb: False)
        sa, sb = self.finished_state(a, tid), self.finished_state(b, tid)
        self.assertEqual(sa["game"]["log"], sb["game"]["log"])
        self.assertEqual(sa["table"]["undos"], 1)
        check_record_and_analysis(
            self, lambda path: http_json(a.port, "GET", path),
            lambda path: http_json(b.port, "POST", path, {}), tid, sa)


if __name__ == "__main__":
    unittest.main()
