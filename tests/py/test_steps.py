"""Turns made of steps through the whole server (issue 27): a kind of step
that only the test build of the engine knows ("test-pass": after a tile is
placed, the next player says 0 or 1) travels through storage, the clocks,
undo, records, replay, the analysis, the bots and the WebSocket, with no
code outside src/core naming it (tests/cli/test_names.sh). The test names
it only to ask for the expansion; every decision is the engine's JSON of
the current step's legal options, whatever the kind.

- A person against a bot at a "test-pass" table, played to the end over the
  WebSocket: every step is stored, numbered and announced (turn and step),
  the person decides the test-pass steps of the bot's turns and the bot
  those of the person's; moves taken back per decision (one undo lands on
  a test-pass step, one on a tile step); the server restarted midway gives
  the same state back; the record downloaded replays with `carc replay`
  and has each turn's later steps; the analysis goes through every step.
- Two people on a clock: the clock runs on the decider of each step, so
  the test-pass step of a turn runs the other player's time (its deadline
  moves to that seat and back), a slow pass costs the passer's reserve, and
  a pass that times out is played by the takeover bot for the passer.

On PostgreSQL too (CARC_TEST_DB, tests/pg/run.sh); tests/py/test_pg_steps.py
plays it with two people on two processes.
Run: CARC=build/test/carc python3 tests/py/test_steps.py
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, ServerCase, first_legal  # noqa: E402

TEST_STEP = "test-pass"


def names():
    out = subprocess.run([CARC, "names", "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def decide(nxt, rng):
    """A legal decision of the step `nxt` describes: a placement for the
    tile step (the engine's first kind), else one of the step's options
    (its JSON as the engine wrote it, without the words)."""
    if "options" not in nxt["legal"]:
        return first_legal(nxt, rng)
    o = rng.choice(nxt["legal"]["options"])
    return {k: v for k, v in o.items() if k != "text"}


def check_record_and_analysis(case, get, post, tid, st):
    """The finished game `st` (its state) of table tid: its record has each
    turn's later steps and `carc replay` holds it; its analysis goes
    through every step, each with its turn. get(path) and post(path) ask a
    server: (status, JSON)."""
    info, log = st["table"], st["game"]["log"]
    steps = len(log)
    code, rec = get("/api/tables/%s/record" % tid)
    case.assertEqual(code, 200)
    case.assertEqual(len(rec["turns"]), info["turn"])
    passes = [s for turn in rec["turns"] for s in turn.get("steps", [])]
    case.assertEqual(len(passes) + len(rec["turns"]), steps)
    case.assertTrue(passes)
    case.assertTrue(all(set(s) == {"player", TEST_STEP} for s in passes), passes[:3])
    path = os.path.join(case.dir, "game-%s.json" % tid)
    with open(path, "w") as f:
        json.dump(rec, f)
    p = subprocess.run([CARC, "replay", path], capture_output=True, text=True, timeout=60)
    case.assertEqual(p.returncode, 0, p.stdout + p.stderr)
    case.assertIn("ok (%d turns" % info["turn"], p.stdout)

    code, a = post("/api/tables/%s/analysis" % tid)
    case.assertIn(code, (200, 202), a)
    end = time.time() + 120
    while a.get("status") != "done" and time.time() < end:
        time.sleep(0.2)
        code, a = get("/api/tables/%s/analysis" % tid)
    case.assertEqual(a.get("status"), "done", a)
    case.assertEqual([x["step"] for x in a["turns"]], list(range(steps)))
    case.assertEqual([x["turn"] - 1 for x in a["turns"]], [e["turn"] for e in log])
    case.assertEqual([x["played"] for x in a["turns"] if TEST_STEP in x["played"]],
                     [{TEST_STEP: e[TEST_STEP]} for e in log if TEST_STEP in e])
    # the largest losses name their step and its turn
    for w in a["largest"] + [{"turn": a["largest_turn"], "step": a["largest_step"]}]:
        if w["turn"] is not None:
            case.assertEqual(a["turns"][w["step"]]["turn"], w["turn"], w)


class Table:
    """A table being played over WebSockets: `socks` maps a person's seat to
    its connection (open_ws(seat, token) makes it: on the server of the
    seat's person); the first one is read for what the table hears."""

    def __init__(self, case, open_ws, tid, tokens):
        self.case, self.open_ws, self.tid, self.tokens = case, open_ws, tid, tokens
        self.socks = {}
        self.nxt = None
        self.log = []
        self.connect()

    def connect(self):
        self.socks = {s: self.open_ws(s, tok) for s, tok in self.tokens.items()}
        for w in self.socks.values():
            st = w.recv_type(("state",))
        self.reader = next(iter(self.socks.values()))
        self.nxt, self.log = st["game"]["next"], st["game"]["log"]
        self.known = {s: self.nxt["step"] for s in self.socks}
        return st

    def refused(self, m):
        if m["type"] == "error":
            self.case.fail("refused: %s" % m)

    def hear(self, timeout=30):
        """The next move (or undone) the table hears."""
        m = self.reader.recv_type(("move", "undone", "error"), timeout=timeout)
        self.refused(m)
        if m["type"] == "move":
            e = m["entry"]
            self.case.assertEqual(e["step"], len(self.log))
            self.case.assertEqual(m["next"]["step"], e["step"] + 1)
            self.log.append(e)
            self.nxt = m["next"]
            self.clock = m["clock"]
            self.known[next(iter(self.socks))] = self.nxt["step"]
        return m

    def catch_up(self, seat, step):
        """Reads the seat's own connection until it has heard the table come
        to `step`: a person decides once their connection knows the step
        (another process may tell it a moment later), and a decision sent is
        answered on it (a move, or an error that fails the test)."""
        while self.known[seat] < step:
            m = self.socks[seat].recv_type(("move", "error"), timeout=30)
            self.refused(m)
            self.known[seat] = m["next"]["step"]

    def play(self, rng, until, on_step=None):
        """Plays the people's decisions (the bots play theirs) until
        until(self) holds or the game is over."""
        while not self.nxt["over"] and not until(self):
            p = self.nxt["to_move"]
            if p in self.socks:
                self.catch_up(p, self.nxt["step"])
                mv = decide(self.nxt, rng)
                self.socks[p].send(dict(mv, type="move", turn=self.nxt["turn"],
                                        step=self.nxt["step"]))
                if self.socks[p] is not self.reader:
                    self.catch_up(p, self.nxt["step"] + 1)
            m = self.hear()
            if m["type"] == "move" and on_step:
                on_step(self, m)


class StepsCase(ServerCase):
    def setUp(self):
        super().setUp()
        v = names()
        if TEST_STEP not in v["steps"]:
            self.skipTest("a test build's engine knows the test-pass step (make MODE=test)")
        self.tile_step = v["steps"][0]


class PersonAndBot(StepsCase):
    def undo(self, table, k):
        """Takes the person's k latest decisions back; checks where the game
        is now: the step of the k-th latest, to be decided again by seat 0."""
        mine = [e for e in table.log if e["player"] == 0]
        back = mine[-k]
        table.socks[0].send({"type": "undo", "moves": k})
        u = table.reader.recv_type(("undone",))
        self.assertEqual((u["undone"], u["step"], u["turn"]), (k, back["step"], back["turn"]))
        table.socks[0].send({"type": "state"})
        st = table.reader.recv_type(("state",))
        nxt = st["game"]["next"]
        self.assertEqual((nxt["step"], nxt["turn"], nxt["to_move"]),
                         (back["step"], back["turn"], 0))
        self.assertEqual(len(st["game"]["log"]), back["step"])
        self.assertEqual(st["table"]["step"], back["step"])
        table.log, table.nxt = st["game"]["log"], nxt
        return nxt

    def test_a_test_pass_game_against_a_bot_end_to_end(self):
        rng = random.Random(27)
        srv = self.start()
        t = srv.create(name="Ann", seats=[{}, {"bot": "random"}], expansions=[TEST_STEP],
                       seed=2727)
        servers = [srv]
        table = Table(self, lambda seat, tok: self.ws(servers[0], t["id"], tok), t["id"],
                      {0: t["token"]})
        kinds = {}

        def seen(tb, m):
            e = m["entry"]
            kind = self.tile_step if "x" in e or e.get("discarded") else TEST_STEP
            self.assertEqual(e.get(TEST_STEP) is not None, kind == TEST_STEP, e)
            kinds.setdefault(kind, set()).add(e["player"])
            if kind == TEST_STEP:
                # the next player passes on the turn of the one who placed
                self.assertEqual(e["turn"], tb.log[-2]["turn"])
                self.assertNotEqual(e["player"], tb.log[-2]["player"])

        table.play(rng, lambda tb: len(tb.log) >= 12, seen)
        # the person's latest decision was a pass on the bot's turn: taking
        # one back brings that test-pass step back, for the person
        table.play(rng, lambda tb: tb.nxt["to_move"] == 0 and
                   tb.nxt["step_kind"] == self.tile_step and tb.log[-1]["player"] == 0, seen)
        self.assertIn(TEST_STEP, table.log[-1])
        nxt = self.undo(table, 1)
        self.assertEqual((nxt["step_kind"], nxt["turn_player"]), (TEST_STEP, 1))
        # one more: the person's tile step before that pass
        nxt = self.undo(table, 1)
        self.assertEqual((nxt["step_kind"], nxt["turn_player"]), (self.tile_step, 0))
        # two more: the pass before it and the tile step before that go
        turn = nxt["turn"]
        nxt = self.undo(table, 2)
        self.assertEqual((nxt["step_kind"], nxt["turn_player"], nxt["turn"]),
                         (self.tile_step, 0, turn - 2))
        self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["undos"], 4)

        # restarted midway (the person to decide: no bot is thinking): the
        # same game, step for step
        table.play(rng, lambda tb: len(tb.log) >= 30 and tb.nxt["to_move"] == 0, seen)
        before = srv.state(t["id"])["game"]
        srv.stop()
        srv = servers[0] = self.start()
        after = table.connect()["game"]
        self.assertEqual(after["log"], before["log"])
        self.assertEqual(after["next"], before["next"])

        table.play(rng, lambda tb: False, seen)
        self.assertEqual(kinds, {self.tile_step: {0, 1}, TEST_STEP: {0, 1}})
        st = srv.state(t["id"])
        info = st["table"]
        self.assertEqual(info["status"], "over")
        steps = len(st["game"]["log"])
        self.assertEqual((info["step"], info["turn"]),
                         (steps, st["game"]["log"][-1]["turn"] + 1))
        self.assertEqual([e["step"] for e in st["game"]["log"]], list(range(steps)))

        check_record_and_analysis(self, lambda path: srv.get(path)[:2],
                                  lambda path: srv.post(path, {})[:2], t["id"], st)


class TwoPeopleOnAClock(StepsCase):
    def test_the_clock_runs_on_each_decider(self):
        srv = self.start(extra=["--bot-delay", "0"])
        t = srv.create(name="Ann", expansions=[TEST_STEP], seed=2728,
                       clock={"mode": "realtime", "move_s": 1, "reserve_s": 6,
                              "max_timeouts": 3, "takeover": "random"})
        j = srv.join(t["id"], "Bob")
        tokens = {0: t["token"], 1: j["token"]}
        rng = random.Random(5)
        table = Table(self, lambda seat, tok: self.ws(srv, t["id"], tok), t["id"], tokens)

        def clock_now():
            return srv.get("/api/tables/" + t["id"])[1]["clock"]

        def decide_now(seat, wait_s=0.0):
            nxt = table.nxt
            self.assertEqual(nxt["to_move"], seat)
            if wait_s:
                time.sleep(wait_s)
            table.socks[seat].send(dict(decide(nxt, rng), type="move", turn=nxt["turn"],
                                        step=nxt["step"]))
            m = table.hear()
            self.assertEqual(m["entry"]["player"], seat)
            return m

        c = clock_now()
        self.assertEqual((c["step"], c["turn"], c["seat"]), (0, 0, 0))
        # seat 0 places its tile: the turn's pass is seat 1's, on seat 1's clock
        m = decide_now(0)
        nxt = m["next"]
        self.assertEqual((nxt["step_kind"], nxt["to_move"], nxt["turn_player"]), (TEST_STEP, 1, 0))
        self.assertEqual((m["clock"]["step"], m["clock"]["turn"], m["clock"]["seat"]), (1, 0, 1))
        r0 = m["clock"]["seats"][0]["reserve_ms"]
        # seat 1 passes after 2.5 s: over its 1 s, from its own reserve only
        m = decide_now(1, wait_s=2.5)
        used = 6000 - m["clock"]["seats"][1]["reserve_ms"]
        self.assertGreaterEqual(used, 1400)
        self.assertLess(used, 5000)
        self.assertEqual(m["clock"]["seats"][0]["reserve_ms"], r0)
        # seat 1's own turn, then seat 0's pass on seat 0's clock: and back
        self.assertEqual((m["clock"]["step"], m["clock"]["turn"], m["clock"]["seat"]), (2, 1, 1))
        m = decide_now(1)
        self.assertEqual((m["next"]["step_kind"], m["next"]["to_move"]), (TEST_STEP, 0))
        self.assertEqual((m["clock"]["step"], m["clock"]["turn"], m["clock"]["seat"]), (3, 1, 0))
        self.assertEqual(m["clock"]["seats"][0]["reserve_ms"], r0)
        m = decide_now(0)
        self.assertEqual((m["clock"]["step"], m["clock"]["turn"], m["clock"]["seat"]), (4, 2, 0))
        # seat 0 places; seat 1 lets its pass time out: the takeover bot
        # passes for seat 1, whose timeouts go up, and seat 1 is to place
        m = decide_now(0)
        self.assertEqual(m["clock"]["seat"], 1)
        m = table.hear(timeout=60)
        self.assertEqual((m["entry"]["player"], m["entry"]["step"]), (1, 5))
        self.assertIn(TEST_STEP, m["entry"])
        self.assertTrue(m["entry"].get("takeover"), m["entry"])
        self.assertEqual((m["clock"]["seats"][1]["timeouts"], m["clock"]["seats"][1]["reserve_ms"],
                          m["clock"]["seats"][0]["timeouts"]), (1, 0, 0))
        self.assertEqual((m["clock"]["step"], m["clock"]["seat"], m["next"]["to_move"]),
                         (6, 1, 1))


class Refusals(StepsCase):
    def test_a_decision_of_another_kind_or_out_of_the_options_is_refused(self):
        srv = self.start()
        t = srv.create(name="Ann", expansions=[TEST_STEP], seed=2731)
        j = srv.join(t["id"], "Bob")
        path = "/api/tables/%s/move" % t["id"]
        nxt = srv.state(t["id"])["game"]["next"]
        # a pass in the tile step, a placement in the pass: not the step's
        # decision (malformed); a pass outside its options: illegal
        for body in ({TEST_STEP: 1}, {TEST_STEP: 0, "x": 0}):
            st, r, _ = srv.post(path, dict(body, turn=0, step=0), token=t["token"])
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), body)
        tile_move = first_legal(nxt)
        st, r, _ = srv.post(path, dict(tile_move, turn=0, step=0), token=t["token"])
        self.assertEqual(st, 200, r)
        self.assertEqual((r["next"]["step_kind"], r["next"]["to_move"]), (TEST_STEP, 1))
        for body, want in ((tile_move, (400, "malformed")), ({TEST_STEP: 2}, (422, "illegal_move")),
                           ({TEST_STEP: "1"}, (400, "malformed")),
                           ({TEST_STEP: True}, (400, "malformed")),
                           ({TEST_STEP: 2 ** 40}, (400, "malformed"))):
            st, r, _ = srv.post(path, dict(body, turn=0, step=1), token=j["token"])
            self.assertEqual((st, r["error"]["code"]), want, body)
        # the turn's player may not decide the next seat's pass
        st, r, _ = srv.post(path, {TEST_STEP: 1, "turn": 0, "step": 1}, token=t["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "not_your_turn"))
        # a pass for the right turn but the tile step's number is stale
        st, r, _ = srv.post(path, {TEST_STEP: 1, "turn": 0, "step": 0}, token=j["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "stale_turn"))
        st, r, _ = srv.post(path, {TEST_STEP: 1, "turn": 0, "step": 1}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.assertEqual(len(srv.state(t["id"])["game"]["log"]), 2)


class EngineCheck(unittest.TestCase):
    """Capacities are the engine's business (issue 27): a server whose table
    options could not hold every tile type the engine knows (a custom pile
    is counts per type, OPT_TILE_TYPES of them) refuses to start, before it
    opens its database, rather than cut a pile short. A test build reads
    CARC_TEST_TILE_TYPES as the engine's count (no engine has that many
    yet)."""

    def serve(self, db, types):
        env = dict(os.environ, CARC_TEST_TILE_TYPES=str(types))
        p = subprocess.Popen([CARC, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env)
        try:
            line = p.stdout.readline().decode()
        finally:
            p.kill()
            _, err = p.communicate(timeout=10)
        return line, err.decode(errors="replace")

    def test_a_server_whose_piles_cannot_hold_the_engines_tiles_does_not_start(self):
        if TEST_STEP not in names()["steps"]:
            self.skipTest("a test build (make MODE=test) reads CARC_TEST_TILE_TYPES")
        d = tempfile.mkdtemp(prefix="carc-engine-check-")
        try:
            db = os.path.join(d, "c.sqlite")
            line, err = self.serve(db, 100000)
            self.assertNotIn("listening", line, err)
            self.assertIn("100000 tile types", err)
            self.assertIn("OPT_TILE_TYPES", err)
            self.assertFalse(os.path.exists(db), "nothing starts before the check")
            line, err = self.serve(db, carc_limit_tile_types())
            self.assertIn("listening", line, err)
        finally:
            shutil.rmtree(d, ignore_errors=True)


def carc_limit_tile_types():
    return len(names()["tiles"])


if __name__ == "__main__":
    unittest.main()
