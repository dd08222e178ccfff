"""Time controls, timeouts played by the bot, bot takeover and resignation
(issue 14, point 3), against the real server on loopback. Clocks are short
(1-4 s a move) so that the whole file takes well under a minute.

Run: CARC=build/test/carc python3 tests/py/test_clocks.py
The deadline -> bot move latency is printed as "clock latency: ...".
"""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, Server, ServerCase, first_legal  # noqa: E402
from carcserver import connect_db  # noqa: E402


# the takeover level of the latency measurement (its thinking time is part
# of the latency): CARC_CLOCK_TAKEOVER=medium measures the default level
TAKEOVER = os.environ.get("CARC_CLOCK_TAKEOVER", "random")


def now_ms():
    return time.time() * 1000.0


def clock_of(m):
    """The clock of a state, move or table message."""
    if m.get("type") == "move":
        return m["clock"]
    if m.get("type") == "state":
        return m["table"]["clock"]
    return m["table"]["clock"]


def timed(players=2, move_s=1, reserve_s=0, max_timeouts=3, takeover="random", **kw):
    clock = {"mode": "realtime", "move_s": move_s, "reserve_s": reserve_s,
             "max_timeouts": max_timeouts, "takeover": takeover}
    seats = [{}] + [{"bot": "random"}] * (players - 1)
    opts = {"players": players, "seats": seats, "clock": clock, "name": "Idle"}
    opts.update(kw)
    return opts


def wait_stored_clock(db, tid, step, timeout=5):
    """Waits until the store holds the clock of `step` (the write follows the
    answer to the request that started the step)."""
    import sqlite3
    end = time.time() + timeout
    while time.time() < end:
        con = connect_db(db)
        try:
            row = con.execute("select step from clocks where game_id=?", (tid,)).fetchone()
        except (sqlite3.OperationalError, RuntimeError):
            row = None
        finally:
            con.close()
        if row and row[0] == step:
            return
        time.sleep(0.02)
    raise AssertionError("the clock of %s step %d was not stored" % (tid, step))


def pct(xs, p):
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(p / 100.0 * (len(xs) - 1)))))
    return xs[k]


class ClockTest(ServerCase):
    def start_clock(self, extra=()):
        return self.start(extra=list(extra) + ["--bot-delay", "0"])

    # --- timeouts ----------------------------------------------------------------------

    def test_bot_moves_at_the_deadline(self):
        """A human seat that never moves: at each deadline the takeover bot
        moves for it, not before the deadline and soon after it."""
        srv = self.start_clock()
        tables, socks = [], []
        for _ in range(4):
            r = srv.create(**timed(move_s=1, max_timeouts=100, takeover=TAKEOVER))
            tables.append(r)
            socks.append(self.ws(srv, r["id"], r["token"]))
        lat = []
        for r, w in zip(tables, socks):
            w.deadline = None
            w.samples = 0
        end = time.time() + 25
        while time.time() < end and min(w.samples for w in socks) < 6:
            for r, w in zip(tables, socks):
                try:
                    m = w.recv(timeout=0.05)
                except Exception:
                    continue
                if m["type"] not in ("state", "move", "table"):
                    continue
                t = now_ms()
                c = clock_of(m)
                if m["type"] == "move" and m["entry"]["player"] == r["seat"]:
                    self.assertIsNotNone(w.deadline, "a move for the idle seat without a deadline")
                    # the same host: one clock; the server's time corrects any offset
                    self.assertGreaterEqual(t + 5, w.deadline, "the bot moved before the deadline")
                    lat.append(t - w.deadline)
                    w.samples += 1
                    self.assertEqual(c["seats"][r["seat"]]["timeouts"], w.samples)
                    self.assertEqual(c["seats"][r["seat"]]["reserve_ms"], 0)
                if c["deadline_ms"] is not None:
                    self.assertEqual(c["seat"], r["seat"])
                    w.deadline = c["deadline_ms"]
        self.assertGreaterEqual(len(lat), 24, "too few timed-out moves: %d" % len(lat))
        p50, p99 = pct(lat, 50), pct(lat, 99)
        print("\nclock latency: deadline -> bot move seen by the client, %d samples: "
              "p50 %.1f ms, p99 %.1f ms, max %.1f ms (%s, takeover %s)" %
              (len(lat), p50, p99, max(lat), CARC, TAKEOVER), file=sys.stderr)
        self.assertLess(p99, 1500, "the bot moved long after the deadline")
        log = srv.read_log()
        self.assertIn("event=timeout", log)

    def test_takeover_after_max_timeouts_in_a_row(self):
        srv = self.start_clock()
        r = srv.create(**timed(move_s=1, max_timeouts=2))
        tid, me = r["id"], r["seat"]
        w = self.ws(srv, tid, r["token"])
        forfeited_at = None
        mine = 0
        end = time.time() + 15
        while time.time() < end and mine < 4:
            m = w.recv_type("move", timeout=5)
            c = m["clock"]
            if m["entry"]["player"] == me:
                mine += 1
                if mine == 2:
                    self.assertTrue(c["seats"][me]["forfeited"])
                    forfeited_at = time.time()
                elif mine == 1:
                    self.assertFalse(c["seats"][me]["forfeited"])
            if forfeited_at:
                # the bot plays the seat to the end: no deadline for it any more
                self.assertIsNone(c["deadline_ms"])
        self.assertEqual(mine, 4)
        # after the takeover the seat's moves come at the bot's pace, not at
        # the deadline's (1 s a move): two moves of the seat took well under 2 s
        self.assertLess(time.time() - forfeited_at, 1.5)
        st = srv.state(tid, r["token"])
        self.assertTrue(st["table"]["clock"]["seats"][me]["forfeited"])
        # the player cannot move for the seat any more
        nxt = st["game"]["next"]
        code, body, _ = srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt)),
                                 token=r["token"])
        self.assertEqual(code, 409)
        self.assertIn(body["error"]["code"], ("forfeited", "not_your_turn", "game_over"))
        self.assertIn("event=takeover seat=%d" % me, srv.read_log())

    def test_reserve_shrinks_by_what_a_move_takes_past_move_s(self):
        srv = self.start_clock()
        r = srv.create(**timed(move_s=1, reserve_s=3))
        tid, me = r["id"], r["seat"]
        w = self.ws(srv, tid, r["token"])
        st = w.recv_type("state")
        c = clock_of(st)
        self.assertEqual(c["seats"][me]["reserve_ms"], 3000)
        d0 = c["deadline_ms"]
        self.assertAlmostEqual(d0 - c["turn_start_ms"], 4000, delta=1)
        time.sleep(1.6)
        w.send({"type": "move", "turn": st["game"]["next"]["turn"],
                **first_legal(st["game"]["next"])})
        m = w.recv_type("move")
        self.assertEqual(m["entry"]["player"], me)
        left = m["clock"]["seats"][me]["reserve_ms"]
        # 1.6 s taken, 1 s per move: about 0.6 s off the reserve (a busy machine: generous)
        self.assertLess(left, 3000 - 400)
        self.assertGreater(left, 3000 - 1400)
        self.assertEqual(m["clock"]["seats"][me]["timeouts"], 0)
        # the next own turn: move_s plus what is left
        m = w.recv_type("move", timeout=5)
        c = m["clock"]
        self.assertEqual(c["seat"], me, "the bot's move %s; the server's log ends:\n%s"
                         % (m, srv.read_log()[-5000:]))
        self.assertAlmostEqual(c["deadline_ms"] - c["turn_start_ms"], 1000 + left, delta=1)

    # --- restart -------------------------------------------------------------------------

    def test_a_restart_keeps_the_deadline(self):
        srv = self.start_clock()
        r = srv.create(**timed(move_s=4, max_timeouts=5))
        tid, me = r["id"], r["seat"]
        d = r["table"]["clock"]["deadline_ms"]
        self.assertIsNotNone(d)
        wait_stored_clock(srv.db, tid, 0)
        time.sleep(1.0)
        srv.kill()  # kill -9 in the middle of the turn
        srv2 = Server(srv.db, extra=["--bot-delay", "0"])
        self.servers.append(srv2)
        w = self.ws(srv2, tid, r["token"])
        st = w.recv_type("state")
        self.assertEqual(clock_of(st)["deadline_ms"], d, "the stored deadline changed")
        m = w.recv_type("move", timeout=10)
        t = now_ms()
        self.assertEqual(m["entry"]["player"], me)
        self.assertGreater(t, d - 5, "the bot moved before the stored deadline")
        self.assertLess(t - d, 1500, "the bot moved long after the stored deadline")

    def test_a_deadline_passed_while_down_gets_the_grace(self):
        srv = self.start_clock()
        r = srv.create(**timed(move_s=1, max_timeouts=5))
        tid, me = r["id"], r["seat"]
        d = r["table"]["clock"]["deadline_ms"]
        wait_stored_clock(srv.db, tid, 0)
        srv.kill()
        while now_ms() < d + 500:
            time.sleep(0.1)
        t0 = now_ms()
        srv2 = Server(srv.db, extra=["--bot-delay", "0", "--clock-grace", "2"])
        self.servers.append(srv2)
        w = self.ws(srv2, tid, r["token"])
        st = w.recv_type("state")
        nd = clock_of(st)["deadline_ms"]
        self.assertGreater(nd, t0 + 1500)
        self.assertLess(nd, now_ms() + 2100)
        m = w.recv_type("move", timeout=10)
        self.assertEqual(m["entry"]["player"], me)
        self.assertGreater(now_ms(), nd - 5)
        self.assertIn("event=clock_grace", srv2.read_log())

    # --- resignation -----------------------------------------------------------------------

    def two_humans(self, srv, **kw):
        r = srv.create(players=2, name="Ann", **kw)
        j = srv.join(r["id"], "Bob")
        return r["id"], r["token"], j["token"]

    def test_resign_ends_a_two_player_game(self):
        srv = self.start_clock()
        tid, ta, tb = self.two_humans(srv, tiles={"U": 3, "E": 3})
        wa = self.ws(srv, tid, ta)
        wa.recv_type("state")
        # one move so that the record has one
        st = srv.state(tid, ta)
        code, _, _ = srv.post("/api/tables/%s/move" % tid, first_legal(st["game"]["next"]),
                              token=ta)
        self.assertEqual(code, 200)
        # no token: refused, nothing changes
        code, body, _ = srv.post("/api/tables/%s/resign" % tid, {})
        self.assertEqual((code, body["error"]["code"]), (403, "bad_token"))
        code, body, _ = srv.post("/api/tables/%s/resign" % tid, {"token": 5})
        self.assertEqual((code, body["error"]["code"]), (400, "malformed"))
        code, body, _ = srv.get("/api/tables/%s/resign" % tid)
        self.assertEqual(code, 405)
        code, body, _ = srv.post("/api/tables/%s/resign" % tid, {"token": tb})
        self.assertEqual(code, 200, body)
        self.assertEqual(body["seat"], 1)
        self.assertEqual(body["table"]["status"], "over")
        m = wa.recv_type("table", timeout=5)
        while m["table"]["status"] != "over":
            m = wa.recv_type("table", timeout=5)
        ended = m["table"]["clock"]["ended"]
        self.assertEqual(ended, {"reason": "resigned", "seat": 1, "winners": [0]})
        # the game is over: no more moves, no second resignation
        code, body, _ = srv.post("/api/tables/%s/resign" % tid, {"token": ta})
        self.assertEqual((code, body["error"]["code"]), (409, "game_over"))
        # the finished list shows it with its result
        code, lst, _ = srv.get("/api/tables?status=over")
        self.assertEqual(code, 200)
        row = [g for g in lst["tables"] if g["id"] == tid]
        self.assertEqual(len(row), 1, lst)
        self.assertEqual(row[0]["winners"], [0])
        self.assertEqual(row[0]["ended"]["reason"], "resigned")
        # the record: the moves played, no "final" (the spec's unfinished
        # game), "ended" saying how, and it replays with `carc replay`
        code, rec, _ = srv.get("/api/tables/%s/record" % tid)
        self.assertEqual(code, 200)
        self.assertNotIn("final", rec)
        self.assertEqual(len(rec["turns"]), 1)
        self.assertEqual(rec["ended"]["seat"], 1)
        self.assertNotEqual(rec["seed"], 0)
        path = os.path.join(self.dir, "rec.json")
        with open(path, "w") as f:
            json.dump(rec, f)
        p = subprocess.run([CARC, "replay", path], capture_output=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        # and it stays so after a restart (stored, not only in memory)
        srv.stop()
        srv2 = Server(srv.db)
        self.servers.append(srv2)
        st = srv2.state(tid)
        self.assertEqual(st["table"]["status"], "over")
        self.assertEqual(st["table"]["clock"]["ended"]["seat"], 1)
        self.assertTrue(st["table"]["clock"]["seats"][1]["forfeited"])

    def test_resign_in_a_three_player_game_hands_the_seat_to_the_bot(self):
        srv = self.start_clock()
        r = srv.create(players=3, name="Ann", clock={"takeover": "random"})
        tid = r["id"]
        tb = srv.join(tid, "Bob")["token"]
        tc = srv.join(tid, "Cid")["token"]
        wb = self.ws(srv, tid, tb)
        wb.recv_type("state")
        wb.send({"type": "resign", "ref": 7})
        m = wb.recv_type(("resigned", "error"), timeout=5)
        self.assertEqual(m, {"type": "resigned", "seat": 1, "ref": 7})
        st = srv.state(tid, tb)
        self.assertEqual(st["table"]["status"], "playing")
        self.assertTrue(st["table"]["clock"]["seats"][1]["forfeited"])
        self.assertTrue(st["table"]["clock"]["seats"][1]["resigned"])
        wb.send({"type": "resign"})
        m = wb.recv_type("error", timeout=5)
        self.assertEqual(m["code"], "forfeited")
        # Ann moves; then seat 1 (Bob's) is played by the bot; then it is Cid's turn
        st = srv.state(tid, r["token"])
        code, body, _ = srv.post("/api/tables/%s/move" % tid, first_legal(st["game"]["next"]),
                                 token=r["token"])
        self.assertEqual(code, 200)
        self.assertTrue(body["clock"]["seats"][1]["forfeited"])  # the HTTP answer has the clock
        end = time.time() + 10
        while time.time() < end:
            st = srv.state(tid, tc)
            if st["game"]["next"]["to_move"] == 2:
                break
            time.sleep(0.05)
        self.assertEqual(st["game"]["next"]["to_move"], 2)
        self.assertEqual(st["game"]["log"][1]["player"], 1)
        # Bob's token cannot move for the seat any more
        code, body, _ = srv.post("/api/tables/%s/move" % tid, first_legal(st["game"]["next"]),
                                 token=tb)
        self.assertEqual((code, body["error"]["code"]), (409, "forfeited"))
        # it survives a restart: the seat is still the bot's
        srv.kill()
        srv2 = Server(srv.db, extra=["--bot-delay", "0"])
        self.servers.append(srv2)
        st = srv2.state(tid)
        self.assertTrue(st["table"]["clock"]["seats"][1]["forfeited"])

    def test_a_resignation_that_cannot_be_stored_changes_nothing(self):
        """The database refuses the write (a test build's fault file): 503
        storage, the seat is not given up and its deadline is the one it had."""
        if "release" in CARC:
            self.skipTest("the fault file needs a test or sanitizer build")
        fault = os.path.join(self.dir, "fault")
        os.environ["CARC_TEST_STORE_FAULT"] = fault
        try:
            srv = self.start_clock()
        finally:
            del os.environ["CARC_TEST_STORE_FAULT"]
        r = srv.create(**timed(move_s=30, max_timeouts=5))
        tid = r["id"]
        wait_stored_clock(srv.db, tid, 0)
        before = srv.state(tid, r["token"])["table"]["clock"]
        with open(fault, "w") as f:
            f.write("read_only")
        code, body, _ = srv.post("/api/tables/%s/resign" % tid, {"token": r["token"]})
        self.assertEqual((code, body["error"]["code"]), (503, "storage"))
        after = srv.state(tid, r["token"])["table"]
        self.assertEqual(after["status"], "playing")
        self.assertFalse(after["clock"]["seats"][0]["forfeited"])
        self.assertEqual(after["clock"]["deadline_ms"], before["deadline_ms"])
        self.assertIsNone(after["clock"]["ended"])
        os.remove(fault)
        end = time.time() + 10
        while time.time() < end:
            code, body, _ = srv.post("/api/tables/%s/resign" % tid, {"token": r["token"]})
            if code != 503:
                break
            time.sleep(0.2)
        self.assertEqual(code, 200, body)
        self.assertEqual(body["table"]["status"], "over")

    def test_a_timed_game_played_to_its_end_has_no_deadline_left(self):
        srv = self.start_clock()
        # three tiles: the human, the bot, the human's move ends the game
        r = srv.create(**timed(move_s=30, tiles={"U": 1, "E": 1, "V": 1}))
        tid = r["id"]
        w = self.ws(srv, tid, r["token"])
        st = w.recv_type("state")
        w.send({"type": "move", **first_legal(st["game"]["next"])})
        for _ in range(2):
            m = w.recv_type("move")
        self.assertEqual(m["clock"]["seat"], r["seat"])
        self.assertIsNotNone(m["clock"]["deadline_ms"])
        w.send({"type": "move", **first_legal(m["next"])})
        info = self.wait_over(srv, tid, timeout=10)
        self.assertIsNone(info["clock"]["deadline_ms"])
        self.assertIsNone(info["clock"]["seat"])
        self.assertIsNone(info["clock"]["ended"])

    # --- options, messages -------------------------------------------------------------------

    def test_clock_options_out_of_range_are_refused(self):
        srv = self.start_clock()
        bad = [
            "realtime",
            {"mode": "blitz"},
            {"mode": 1},
            {"mode": "realtime", "move_s": 0},
            {"mode": "realtime", "move_s": 3601},
            {"mode": "realtime", "move_s": "60"},
            {"mode": "realtime", "move_s": 1.5},
            {"mode": "realtime", "reserve_s": -1},
            {"mode": "realtime", "reserve_s": 3601},
            {"mode": "turn", "move_s": 60},
            {"mode": "turn", "move_s": 30 * 86400 + 1},
            {"mode": "realtime", "max_timeouts": 0},
            {"mode": "realtime", "max_timeouts": 101},
            {"mode": "realtime", "takeover": "grandmaster"},
            {"mode": "realtime", "takeover": 3},
            {"mode": "realtime", "speed": 2},
            {"move_s": 60},
            {"mode": "none", "reserve_s": 5},
        ]
        for c in bad:
            code, body, _ = srv.post("/api/tables", {"players": 2, "clock": c})
            self.assertEqual(code, 400, c)
            self.assertEqual(body["error"]["code"], "bad_option", c)
            self.assertIn("clock", body["error"]["message"], c)
        code, lst, _ = srv.get("/api/tables?status=all")
        self.assertEqual(lst["tables"], [], "a refused table was made")
        ok = srv.create(players=2, clock={"mode": "turn", "move_s": 2 * 86400})
        self.assertEqual(ok["table"]["options"]["clock"],
                         {"mode": "turn", "move_s": 172800, "reserve_s": 0, "max_timeouts": 3,
                          "takeover": "medium"})
        none = srv.create(players=2)
        self.assertEqual(none["table"]["options"]["clock"], {"mode": "none", "takeover": "medium"})

    def test_the_clock_is_in_every_state_and_move_message(self):
        srv = self.start_clock()
        # turn-based: the deadline is a day away
        r = srv.create(players=2, seats=[{}, {"bot": "random"}], name="Tb",
                       clock={"mode": "turn", "move_s": 86400})
        w = self.ws(srv, r["id"], r["token"])
        st = w.recv_type("state")
        c = clock_of(st)
        self.assertEqual(c["mode"], "turn")
        self.assertEqual(c["seat"], 0)
        self.assertAlmostEqual(c["deadline_ms"], c["server_ms"] + 86400 * 1000, delta=5000)
        self.assertAlmostEqual(c["server_ms"], now_ms(), delta=5000)
        self.assertEqual(len(c["seats"]), 2)
        for k in ("reserve_ms", "timeouts", "forfeited", "resigned"):
            self.assertIn(k, c["seats"][0])
        w.send({"type": "move", **first_legal(st["game"]["next"])})
        m = w.recv_type("move")
        self.assertIn("clock", m)
        self.assertIsNone(m["clock"]["deadline_ms"])  # the bot's turn: no deadline
        m = w.recv_type("move")
        self.assertEqual(m["clock"]["seat"], 0)
        self.assertIsNotNone(m["clock"]["deadline_ms"])
        # a spectator sees the clock too
        spec = self.ws(srv, r["id"])
        self.assertEqual(clock_of(spec.recv_type("state"))["seat"], 0)
        # the deadline is stored (the clocks table of the migration)
        # (by the storage thread, which may still be writing it as the move
        # is announced: a restart before that starts the turn afresh)
        deadline = time.time() + 5
        while True:
            con = connect_db(srv.db)
            row = con.execute("select step, deadline_ms from clocks where game_id=?",
                              (r["id"],)).fetchone()
            con.close()
            if (row and row[1] == m["clock"]["deadline_ms"]) or time.time() > deadline:
                break
            time.sleep(0.02)
        self.assertEqual(row[1], m["clock"]["deadline_ms"])
        # no clock: the clock says so, no deadline and no stored row
        n = srv.create(players=2, seats=[{}, {"bot": "random"}], name="Free")
        c = n["table"]["clock"]
        self.assertEqual((c["mode"], c["deadline_ms"]), ("none", None))


if __name__ == "__main__":
    unittest.main(verbosity=2)
