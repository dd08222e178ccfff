"""One ordered stream per table across several `carc serve` processes.

Every change to a table gets the table's next sequence number in the
store, inside its own transaction; every process applies a table's
changes in that order and sends its clients what it applied. These tests
put the players and spectators of one table on different processes of
one PostgreSQL database and check that they see the same table, live:
chat lines, their numbers, and the clock after moves and after a timeout
played by another process.

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
from carcserver import first_legal  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule

CHATTY = ["--chat-rate", "600", "--chat-burst", "30"]


def recv_chat(w, count, timeout=10):
    """The next `count` chat messages on socket w (other messages skipped)."""
    out = []
    end = time.time() + timeout
    while len(out) < count:
        left = end - time.time()
        if left <= 0:
            raise AssertionError("%d of %d chat lines arrived: %r" % (len(out), count, out))
        m = w.recv_type(("chat", "error"), timeout=left)
        if m["type"] == "error":
            raise AssertionError("error instead of a chat line: %r" % m)
        out.append(m)
    return out


class StreamTest(ClusterCase):

    def two_player_table(self, a, b, extra=None):
        """alice's table made on a, bob joining on b: (id, alice's token, bob's)."""
        body = {"players": 2, "name": "alice", "seed": 11}
        body.update(extra or {})
        st, made = http_json(a.port, "POST", "/api/tables", body)
        self.assertEqual(st, 201, made)
        tid = made["id"]
        st, joined = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
        self.assertEqual(st, 200, joined)
        return tid, made["token"], joined["token"]

    def assert_storage_fine(self, servers):
        for s in servers:
            st, h = http_json(s.port, "GET", "/api/health")
            self.assertEqual(st, 200, h)
            self.assertEqual(self.metric(s.port, "carc_store_failed_writes_total"), 0,
                             self.logs())
        self.assertNotIn("writes fail from now on", self.logs())

    def test_chat_from_one_process_reaches_players_and_spectators_on_others(self):
        a, b, c = self.start(3, extra=CHATTY)
        tid, ta, tb = self.two_player_table(a, b)
        wa, wb, spec = self.ws(a.port, tid, ta), self.ws(b.port, tid, tb), self.ws(c.port, tid)
        for w in (wa, wb, spec):
            w.recv_type("state")
        wa.send({"type": "chat", "text": "hello from A", "ref": 1})
        for w in (wa, wb, spec):
            (m,) = recv_chat(w, 1)
            self.assertEqual((m["n"], m["seat"], m["text"]), (0, 0, "hello from A"))
        wb.send({"type": "chat", "phrase": "gl"})
        for w in (wa, wb, spec):
            (m,) = recv_chat(w, 1)
            self.assertEqual((m["n"], m["seat"], m.get("phrase")), (1, 1, "gl"))
        self.assert_storage_fine((a, b, c))

    def test_chat_alternating_and_at_once_from_two_processes_is_stored_once_in_order(self):
        a, b, c = self.start(3, extra=CHATTY)
        tid, ta, tb = self.two_player_table(a, b)
        wa, wb, spec = self.ws(a.port, tid, ta), self.ws(b.port, tid, tb), self.ws(c.port, tid)
        for w in (wa, wb, spec):
            w.recv_type("state")
        sent = []
        # alternating: each line after the previous one arrived everywhere
        for i in range(6):
            text = "line %d from %s" % (i, "AB"[i % 2])
            (wa, wb)[i % 2].send({"type": "chat", "text": text})
            sent.append(text)
            for w in (wa, wb, spec):
                (m,) = recv_chat(w, 1)
                self.assertEqual((m["n"], m["text"]), (i, text))
        # at once: four from each process, without waiting
        burst = []
        for i in range(4):
            for k, w in enumerate((wa, wb)):
                text = "burst %d from %s" % (i, "AB"[k])
                w.send({"type": "chat", "text": text})
                burst.append(text)
        seen = {}
        for name, w in (("A", wa), ("B", wb), ("C", spec)):
            got = recv_chat(w, len(burst))
            # every client gets every line once, in the order of the numbers
            self.assertEqual([m["n"] for m in got], list(range(6, 6 + len(burst))), name)
            self.assertEqual(sorted(m["text"] for m in got), sorted(burst), name)
            seen[name] = [m["text"] for m in got]
        self.assertEqual(seen["A"], seen["B"])
        self.assertEqual(seen["A"], seen["C"])
        # stored once each, numbered 0..13 with no gap, the same from every process
        for s in (a, b, c):
            st, chat = http_json(s.port, "GET", "/api/tables/%s/chat" % tid)
            self.assertEqual(st, 200, chat)
            lines = chat["chat"]
            self.assertEqual([m["n"] for m in lines], list(range(14)))
            self.assertEqual([m["text"] for m in lines], sent + seen["A"])
        rows = test_pg.psql(self.url, "select count(*), count(distinct n), max(n) from chat "
                            "where game_id='%s'" % tid)
        self.assertEqual(rows.strip().split("\x1f"), ["14", "14", "13"])
        self.assert_storage_fine((a, b, c))

    def clocks(self, servers, tid):
        out = []
        for s in servers:
            st, state = http_json(s.port, "GET", "/api/tables/%s/state" % tid)
            self.assertEqual(st, 200, state)
            c = dict(state["table"]["clock"])
            c.pop("server_ms")
            out.append(c)
        return out

    def wait_same_clock(self, servers, tid, want_turn, timeout=5):
        end = time.time() + timeout
        while True:
            cs = self.clocks(servers, tid)
            if all(c["turn"] == want_turn for c in cs) and all(c == cs[0] for c in cs):
                return cs[0]
            if time.time() > end:
                self.fail("the clocks differ between processes: %r\n%s" % (cs, self.logs()))
            time.sleep(0.05)

    def test_the_clock_is_the_same_on_every_process_after_a_move(self):
        a, b, c = self.start(3)
        clock = {"mode": "realtime", "move_s": 1, "reserve_s": 60, "max_timeouts": 3,
                 "takeover": "random"}
        tid, ta, tb = self.two_player_table(a, b, {"clock": clock})
        wa, wb = self.ws(a.port, tid, ta), self.ws(b.port, tid, tb)
        sa = wa.recv_type("state")
        wb.recv_type("state")
        c0 = self.wait_same_clock((a, b, c), tid, 0)
        self.assertEqual(c0["seat"], 0)
        self.assertIsNotNone(c0["deadline_ms"])
        # alice thinks 1.5 s (0.5 s past move_s) and moves on A
        time.sleep(1.5)
        nxt = sa["game"]["next"]
        wa.send(dict(first_legal(nxt), type="move", turn=0))
        relayed = [w.recv_type("move") for w in (wa, wb)]
        c1 = self.wait_same_clock((a, b, c), tid, 1)
        self.assertEqual(c1["seat"], 1)
        used = 60000 - c1["seats"][0]["reserve_ms"]
        self.assertTrue(300 <= used <= 1500, c1)
        self.assertEqual(c1["seats"][1]["reserve_ms"], 60000)
        # the move as relayed by B carries the clock after it, as A's does
        for m in relayed:
            mc = dict(m["clock"])
            mc.pop("server_ms")
            self.assertEqual(mc, c1, relayed)

    def test_the_clock_is_the_same_after_a_timeout_played_by_another_process(self):
        a, b, c = self.start(3, extra=["--bot-delay", "0"])
        clock = {"mode": "realtime", "move_s": 2, "reserve_s": 0, "max_timeouts": 3,
                 "takeover": "random"}
        tid, ta, tb = self.two_player_table(a, b, {"clock": clock})
        wa, wb, spec = self.ws(a.port, tid, ta), self.ws(b.port, tid, tb), self.ws(c.port, tid)
        for w in (wa, wb, spec):
            w.recv_type("state")
        # alice never moves: the takeover bot plays turn 0 at the deadline,
        # on whichever process owns the table's time
        relayed = [w.recv_type("move", timeout=10) for w in (wa, wb, spec)]
        for m in relayed:
            self.assertEqual(m["entry"]["turn"], 0)
        c1 = self.wait_same_clock((a, b, c), tid, 1)
        self.assertEqual(c1["seat"], 1)
        self.assertIsNotNone(c1["deadline_ms"])
        self.assertEqual(c1["seats"][0]["timeouts"], 1)
        for m in relayed:
            mc = dict(m["clock"])
            mc.pop("server_ms")
            self.assertEqual((mc["turn"], mc["seat"]), (1, 1), m)
            self.assertEqual(mc["deadline_ms"], c1["deadline_ms"], m)
            self.assertEqual(mc["seats"][0]["timeouts"], 1, m)
        # the timeout was played once: one move stored for turn 0
        rows = test_pg.psql(self.url, "select count(*) from moves where game_id='%s'" % tid)
        self.assertGreaterEqual(int(rows), 1)
        self.assertNotIn("event=conflict", self.logs())


if __name__ == "__main__":
    unittest.main(verbosity=2)
