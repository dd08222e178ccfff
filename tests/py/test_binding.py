"""Tests of the Python binding python/carc.py (ctypes over libcarc.so).

Run: CARC_LIB=build/test/libcarc.so python3 tests/py/test_binding.py

The library: when CARC is set (the test runner sets it to the carc binary,
whose folder holds libcarc.so) that folder's libcarc.so is used; otherwise
the module's own search (CARC_LIB, build/release/libcarc.so, the system).
The steps tests need a test build of the library (make MODE=test), whose
engine knows the "test-pass" step; with another build they are skipped.
Nothing here runs the carc command.
"""
import ast
import collections
import json
import os
import pickle
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
import carc  # noqa: E402

_carc_bin = os.environ.get("CARC")
if _carc_bin:
    _lib = os.path.join(os.path.dirname(os.path.abspath(_carc_bin)), "libcarc.so")
    if os.path.exists(_lib):
        carc.load_library(_lib)
LIB = carc.library_path()  # raises LibraryNotFound with instructions if missing

MAX_STEPS = carc.MAX_STEPS  # bounds every loop: the engine's decisions in one game
TEST_STEP = "test-pass"  # the step a test build of the engine adds (docs/python.md)


def play_random(g, rng, check_every=0):
    """Plays random legal decisions to the end; returns the decisions played."""
    played = []
    for i in range(MAX_STEPS):
        if g.over:
            return played
        moves = g.legal_moves()
        assert moves, "no legal decision while the game is not over"
        m = rng.choice(moves)
        g.apply(m)
        played.append(m)
        if check_every and i % check_every == 0:
            g.check_state()
    raise AssertionError("game did not end in %d steps" % MAX_STEPS)


class LibraryTest(unittest.TestCase):
    def test_missing_library_message(self):
        code = ("import sys; sys.path.insert(0, %r); import carc\n"
                "try:\n    carc.Game()\nexcept carc.LibraryNotFound as e:\n"
                "    print('NOTFOUND', e)\n") % os.path.join(REPO, "python")
        env = dict(os.environ, CARC_LIB="/nonexistent/libcarc.so")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("NOTFOUND", out.stdout)
        self.assertIn("/nonexistent/libcarc.so", out.stdout)
        self.assertIn("make", out.stdout)

    def test_env_var_is_used(self):
        code = ("import sys; sys.path.insert(0, %r); import carc\n"
                "print(carc.library_path()); print(carc.Game(seed=3).current_tile)\n"
                % os.path.join(REPO, "python"))
        env = dict(os.environ, CARC_LIB=LIB)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.split()
        self.assertEqual(lines[0], LIB)
        self.assertEqual(lines[1], carc.Game(seed=3).current_tile)


class GameTest(unittest.TestCase):
    def test_new_game(self):
        g = carc.Game(players=3, seed=11)
        self.assertFalse(g.over)
        self.assertFalse(g.game_over())
        self.assertEqual(g.players, 3)
        self.assertEqual(g.to_move, 0)
        self.assertEqual(g.tiles_left, 71)
        self.assertEqual(sum(g.tiles_left_by_name().values()), 71)
        self.assertEqual(g.tiles_left_by_name(), carc.rules_pile(players=3))
        self.assertIn(g.current_tile, carc.tile_names())
        self.assertEqual(g.scores(), [0, 0, 0])
        self.assertEqual(g.supply(1)["follower"], 7)
        self.assertEqual(g.supply()["big"], 0)
        self.assertEqual(len(g.supplies()), 3)
        self.assertEqual(g.scores_by_kind()[2], {k: 0 for k in carc.SCORE_KINDS})
        self.assertEqual(g.rules["farm_scoring"], "international")
        self.assertEqual(g.tile_at(0, 0), 0)
        self.assertIsNone(g.tile_at(5, 5))
        self.assertIsInstance(g.hash, int)
        self.assertEqual(g.position_hash(), g.hash)
        # the same seed deals the same game
        self.assertEqual(carc.Game(players=3, seed=11).hash, g.hash)
        self.assertEqual(carc.Game(players=3, seed=11).current_tile, g.current_tile)

    def test_random_game_replays(self):
        for seed in (1, 2, 3):
            g = carc.Game(players=2 + seed % 3, seed=seed)
            played = play_random(g, random.Random(seed), check_every=10)
            self.assertTrue(g.over)
            self.assertIsNone(g.current_tile)
            self.assertEqual(g.legal_moves(), [])
            self.assertEqual(g.tiles_left, 0)
            self.assertGreaterEqual(len(played), 71)
            scores = g.scores()
            by_kind = g.scores_by_kind()
            for p in range(g.players):
                self.assertEqual(sum(by_kind[p].values()), scores[p])
                self.assertEqual(g.score_by_kind(p, "city"), by_kind[p]["city"])
            text = g.record()
            rec = json.loads(text)
            self.assertEqual(rec["format"], "carc-record-1")
            self.assertEqual(rec["final"]["scores"], scores)
            r = carc.Game.replay(text)
            self.assertTrue(r.over)
            self.assertEqual(r.scores(), scores)
            self.assertEqual(r.scores_by_kind(), by_kind)
            self.assertEqual(r.hash, g.hash)
            self.assertEqual(r.rules, g.rules)
            self.assertEqual(r.seed, seed)
            self.assertEqual(r.record(), text)
            # board() reads the placed tiles back
            board = g.board()
            self.assertEqual(len(board), 1 + sum(1 for m in played if not m.is_discard))
            for i, t in enumerate(board):
                self.assertEqual(g.tile_at(t["x"], t["y"]), i)

    def test_illegal_move_raises_and_leaves_game(self):
        g = carc.Game(seed=5)
        play_random(_Stop(g, 6), random.Random(5))
        h, left, who, sc = g.hash, g.tiles_left, g.to_move, g.scores()
        rec = g.record()
        legal = g.placements()[0]
        # decisions as JSON the engine reads and refuses
        bad_json = [{"x": 40, "y": 40, "rot": 0, "meeple": None},  # not next to the board
                    {"x": 0, "y": 0, "rot": 0, "meeple": None},    # on the start tile
                    {"discarded": True}]                           # the tile fits
        # decisions as numbers: one played before (its square is taken now)
        # and one of a later position (a placement of another tile)
        ahead = g.copy()
        ahead.apply(legal)
        bad_ints = [g.history()[-1][0]] + [m for m in ahead.placements()
                                            if not g.is_legal(m)][:1]
        self.assertEqual(len(bad_ints), 2)
        for m in bad_json + bad_ints:
            self.assertFalse(g.is_legal(m), m)
            msg = g.check(m)
            self.assertTrue(msg, m)
            with self.assertRaises(carc.IllegalMove) as cm:
                g.apply(m)
            self.assertTrue(str(cm.exception))
            self.assertEqual(cm.exception.message, msg)
            self.assertEqual(cm.exception.status, carc.ERR_ILLEGAL)
            if isinstance(m, dict):
                self.assertEqual(cm.exception.decision, m)
                self.assertIsNone(cm.exception.move)
            else:
                self.assertEqual(int(cm.exception.move), int(m))
            with self.assertRaises(carc.IllegalMove):
                g.as_move(m) if not isinstance(m, dict) else g.parse_move(m)
            self.assertEqual(g.hash, h)
            self.assertEqual(g.tiles_left, left)
            self.assertEqual(g.to_move, who)
            self.assertEqual(g.scores(), sc)
            self.assertEqual(g.record(), rec)
        with self.assertRaises(carc.IllegalMove) as cm:
            g.apply({"discarded": True})
        self.assertIn("set aside", str(cm.exception))
        # g.move builds through the engine's reader: an illegal one is refused there
        with self.assertRaises(carc.IllegalMove):
            g.move(40, 40, 0)
        # a decision the engine cannot read is an ArgumentError (a ValueError)
        with self.assertRaises(carc.ArgumentError) as cm:
            g.apply({"x": legal.x, "rot": legal.rot})
        self.assertIn("y", str(cm.exception))
        with self.assertRaises(ValueError):
            g.move(legal.x, legal.y, legal.rot, at="Q9")
        with self.assertRaises(TypeError):
            g.apply(3.5)
        # after the end every decision is refused as GameOverError
        play_random(g, random.Random(6))
        with self.assertRaises(carc.GameOverError) as cm:
            g.apply(legal)
        self.assertIn("over", str(cm.exception))
        with self.assertRaises(carc.GameOverError):
            g.apply(legal.json)
        with self.assertRaises(carc.GameOverError):
            g.apply_unchecked(legal)

    def test_copy_is_independent(self):
        g = carc.Game(players=4, seed=8)
        play_random(_Stop(g, 10), random.Random(8))
        c = g.copy()
        self.assertIsNot(c, g)
        self.assertEqual(c.hash, g.hash)
        self.assertEqual(c.record(), g.record())
        h, rec = g.hash, g.record()
        m = c.legal_moves()[-1]
        c.apply(m)
        self.assertNotEqual(c.hash, h)
        self.assertEqual(g.hash, h)
        self.assertEqual(g.record(), rec)
        # the same move on the original reaches the same position
        g.apply(m)
        self.assertEqual(g.hash, c.hash)
        # playing the copy to the end leaves the original alive
        play_random(c, random.Random(1))
        self.assertTrue(c.over)
        self.assertFalse(g.over)
        import copy
        d = copy.deepcopy(g)
        self.assertEqual(d.hash, g.hash)
        e = carc.Game(seed=99)
        e.copy_from(g)
        self.assertEqual(e.hash, g.hash)
        self.assertEqual(e.players, 4)

    def test_apply_unchecked_matches_apply(self):
        a = carc.Game(seed=21)
        b = a.copy()
        rng = random.Random(21)
        while not a.over:
            m = rng.choice(a.legal_move_ints())
            ea = a.apply(m, events=True)
            eb = b.apply_unchecked(m, events=True)
            self.assertEqual(a.hash, b.hash)
            self.assertEqual([(e.kind, e.points) for e in ea], [(e.kind, e.points) for e in eb])
        self.assertEqual(a.scores(), b.scores())
        self.assertTrue(b.over)

    def test_events_add_up(self):
        g = carc.Game(players=3, seed=4)
        rng = random.Random(4)
        total = [0, 0, 0]
        while not g.over:
            for e in g.apply(rng.choice(g.legal_moves()), events=True):
                self.assertIn(e.kind_name, carc.SCORE_KINDS)
                for p in range(3):
                    total[p] += e.points[p]
        self.assertEqual(total, g.scores())

    def test_set_current_tile(self):
        g = carc.Game(seed=12)
        play_random(_Stop(g, 3), random.Random(12))
        left = g.tiles_left_by_name()
        n = g.tiles_left
        other = sorted(t for t in left if t != g.current_tile)[0]
        g.set_current_tile(other)
        self.assertEqual(g.current_tile, other)
        self.assertEqual(g.tiles_left, n)
        self.assertEqual(g.tiles_left_by_name(), left)
        self.assertEqual(g.drawable_tiles(), left)
        self.assertTrue(all(m.tile_name == other for m in g.legal_moves()))
        g.apply(g.legal_moves()[0])
        self.assertEqual(g.tiles_left_of(other), left[other] - 1)
        gone = [t for t in carc.tile_names()[:24] if not g.tiles_left_of(t)]
        if gone:
            with self.assertRaises(carc.ArgumentError) as cm:
                g.set_current_tile(gone[0])
            self.assertIn("no %s is left" % gone[0], str(cm.exception))
        with self.assertRaises(ValueError):
            g.set_current_tile("no-such-tile")
        # the River: base tiles wait until the river is used up
        r = carc.Game(expansions=["river"], seed=2)
        self.assertTrue(r.current_tile.startswith("r"), r.current_tile)
        with self.assertRaises(carc.ArgumentError) as cm:
            r.set_current_tile("V")
        self.assertIn("River", str(cm.exception))
        self.assertTrue(all(t.startswith("r") for t in r.drawable_tiles()))

    def test_shuffle_rest(self):
        g = carc.Game(seed=30)
        a, b = g.copy(), g.copy()
        a.shuffle_rest(1)
        b.shuffle_rest(1)
        self.assertEqual(a.tiles_left_by_name(), g.tiles_left_by_name())
        order = []
        for x in (a, b):
            seq = []
            rng = random.Random(0)
            while not x.over and len(seq) < 20:
                seq.append(x.current_tile)
                x.apply(rng.choice(x.legal_moves()))
            order.append(seq)
        self.assertEqual(order[0], order[1])
        c = g.copy()
        seqs = set()
        for s in range(5):
            c.copy_from(g)
            c.shuffle_rest(s)
            seqs.add(c.current_tile)
        self.assertGreater(len(seqs), 1)

    def test_expansions(self):
        for exp, fig in ((["inns-cathedrals"], "big"), (["traders-builders"], "builder"),
                         (["abbot"], "abbot"), (["river"], None),
                         (["inns-cathedrals-tiles"], None),
                         (["river", "inns-cathedrals", "traders-builders", "abbot"], "pig")):
            g = carc.Game(players=3, expansions=exp, seed=7)
            self.assertEqual(sorted(g.rules["expansions"]), sorted(exp))
            if fig:
                self.assertEqual(g.supply(0)[fig], 1, exp)
            self.assertEqual(g.tiles_left_by_name(), carc.rules_pile(players=3, expansions=exp))
            if "river" in exp:
                self.assertNotEqual(carc.start_tile(expansions=exp), "D")
            play_random(g, random.Random(7), check_every=25)
            r = carc.Game.replay(g.record())
            self.assertEqual(r.scores(), g.scores(), exp)
            self.assertEqual(r.scores_by_kind(), g.scores_by_kind(), exp)
        # a string of names works too
        self.assertEqual(carc.Game(expansions="river,abbot").rules["expansions"],
                         ["river", "abbot"])
        six = carc.Game(players=6, expansions=["inns-cathedrals"])
        self.assertEqual(len(six.scores()), 6)
        with self.assertRaises(carc.ArgumentError) as cm:
            carc.Game(players=6)
        self.assertIn("players", str(cm.exception))
        with self.assertRaises(carc.ArgumentError) as cm:
            carc.Game(expansions=["inns-cathedrals", "inns-cathedrals-tiles"])
        self.assertIn("not both", str(cm.exception))
        with self.assertRaises(ValueError):
            carc.Game(expansions=["dragons"])
        with self.assertRaises(ValueError):
            carc.Game(farm_scoring="none")

    def test_farm_scoring_and_options(self):
        for fs in carc.FARM_SCORINGS:
            g = carc.Game(farm_scoring=fs, small_city=True, seed=3)
            self.assertEqual(g.rules["farm_scoring"], fs)
            self.assertTrue(g.rules["small_city"])
            play_random(g, random.Random(3))
            r = carc.Game.replay(g.record())
            self.assertEqual(r.rules, g.rules)
            self.assertEqual(r.scores(), g.scores())
        g = carc.Game(farmers=False, seed=3)
        self.assertFalse(g.rules["farmers"])
        play_random(g, random.Random(3))
        self.assertEqual(sum(k["farm"] for k in g.scores_by_kind()), 0)

    def test_custom_pile(self):
        g = carc.Game(pile={"U": 1, "E": 1, "V": 1}, seed=12345)
        self.assertEqual(g.tiles_left, 3)
        self.assertEqual(g.tiles_left_by_name(), {"E": 1, "U": 1, "V": 1})
        self.assertEqual(g.tiles_left_of("U"), 1)
        play_random(g, random.Random(0))
        rec = json.loads(g.record())
        self.assertEqual(rec["rules"]["tiles"], {"E": 1, "U": 1, "V": 1})
        self.assertEqual(carc.Game.replay(g.record()).scores(), g.scores())
        big = carc.Game(pile={"V": 20, "U": 10}, players=2, seed=1)
        self.assertEqual(big.tiles_left, 30)
        play_random(big, random.Random(1))
        self.assertEqual(carc.Game.replay(big.record()).scores(), big.scores())
        # an expansion tile needs its expansion
        with self.assertRaises(carc.ArgumentError) as cm:
            carc.Game(pile={"r3": 1})
        self.assertIn("r3", str(cm.exception))
        carc.Game(pile={"r3": 1, "U": 1}, expansions=["river"])
        with self.assertRaises(ValueError):
            carc.Game(pile={"ZZ": 1})
        empty = carc.Game(pile={})
        self.assertTrue(empty.over)

    def test_spec_example_record(self):
        path = os.path.join(REPO, "tests", "data", "spec-example.json")
        g = carc.Game.load(path)
        self.assertTrue(g.over)
        self.assertEqual(g.scores(), [3, 4])
        self.assertEqual(g.scores_by_kind()[1]["city"], 4)
        self.assertEqual(g.seed, 12345)

    def test_bad_records(self):
        g = carc.Game(seed=9)
        play_random(_Stop(g, 5), random.Random(9))
        rec = json.loads(g.record())
        with self.assertRaises(carc.RecordError) as cm:
            carc.Game.replay("{not json")
        self.assertEqual(cm.exception.status, carc.ERR_PARSE)
        self.assertTrue(str(cm.exception))
        rec["turns"][2]["x"] = 60
        with self.assertRaises(carc.RecordError) as cm:
            carc.Game.replay(json.dumps(rec))
        self.assertIn("turn", str(cm.exception))
        rec = json.loads(g.record())
        rec["turns"][3]["scores"] = [50, 50]
        with self.assertRaises(carc.RecordError) as cm:
            carc.Game.replay(json.dumps(rec).encode())
        self.assertEqual(cm.exception.status, carc.ERR_RECORD)
        # a record of a game in progress replays to the same position
        r = carc.Game.replay(g.record(extra={"note": "mid-game"}))
        self.assertEqual(r.hash, g.hash)
        self.assertEqual(r.current_tile, g.current_tile)
        self.assertEqual(json.loads(g.record(extra={"note": "x"}))["note"], "x")


class _Stop:
    """Wraps a game so play_random stops after n moves."""

    def __init__(self, g, n):
        self.g, self.n = g, n

    @property
    def over(self):
        return self.g.over or self.n <= 0

    def legal_moves(self):
        return self.g.legal_moves()

    def apply(self, m):
        self.n -= 1
        self.g.apply(m)

    def check_state(self):
        self.g.check_state()


class FeatureTest(unittest.TestCase):
    def test_city_before_and_after(self):
        g = carc.Game(seed=3)
        g.set_current_tile("U")
        g.apply(g.move(1, 0, 0))             # red: beside the start tile
        g.set_current_tile("E")
        g.apply(g.move(1, -1, 0, at="N1"))   # blue: a city cap, a knight on it
        fid = g.feature_id(1, -1, "N1")
        f = g.feature(fid)
        self.assertEqual((f["kind"], f["open"], f["tiles"], f["done"]), ("city", 1, 1, False))
        self.assertEqual(f["weight"], [0, 1])
        self.assertEqual([h["id"] for h in g.held_features()], [fid])
        g.set_current_tile("E")
        g.apply(g.move(1, -2, 2))            # red closes it
        now = g.feature_id(1, -2, "S1")
        self.assertEqual(g.feature_find(fid), now)
        f = g.feature(now)
        self.assertEqual((f["open"], f["tiles"], f["done"]), (0, 2, True))
        self.assertEqual(f["figures"], [0, 0])  # the knight came home
        road = g.feature_id(0, 0, "E1")
        self.assertEqual(g.feature(road)["kind"], "road")
        self.assertEqual(g.feature(road)["open"], 2)
        with self.assertRaises(ValueError):
            g.feature_id(5, 5, "N1")
        hist = g.history()
        self.assertEqual([p for _, p in hist], [0, 1, 0])
        self.assertEqual(hist[1][0].tile_name, "E")
        self.assertEqual(hist[1][0].port_name, "N1")

    def test_held_features_match_figures(self):
        rng = random.Random(11)
        g = carc.Game(seed=11, players=3, expansions=("inns-cathedrals", "traders-builders"))
        played = []
        for _ in range(40):
            m = rng.choice(g.legal_moves())
            g.apply(m)
            played.append(m)
        figs = g.figures()
        held = g.held_features()
        self.assertEqual(sorted({f["feature"] for f in figs}), sorted(h["id"] for h in held))
        for h in held:
            mine = [f for f in figs if f["feature"] == h["id"]]
            for p in range(3):
                self.assertEqual(h["figures"][p], sum(1 for f in mine if f["player"] == p))
            self.assertEqual(h, g.feature(h["id"]) if h["kind"] in ("road", "city")
                             else dict(g.feature(h["id"]), tiles=h["tiles"]))
            if h["kind"] == "field":
                for c in g.field_cities(h["id"]):
                    self.assertEqual(g.feature(c)["kind"], "city")
        self.assertEqual([int(m) for m, _ in g.history()], [int(m) for m in played])


class MoveTest(unittest.TestCase):
    def test_fields_come_from_the_engine(self):
        g = carc.Game(seed=17, expansions=["inns-cathedrals", "abbot"])
        rng = random.Random(17)
        kinds = set()
        for _ in range(40):
            if g.over:
                break
            for m in g.legal_moves():
                j = m.json
                self.assertEqual(m.step, "tile")
                self.assertTrue(m.text)
                self.assertIn(str(m), (m.tile_name + " " + m.text,))
                if j.get("discarded"):
                    self.assertTrue(m.is_discard)
                    self.assertIsNone(m.x)
                    continue
                self.assertEqual((m.x, m.y, m.rot), (j["x"], j["y"], j["rot"]))
                meeple = j["meeple"]
                self.assertEqual(m.has_figure, meeple is not None)
                self.assertEqual(m.recall, bool(j.get("abbot_recalled")))
                if meeple is None and not m.recall:
                    self.assertIsNone(m.figure_name)
                    self.assertIsNone(m.segment)
                    self.assertIs(m.placement, m)
                    continue
                p = m.placement
                self.assertFalse(p.has_figure or p.recall)
                self.assertEqual((p.x, p.y, p.rot), (m.x, m.y, m.rot))
                self.assertTrue(g.is_legal(p))
                if meeple is None:
                    continue  # the abbot recalled
                kinds.add(m.figure_name)
                self.assertEqual(m.figure_name, meeple["kind"])
                self.assertEqual(carc.FIGURES[m.figure], meeple["kind"])
                self.assertEqual(m.port_name, meeple["at"])
                self.assertEqual(m.port, carc.port_parse(meeple["at"]))
                self.assertIn(m.port_name, m.text)  # the engine's words name the port
                self.assertEqual(carc.tile(m.tile).port_segment(m.port_name, m.rot), m.segment)
            g.apply(rng.choice(g.legal_moves()))
        self.assertIn("follower", kinds)
        # a Move of a bare number knows only the number; the game describes it
        m = g.legal_moves()[-1]
        bare = carc.Move(int(m))
        self.assertEqual(bare, m)
        self.assertEqual(hash(bare), hash(int(m)))
        self.assertIsNone(bare.json)
        self.assertIsNone(bare.x)
        again = g.as_move(bare)
        self.assertEqual(again.json, m.json)
        self.assertEqual(again.text, m.text)
        self.assertEqual(again.placement, m.placement)
        # pickling keeps what is known
        p = pickle.loads(pickle.dumps(m))
        self.assertEqual((int(p), p.json, p.text, p.tile, p.step), (int(m), m.json, m.text,
                                                                   m.tile, m.step))
        self.assertEqual(p.placement, m.placement)
        d = carc.Move.discard()
        self.assertTrue(d.is_discard)
        self.assertEqual(int(d), carc.MOVE_DISCARD)
        self.assertIsNone(d.x)
        self.assertIsNone(d.segment)
        self.assertIn("Move(0x80000000", repr(d))

    def test_legal_moves_decode(self):
        g = carc.Game(seed=17, expansions=["inns-cathedrals", "abbot"])
        rng = random.Random(17)
        seen_fig = False
        for _ in range(30):
            if g.over:
                break
            t = g.current_tile
            moves = g.legal_moves()
            ints = g.legal_move_ints()
            self.assertEqual([int(m) for m in moves], ints)
            places = g.placements()
            self.assertEqual(len({(m.x, m.y, m.rot) for m in moves if not m.is_discard}),
                             len([p for p in places if not p.is_discard]))
            for p in places:
                self.assertIn(p, moves)
                self.assertIsNone(p.segment)
                for o in g.figure_options(p):
                    self.assertIn(o, moves)
                    self.assertEqual(o.placement, p)
            for m in moves:
                self.assertEqual(m.tile_name, t)
                self.assertTrue(g.is_legal(m))
                if m.has_figure:
                    seen_fig = True
                    # the port names the figure's segment, as the tile is rotated
                    info = carc.tile(t)
                    self.assertEqual(info.port_segment(m.port_name, m.rot), m.segment)
                    self.assertEqual(m.port, m.port_for(t))
                    self.assertEqual(g.move(m.x, m.y, m.rot, at=m.port_name,
                                            figure=m.figure_name), m)
                else:
                    self.assertIsNone(m.port)
            m = rng.choice(moves)
            g.apply(m)
            if m.has_figure:
                turn = json.loads(g.record())["turns"][-1]
                self.assertEqual(turn["meeple"], {"kind": m.figure_name, "at": m.port_name})
        self.assertTrue(seen_fig)


class JsonTest(unittest.TestCase):
    """Decisions' JSON goes through the engine's one writer and one reader."""

    def test_round_trip(self):
        exps = ["inns-cathedrals", "traders-builders", "abbot"]
        if TEST_STEP in carc.STEPS:
            exps.append(TEST_STEP)
        g = carc.Game(players=3, expansions=exps, seed=23)
        rng = random.Random(23)
        seen, n = set(), 0
        while not g.over:
            moves = g.legal_moves()
            for m in moves:
                n += 1
                seen.add(g.step_kind)
                j = m.json
                text = json.dumps(j)
                # the reader gives back the number the writer was given
                self.assertEqual(int(g.parse_move(j)), int(m), text)
                self.assertEqual(int(g.parse_move(text)), int(m), text)
                self.assertEqual(g.parse_move(text.encode()).json, j)
                # other keys of the object are left alone
                self.assertEqual(int(g.parse_move(dict(j, note="x"))), int(m))
                self.assertIsNone(g.check(j))
            m = rng.choice(moves)
            a, b = g.copy(), g.copy()
            a.apply(m)
            b.apply(m.json)  # a decision given as JSON plays the same
            self.assertEqual(a.hash, b.hash)
            g.apply(m)
        self.assertGreater(n, 500)
        self.assertIn("tile", seen)
        if TEST_STEP in carc.STEPS:
            self.assertIn(TEST_STEP, seen)

    def test_reader_errors(self):
        g = carc.Game(seed=2)
        p = g.placements()[0]
        for bad, word in (({"x": p.x, "y": p.y}, "rot"),
                          ({"x": "1", "y": p.y, "rot": p.rot}, "x"),
                          ({"x": p.x, "y": p.y, "rot": 9}, "rot"),
                          ({"x": p.x, "y": p.y, "rot": p.rot, "meeple": {"at": "Q9"}}, "at"),
                          ({"x": p.x, "y": p.y, "rot": p.rot,
                            "meeple": {"kind": "dragon", "at": "N1"}}, "kind")):
            with self.assertRaises(carc.ArgumentError) as cm:
                g.parse_move(bad)
            self.assertEqual(cm.exception.status, carc.ERR_PARSE)
            self.assertIn(word, str(cm.exception))
            self.assertEqual(g.check(bad), cm.exception.message)
        with self.assertRaises(carc.ArgumentError):
            g.parse_move("[1, 2]")
        with self.assertRaises(carc.ArgumentError):
            g.parse_move("{not json")
        with self.assertRaises(TypeError):
            g.parse_move(7)


class StepsTest(unittest.TestCase):
    """A turn made of steps: the test build's "test-pass" step, played and
    recorded through Python."""

    def setUp(self):
        if TEST_STEP not in carc.STEPS:
            self.skipTest("%s is a release build: its engine has no %r step (build the "
                          "library with make MODE=test)" % (LIB, TEST_STEP))

    def test_game_with_a_later_step(self):
        g = carc.Game(players=3, expansions=[TEST_STEP], seed=31)
        self.assertIn(TEST_STEP, g.rules["expansions"])
        rng = random.Random(31)
        kinds, said = [], []
        for _ in range(MAX_STEPS):
            if g.over:
                break
            kind, who, turn_player = g.step_kind, g.to_move, g.turn_player
            n = g.steps_played
            moves = g.legal_moves()
            self.assertTrue(moves)
            if kind == TEST_STEP:
                # the next player says 0 or 1 in the turn of another
                self.assertEqual(who, (turn_player + 1) % 3)
                self.assertEqual(g.placements(), [])
                self.assertEqual(sorted(m.json[TEST_STEP] for m in moves), [0, 1])
                for m in moves:
                    self.assertEqual(m.step, TEST_STEP)
                    self.assertIsNone(m.x)
                    self.assertFalse(m.is_discard)
                    self.assertIn(TEST_STEP, m.text)
            else:
                self.assertEqual(who, turn_player)
            m = rng.choice(moves)
            evs = g.apply(m, events=True)
            kinds.append(kind)
            if kind == TEST_STEP:
                said.append(m.json[TEST_STEP])
                self.assertEqual(evs, [] if not g.over else evs)
            self.assertEqual(g.steps_played, n + 1)
            st = g.step(-1)
            self.assertEqual((st.index, st.kind, st.player, st.tile),
                             (n, kind, who, m.tile_name))
            self.assertEqual(int(st.move), int(m))
            self.assertEqual(st.move.json, m.json)
            entry = g.last_entry
            self.assertEqual((entry["step"], entry["player"]), (n, who))
        self.assertTrue(g.over)
        self.assertIsNone(g.step_kind)
        self.assertEqual(g.legal_moves(), [])
        # every tile placed was followed by the pass step
        self.assertEqual(kinds.count(TEST_STEP), g.turns_played)
        self.assertEqual(len(kinds), g.steps_played)
        self.assertEqual(set(said), {0, 1})
        steps = g.steps()
        self.assertEqual([s.kind for s in steps], kinds)
        self.assertEqual(steps[5], g.step(5))
        self.assertEqual(len(g.history()), g.turns_played)
        self.assertEqual([int(m) for m, _ in g.history()],
                         [int(s.move) for s in steps if s.kind == "tile"])
        # the record keeps the later steps and replays to the same game
        text = g.record()
        rec = json.loads(text)
        later = [s for t in rec["turns"] for s in t.get("steps", [])]
        self.assertEqual(len(later), kinds.count(TEST_STEP))
        self.assertEqual([s[TEST_STEP] for s in later], said)
        r = carc.Game.replay(text)
        self.assertTrue(r.over)
        self.assertEqual(r.hash, g.hash)
        self.assertEqual(r.scores(), g.scores())
        self.assertEqual(r.steps(), steps)
        self.assertEqual(r.record(), text)
        # a record whose pass step is changed or left out is refused
        bad = json.loads(text)
        bad["turns"][0]["steps"][0][TEST_STEP] = 7
        with self.assertRaises(carc.RecordError) as cm:
            carc.Game.replay(json.dumps(bad))
        self.assertIn("steps[0]", str(cm.exception))
        bad = json.loads(text)
        del bad["turns"][1]["steps"]
        with self.assertRaises(carc.RecordError) as cm:
            carc.Game.replay(json.dumps(bad))
        self.assertIn(TEST_STEP, str(cm.exception))

    def test_mid_step_copy_and_record(self):
        g = carc.Game(players=2, expansions=[TEST_STEP], seed=4)
        g.apply(g.legal_moves()[0])
        self.assertEqual(g.step_kind, TEST_STEP)
        self.assertEqual(g.to_move, 1)
        self.assertEqual(g.turn_player, 0)
        # the wrong step's decision is refused with the engine's message
        with self.assertRaises(carc.IllegalMove):
            g.apply(7)
        with self.assertRaises(carc.ArgumentError):
            g.parse_move({"x": 1, "y": 0, "rot": 0, "meeple": None})
        with self.assertRaises(carc.ArgumentError) as cm:
            g.set_current_tile(g.current_tile)
        self.assertIn(TEST_STEP, str(cm.exception))
        self.assertEqual(g.drawable_tiles(), {})
        c = g.copy()
        c.apply({TEST_STEP: 1})
        self.assertEqual(c.step_kind, "tile")
        self.assertEqual(g.step_kind, TEST_STEP)
        # a record of a game in the middle of a turn replays to it
        r = carc.Game.replay(c.record())
        self.assertEqual(r.hash, c.hash)
        self.assertEqual(r.step(1).move.json, {TEST_STEP: 1})


def _engine_json_keys():
    """The fixed keys of the engine's JSON: records, views, log entries,
    previews, features, tiles (what carc.py may read by a key that is
    spelled like one of the engine's names, such as a turn's "tile"). An
    object whose keys are all names (a supply, points by kind, goods taken)
    is a map by name and gives none; so is a decision of a step other than
    the tile step (its key is the step's name), which this game has not."""
    v = carc.vocabulary()
    every_name = {n for names in v.values() for n in names}
    keys = set()

    def walk(o):
        if isinstance(o, dict):
            if not set(o) <= every_name:
                keys.update(o)
            for x in o.values():
                walk(x)
        elif isinstance(o, list):
            for x in o:
                walk(x)

    g = carc.Game(players=3, expansions=["river", "inns-cathedrals", "traders-builders",
                                         "abbot"], seed=12)
    rng = random.Random(12)
    while not g.over:
        if g.step_kind == "tile" and not g.placements()[0].is_discard:
            walk(g.preview(g.placements()[0]))
        g.apply(rng.choice(g.legal_moves()), events="all")
        walk(g.last_entry)
        if g.steps_played == 40:
            walk(g.view())
            for f in g.figures():
                walk(g.feature_view(f["x"], f["y"], f["at"]))
    walk(json.loads(g.record()))
    walk(g.view())
    walk(carc.tiles_json())
    walk(v)
    return keys


def names_written(path, names, json_keys):
    """The string literals of a Python file that spell one of the engine's
    names, as "line N: 'name'". Docstrings do not count, nor Python's own
    identifiers (__all__, __slots__, ctypes _fields_), nor a literal used as
    a key (x["tile"], x.get("goods"), {"tile": ...}, "tile" in x) when the
    engine's JSON has that key."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    def identifier(node):
        while node in parents:
            node = parents[node]
            if isinstance(node, ast.Assign):
                return any(isinstance(t, ast.Name) and t.id in ("__all__", "__slots__",
                                                                 "_fields_")
                           for t in node.targets)
        return False

    def as_key(node):
        p = parents.get(node)
        if isinstance(p, ast.Subscript) and p.slice is node:
            return True
        if isinstance(p, ast.Dict) and node in p.keys:
            return True
        if isinstance(p, ast.Call) and p.args and p.args[0] is node \
                and isinstance(p.func, ast.Attribute) and p.func.attr in ("get", "pop"):
            return True
        return isinstance(p, ast.Compare) and p.left is node \
            and isinstance(p.ops[0], (ast.In, ast.NotIn))

    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if node.value not in names or isinstance(parents.get(node), ast.Expr) \
                or identifier(node):
            continue
        if as_key(node) and node.value in json_keys:
            continue
        out.append((node.lineno, node.col_offset, node.value))
    return ["line %d: %r" % (line, v) for line, _, v in sorted(out)]


PD = "princess-dragon"  # the expansion (docs/records.md)


class PrincessDragonTest(unittest.TestCase):
    """Princess & Dragon through Python: games played to the end with
    random decisions of every step (tile, action, dragon), each step's
    decisions held against the engine's views and calls (the dragon, the
    fairy, the dragon's path, previews of what the dragon eats), the
    fairy's points added up from the events, and the record replayed."""

    def setUp(self):
        if PD not in carc.EXPANSIONS:
            self.skipTest("%s has no %r expansion" % (LIB, PD))

    @staticmethod
    def _figs(g):
        return sorted((f["player"], f["kind"], f["x"], f["y"], f["at"])
                      for f in g.view("figures")["figures"])

    def _check_pieces(self, g):
        """The calls and the engine's figures view say the same."""
        v = g.view("figures")
        self.assertEqual(v["dragon"], g.dragon)
        self.assertEqual(v["fairy"], g.fairy)
        path = g.dragon_path
        if path:
            self.assertEqual(v["dragon_move"], {"visited": path, "steps": len(path) - 1})
            self.assertEqual(path[-1], g.dragon)
        else:
            self.assertNotIn("dragon_move", v)

    def _dragon_step(self, g, moves):
        """Every square offered is a neighbour of the dragon holding a tile,
        not visited in this flight and not the fairy's; it eats what its
        preview says."""
        path, d = g.dragon_path, g.dragon
        self.assertTrue(path)
        self.assertEqual(g.to_move, (g.turn_player + len(path) - 1) % g.players)
        fairy = g.fairy
        for m in moves:
            self.assertEqual(m.step, "dragon")
            sq = m.json["dragon"]
            self.assertEqual(set(sq), {"x", "y"})
            self.assertEqual(abs(sq["x"] - d["x"]) + abs(sq["y"] - d["y"]), 1, (sq, d))
            self.assertIsNotNone(g.tile_at(sq["x"], sq["y"]))
            self.assertNotIn(sq, path)
            if fairy:
                self.assertNotEqual(sq, {"x": fairy["x"], "y": fairy["y"]})
            self.assertEqual(g.parse_move(m.json), m)
        # a square that is no step of the dragon is refused, the game unchanged
        h = g.hash
        with self.assertRaises(carc.IllegalMove):
            g.apply({"dragon": {"x": d["x"] + 3, "y": d["y"]}})
        self.assertEqual(g.hash, h)

    def test_games_to_the_end(self):
        seen = set()
        symbols = {carc.tile(t).symbol for t in carc.tile_names() if carc.tile(t).set == PD}
        self.assertEqual(symbols, set(carc.SYMBOLS) - {carc.SYMBOLS[0]})
        for seed in range(1, 7):
            g = carc.Game(players=3, expansions=[PD, "abbot"], seed=seed)
            rng = random.Random(seed)
            fairy_points = [0] * 3
            for _ in range(MAX_STEPS):
                if g.over:
                    break
                kind = g.step_kind
                moves = g.legal_moves()
                self.assertTrue(moves)
                self._check_pieces(g)
                if kind == "action":
                    self.assertEqual(g.to_move, g.turn_player)
                    whats = [m.json["action"] if isinstance(m.json["action"], str)
                             else next(iter(m.json["action"])) for m in moves]
                    self.assertEqual(whats[0], "none")
                    self.assertEqual(len(set(map(int, moves))), len(moves))
                elif kind == "dragon":
                    self._dragon_step(g, moves)
                else:
                    self.assertEqual(kind, "tile")
                m = rng.choice(moves)
                if kind == "action":  # each kind of action as likely as another
                    what = rng.choice(sorted(set(whats)))
                    m = rng.choice([x for x, w in zip(moves, whats) if w == what])
                eaten = None
                if kind == "dragon" or (kind == "action" and "princess" in m.json["action"]):
                    eaten = sorted((e["player"], e["kind"], e["x"], e["y"], e["at"])
                                   for e in g.preview(m)["eaten"])
                before = self._figs(g)
                evs = g.apply(m, events="all")
                # what left the board is what the events say went home (what
                # the preview said the step eats, what the turn scored, and
                # every figure in the final scoring),
                # but for a figure this decision put down and the turn scored
                home = sorted((e.player, e.figure, e.x, e.y, e.at) for e in evs
                              if e.type == "returned")
                gone = collections.Counter(before) - collections.Counter(self._figs(g))
                extra = list((collections.Counter(home) - gone).elements())
                self.assertEqual(gone - collections.Counter(home), collections.Counter(),
                                 (m.json, home))
                self.assertLessEqual(len(extra), 1, (m.json, home))
                self.assertTrue(all(f[0] == g.steps()[-1].player for f in extra), extra)
                for f in eaten or ():
                    self.assertIn(f, home, (m.json, eaten))
                for e in evs:
                    if e.type == "scored" and e.kind_name == "fairy":
                        fairy_points = [a + b for a, b in zip(fairy_points, e.points)]
                if kind == "action":
                    a = m.json["action"]
                    seen.add(a if isinstance(a, str) else next(iter(a)))
                    if isinstance(a, dict) and "fairy" in a:
                        # next to that follower, or alone when the turn's
                        # scoring sent the follower home
                        fa = a["fairy"]
                        self.assertIn(g.fairy, (fa, dict(fa, at=None)))
                        if g.fairy["at"] is None:
                            self.assertIn((fa["x"], fa["y"], fa["at"]),
                                          [h[2:] for h in home])
                    if isinstance(a, dict) and "portal" in a:
                        # the figure stands there (or went home when the turn
                        # scored its feature)
                        p, who = a["portal"], g.steps()[-1].player
                        f = (who, p["kind"], p["x"], p["y"], p["at"])
                        self.assertTrue(f in self._figs(g) or f in home, (f, home))
                else:
                    seen.add(kind)
                self._check_pieces(g)
            self.assertTrue(g.over)
            self.assertEqual([s["fairy"] for s in g.scores_by_kind()], fairy_points)
            text = g.record()
            r = carc.Game.replay(text)
            self.assertEqual((r.hash, r.scores()), (g.hash, g.scores()))
            self.assertEqual([s.kind for s in r.steps()], [s.kind for s in g.steps()])
            if seen >= {"none", "fairy", "portal", "princess", "dragon"}:
                break
        self.assertEqual(seen, {"tile", "none", "fairy", "portal", "princess", "dragon"})


class NamesTest(unittest.TestCase):
    """carc.py asks the engine for every name and keeps no copy of a layout."""

    LISTS = ("figures", "features", "score_kinds", "goods", "tile_sets", "steps",
             "expansions", "farm_scoring", "figure_words")

    @classmethod
    def setUpClass(cls):
        v = carc.vocabulary()
        cls.names = {n for k in cls.LISTS for n in v[k]}
        cls.keys = _engine_json_keys()

    def test_lists_are_the_engines(self):
        v = carc.vocabulary()
        for attr, key in (("FIGURES", "figures"), ("FEATURES", "features"),
                          ("SCORE_KINDS", "score_kinds"), ("GOODS", "goods"),
                          ("TILE_SETS", "tile_sets"), ("STEPS", "steps"),
                          ("EXPANSIONS", "expansions"), ("FARM_SCORINGS", "farm_scoring"),
                          ("PORTS", "ports"), ("FIGURE_WORDS", "figure_words"),
                          ("SYMBOLS", "symbols")):
            self.assertEqual(list(getattr(carc, attr)), v[key], attr)
        self.assertEqual(carc.tile_names(), v["tiles"])
        self.assertEqual(carc.TILE_TYPES, len(v["tiles"]))
        self.assertEqual(carc.TILE_TYPES, carc.limit(4))
        self.assertEqual(carc.MAX_TILES, carc.limit(0))
        self.assertEqual(carc.MAX_STEPS, carc.limit(1))
        self.assertGreaterEqual(carc.MAX_STEPS, carc.MAX_TILES)
        self.assertEqual(carc.STEPS[0], "tile")
        with self.assertRaises(AttributeError):
            carc.NO_SUCH_LIST
        # the lists are the engine's: a game's supply and scores use them
        g = carc.Game(expansions=["inns-cathedrals", "traders-builders", "abbot"])
        self.assertEqual(list(g.supply(0)), v["figures"])
        self.assertEqual(list(g.scores_by_kind()[0]), v["score_kinds"])
        self.assertEqual(list(g.goods(0)), v["goods"][1:])
        self.assertEqual(sorted(carc.tile(t).set for t in v["tiles"]),
                         sorted(t["set"] for t in carc.tiles_json()["tiles"]))

    def test_carc_py_writes_no_name(self):
        path = os.path.join(REPO, "python", "carc.py")
        found = names_written(path, self.names, self.keys)
        self.assertEqual(found, [], "python/carc.py writes the engine's names itself "
                         "(ask carc_vocabulary_json): " + "; ".join(found))

    def test_the_scan_finds_a_copy(self):
        # the scan above can fail: a module that keeps its own list is caught
        with tempfile.TemporaryDirectory(prefix="carc-py-") as tmp:
            path = os.path.join(tmp, "copy.py")
            with open(path, "w") as f:
                f.write('"""follower: a docstring may name it."""\n'
                        '__slots__ = ("tile", "goods")\n'
                        'FIGURES = ("follower", "big")\n'
                        'def f(d, figure="abbot"):\n'
                        '    return d["tile"], d.get("goods"), d["follower"]\n'
                        'STEP = "tile" if {"city": 1} else "international"\n')
            found = names_written(path, self.names, self.keys)
        self.assertEqual(found, ["line 3: 'follower'", "line 3: 'big'", "line 4: 'abbot'",
                                 "line 5: 'follower'", "line 6: 'tile'", "line 6: 'city'",
                                 "line 6: 'international'"])

    def test_no_struct_mirrors(self):
        # no ctypes Structure mirrors the engine (see the module docstring)
        with open(os.path.join(REPO, "python", "carc.py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        structs = sorted(c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                         and any(isinstance(b, ast.Attribute) and b.attr in
                                 ("Structure", "Union") for b in c.bases))
        self.assertEqual(structs, [])


class ViewTest(unittest.TestCase):
    def test_views(self):
        g = carc.Game(players=2, seed=8, expansions=["abbot"])
        rng = random.Random(8)
        returned = 0
        for _ in range(30):
            before = [g.supply(p) for p in range(2)]
            evs = g.apply(rng.choice(g.legal_moves()), events="all")
            for e in evs:
                self.assertIn(e.type, ("scored", "returned"))
                if e.type == "returned":
                    returned += 1
                    self.assertIn(e.figure, carc.FIGURES)
                    self.assertIsNotNone(g.tile_at(e.x, e.y))
                    self.assertEqual(e.tile, g.tile_at(e.x, e.y))
                    self.assertGreater(g.supply(e.player)[e.figure],
                                       before[e.player][e.figure] - 1)
                else:
                    self.assertIn(e.kind_name, carc.SCORE_KINDS)
                    self.assertEqual(len(e.points), 2)
        self.assertGreater(returned, 0)
        v = g.view()
        self.assertEqual(v["scores"], g.scores())
        self.assertEqual(len(v["board"]), g.turns_played + 1 - sum(
            1 for m, _ in g.history() if m.is_discard))
        self.assertEqual(len(v["figures"]), len(g.figures()))
        self.assertEqual(set(g.view("board")), {"board"})
        with self.assertRaises(ValueError):
            g.view("nope")
        p = g.placements()[0]
        pv = g.preview(p)
        self.assertEqual((pv["x"], pv["y"], pv["rot"]), (p.x, p.y, p.rot))
        self.assertEqual(len(pv["meeples"]), sum(1 for o in g.figure_options(p)
                                                 if not o.recall))
        with self.assertRaises(carc.IllegalMove):
            g.preview({"x": 50, "y": 50, "rot": 0, "meeple": None})
        fv = g.feature_view(0, 0, "N1")
        self.assertEqual(fv["kind"], g.feature(g.feature_id(0, 0, "N1"))["kind"])
        with self.assertRaises(ValueError):
            g.feature_view(60, 60, "N1")


class TileTest(unittest.TestCase):
    def test_tiles(self):
        names = carc.tile_names()
        self.assertEqual(len(names), carc.TILE_TYPES)
        self.assertEqual(carc.tile_name(carc.tile_type("D")), "D")
        with self.assertRaises(ValueError):
            carc.tile_type("nope")
        d = carc.tile("D")
        self.assertEqual(d.name, "D")
        self.assertEqual(d.set, "base")
        self.assertEqual(d.edges(0), "CRFR")
        self.assertEqual(d.edges(1), "RCRF")
        self.assertEqual(len(d.edges(3)), 4)
        kinds = sorted(s.kind_name for s in d.segments)
        self.assertEqual(kinds, ["city", "field", "field", "road"])
        city = [s for s in d.segments if s.kind_name == "city"][0]
        self.assertEqual(city.ports, [0, 1, 2])
        self.assertEqual(city.port_name, "N1")
        self.assertEqual(d.port_segment("N1"), city.index)
        self.assertEqual(d.port_segment("E1", rot=1), city.index)
        self.assertEqual(d.segment_port_name(city.index, rot=2), "S1")
        self.assertEqual(d.ports_at(0)["N0"], city.index)
        self.assertIsNone(d.port_segment("C"))
        for s in d.segments:
            if s.kind_name == "field":
                self.assertTrue(all(d.segments[c].kind_name == "city" for c in s.cities))
        b = carc.tile("B")
        self.assertEqual([s.kind_name for s in b.segments].count("cloister"), 1)
        self.assertIn("C", b.ports_at(0))
        self.assertTrue(any(s.shield for t in names for s in carc.tile(t).segments))
        self.assertTrue(any(s.inn for t in names for s in carc.tile(t).segments))
        self.assertTrue(any(s.goods for t in names for s in carc.tile(t).segments))
        self.assertTrue(any(carc.tile(t).garden_twin for t in names))
        self.assertEqual(carc.port_name(carc.PORT_CENTRE), "C")
        self.assertEqual(carc.port_parse("W2"), 11)
        self.assertEqual(carc.port_name(carc.port_parse("I")), "I")
        self.assertIn("D", repr(d))


class ExampleTest(unittest.TestCase):
    def test_example_script(self):
        script = os.path.join(REPO, "python", "example_random_game.py")
        with tempfile.TemporaryDirectory(prefix="carc-py-") as tmp:
            path = os.path.join(tmp, "game.json")
            env = dict(os.environ, CARC_LIB=LIB)
            out = subprocess.run([sys.executable, script, "4", path], env=env,
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("final scores", out.stdout)
            self.assertTrue(os.path.exists(path))
            g = carc.Game.load(path)
            self.assertTrue(g.over)
            final = [line for line in out.stdout.splitlines() if line.startswith("final scores")][0]
            self.assertEqual(final, "final scores: " + " ".join(
                "P%d %d" % (p, s) for p, s in enumerate(g.scores())))
            with open(path) as f:
                self.assertEqual(json.load(f)["bots"], ["random", "random"])
            # the same seed plays the same game; the default seed is 1
            again = subprocess.run([sys.executable, script, "4"], env=env,
                                   capture_output=True, text=True, timeout=120)
            self.assertEqual(again.stdout, out.stdout.replace("record written to %s\n" % path, ""))
            default = subprocess.run([sys.executable, script], env=env,
                                     capture_output=True, text=True, timeout=120)
            self.assertEqual(default.returncode, 0, default.stderr)
            self.assertIn("final scores", default.stdout)


if __name__ == "__main__":
    unittest.main()
