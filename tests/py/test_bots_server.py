"""Bots under the server's control (issue 11, defect 3): a client chooses a
bot LEVEL, never a spec; the operator maps levels to specs (--bot-level);
every spec, a level's or one stored by an older version, is held to the
ceilings (--bot-max-time, --bot-max-threads, --bot-max-nodes); a fixed pool
of --bot-threads workers is shared by all tables first come, first served,
so no table's bot starves another's; SIGTERM stops thinking bots at once.

Run: CARC=build/test/carc python3 tests/py/test_bots_server.py
Every test starts its own servers on loopback and kills them; bot times are
a few tenths of a second (the machine is shared).
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, HOST, ServerCase  # noqa: E402

BUILTIN_LEVELS = ["random", "easy", "medium", "hard", "expert"]
EVIL = "mcts:time=3600,threads=64,nodes=67108864"  # the spec of the defect


def proc_status(pid):
    """Threads and VmRSS (KiB) of a process, from /proc."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("Threads", "VmRSS"):
                out[k] = int(v.split()[0])
    return out


def spec_params(spec):
    """"mcts:time=1,threads=2" -> ("mcts", {"time": 1.0, "threads": 2.0})."""
    name, _, rest = spec.partition(":")
    params = {}
    for kv in filter(None, rest.split(",")):
        k, _, v = kv.partition("=")
        try:
            params[k] = float(v)
        except ValueError:
            params[k] = v
    return name, params


def levels_of(srv):
    st, opts, _ = srv.get("/api/options")
    assert st == 200, opts
    return {l["level"]: l for l in opts["bot_levels"]}


def bot_specs(info):
    return [s.get("spec") for s in info["seats"]]


class MoveClock:
    """Times of the "move" messages of a table, read from a WebSocket."""

    def __init__(self, case, srv, tid):
        self.ws = case.ws(srv, tid)
        game = self.ws.recv_type("state")["game"]
        self.times = []
        self.entries = list(game["log"])  # the moves before, then those announced
        self.over = game["next"]["over"]

    def poll(self, until):
        """Reads moves until the time `until` (time.time()) or the game's end."""
        while not self.over and time.time() < until:
            try:
                m = self.ws.recv_type("move", timeout=max(0.01, until - time.time()))
            except TimeoutError:
                break
            self.times.append(time.time())
            self.entries.append(m["entry"])
            self.over = m["next"]["over"]

    def gaps(self, start):
        ts = [start] + self.times
        return [b - a for a, b in zip(ts, ts[1:])]


SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "WARNING: ThreadSanitizer")


class BotCase(ServerCase):
    """Stops its servers with SIGTERM (so that LeakSanitizer looks at them)
    and fails on a sanitizer report in any server's log."""

    def tearDown(self):
        reports = []
        for srv in self.servers:
            if srv.proc.poll() is None:
                srv.stop()
            log = srv.read_log()
            found = [line for line in log.splitlines() if any(m in line for m in SANITIZER_MARKS)]
            if found:  # the whole report, to find its cause
                print("\n--- the server's log:\n" + log[-20000:], file=sys.stderr)
            reports += found
        super().tearDown()
        self.assertEqual(reports, [], "sanitizer report in a server's log")


class BotLevels(BotCase):
    def create_status(self, srv, **options):
        st, r, _ = srv.post("/api/tables", options)
        return st, r

    def test_a_seat_names_a_level_never_a_spec(self):
        srv = self.start()
        refused = [EVIL, "mcts:iter=1000000000", "star25:time=3600", "star25:depth=8",
                   "greedy", "mcts", "random:follower=1", "Random", "x" * 40]
        for bot in refused:
            st, r = self.create_status(srv, seats=[{"bot": bot}, {"bot": "random"}],
                                       bot_delay_ms=0)
            self.assertEqual(st, 400, (bot, r))
            self.assertEqual(r["error"]["code"], "bad_option", r)
            msg = r["error"]["message"]
            self.assertIn("seats[0]", msg)
            for level in BUILTIN_LEVELS:
                self.assertIn(level, msg)
        st, health, _ = srv.get("/api/health")
        self.assertEqual((st, health["tables"]), (200, 0))
        # every level the server lists is accepted, with the spec it lists
        levels = levels_of(srv)
        self.assertEqual(sorted(levels), sorted(BUILTIN_LEVELS))
        # each built-in level has its fixed rating, and they rise with the level
        ratings = [levels[n]["rating"] for n in BUILTIN_LEVELS]
        self.assertTrue(all(isinstance(r, int) for r in ratings), ratings)
        self.assertEqual(ratings, sorted(ratings), ratings)
        self.assertEqual(len(set(ratings)), len(ratings), ratings)
        self.assertEqual(ratings[0], 1000)  # random, the anchor
        for name, l in levels.items():
            self.assertTrue(l["available"], l)
            c = srv.create(seats=[{"bot": name}, {}], name="p")
            self.assertEqual(c["table"]["seats"][0]["level"], name)
            self.assertEqual(c["table"]["seats"][0]["spec"], l["spec"])

    def test_operator_levels_redefine_and_add(self):
        srv = self.start(extra=["--bot-level", "hard=mcts:iter=40",
                                "--bot-level", "quick=greedy",
                                "--bot-level", "quick=random"])  # the last one counts
        levels = levels_of(srv)
        self.assertEqual(sorted(levels), sorted(BUILTIN_LEVELS + ["quick"]))
        self.assertEqual(levels["hard"]["spec"], "mcts:iter=40")
        self.assertEqual(levels["quick"]["spec"], "random")
        # a spec of no measured strength has no rating (its games are unrated)
        self.assertIsNone(levels["hard"]["rating"])
        self.assertEqual(levels["quick"]["rating"], 1000)
        c = srv.create(seats=[{"bot": "quick"}, {"bot": "hard"}], tiles={"U": 3, "V": 2})
        self.assertEqual(bot_specs(c["table"]), ["random", "mcts:iter=40"])
        self.assertEqual(self.wait_over(srv, c["id"], timeout=10)["status"], "over")
        st, r = self.create_status(srv, seats=[{"bot": "slow"}, {}])
        self.assertEqual(st, 400)
        self.assertIn("quick", r["error"]["message"])

    def test_a_bad_level_or_ceiling_is_a_startup_error(self):
        db = os.path.join(self.dir, "never.sqlite")
        cases = [
            (["--bot-level", "x=mcts:foo=1"], ["x", "foo"]),
            (["--bot-level", "x=chess"], ["x", "chess"]),
            (["--bot-level", "x=mcts:time=abc"], ["x", "time"]),
            (["--bot-level", "nospec"], ["NAME=SPEC"]),
            (["--bot-level", "=random"], ["NAME=SPEC"]),
            (["--bot-level", "a b=random"], ["a b"]),
            (["--bot-level", "x="], ["x"]),
            (["--bot-max-time", "0"], ["--bot-max-time"]),
            (["--bot-max-time", "abc"], ["--bot-max-time"]),
            (["--bot-max-threads", "0"], ["--bot-max-threads"]),
            (["--bot-max-nodes", "10"], ["--bot-max-nodes"]),
        ]
        for args, words in cases:
            p = subprocess.run([CARC, "serve", "--host", HOST, "--port", "0", "--db", db] + args,
                               capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
            err = p.stderr.decode(errors="replace")
            self.assertNotEqual(p.returncode, 0, (args, err))
            self.assertNotIn(b"listening", p.stdout, args)
            for w in words:
                self.assertIn(w, err, (args, err))
        self.assertFalse(os.path.exists(db), "nothing starts before the options are checked")
        p = subprocess.run([CARC, "serve", "--help"], capture_output=True, timeout=10)
        for opt in ("--bot-level", "--bot-max-time", "--bot-max-threads", "--bot-max-nodes"):
            self.assertIn(opt, p.stdout.decode())

    def test_levels_are_clamped_to_the_ceilings(self):
        srv = self.start(extra=["--bot-level", "big=" + EVIL,
                                "--bot-level", "deep=star25:time=3600,depth=8",
                                "--bot-level", "many=mcts:threads=0",
                                "--bot-max-time", "0.3", "--bot-max-threads", "1",
                                "--bot-max-nodes", "200000"])
        levels = levels_of(srv)
        for name in ("big", "deep", "many", "hard"):
            bot, p = spec_params(levels[name]["spec"])
            self.assertLessEqual(p.get("time", 0), 0.3, levels[name])
            self.assertLessEqual(p.get("threads", 1), 1, levels[name])
            self.assertNotEqual(p.get("threads"), 0, levels[name])
            if bot == "mcts":
                self.assertIn("nodes", p, levels[name])  # the default (2^20) is over 200000
                self.assertLessEqual(p["nodes"], 200000, levels[name])
        self.assertEqual(spec_params(levels["deep"]["spec"])[1]["depth"], 8)
        log = srv.read_log()
        self.assertIn("big", log)
        self.assertIn("--bot-max-time", log)  # the clamp is said at start
        c = srv.create(seats=[{"bot": "big"}, {"bot": "deep"}], name="watcher")
        self.assertEqual(bot_specs(c["table"])[:2],
                         [levels["big"]["spec"], levels["deep"]["spec"]])

    def test_a_stored_spec_is_clamped_when_its_game_is_loaded(self):
        srv = self.start(extra=["--bot-level", "slow=mcts:time=0.2"])
        idle_threads = proc_status(srv.proc.pid)["Threads"]
        # bot_delay_ms: no move before the server stops
        tid = srv.create(seats=[{"bot": "slow"}, {"bot": "slow"}], bot_delay_ms=60000)["id"]
        srv.stop()
        # as an older version stored it: a client's raw spec
        con = sqlite3.connect(srv.db)
        con.execute("update seats set bot_spec=?, level=? where game_id=?", (EVIL, EVIL[:60], tid))
        opts = json.loads(con.execute("select options from games where id=?", (tid,)).fetchone()[0])
        opts["bot_delay_ms"] = 0
        con.execute("update games set options=? where id=?", (json.dumps(opts), tid))
        con.commit()
        con.close()

        srv2 = self.start(extra=["--bot-max-time", "0.2"])
        start = time.time()
        info = srv2.get("/api/tables/" + tid)[1]
        for spec in bot_specs(info):
            bot, p = spec_params(spec)
            self.assertEqual(bot, "mcts")
            self.assertLessEqual(p.get("time", 0), 0.2, spec)
            self.assertLessEqual(p.get("threads", 1), 1, spec)
            self.assertLessEqual(p.get("nodes", 1 << 20), 1 << 20, spec)
        clock = MoveClock(self, srv2, tid)
        clock.poll(start + 4)
        threads = proc_status(srv2.proc.pid)["Threads"]
        gaps = clock.gaps(start)
        print("\n  stored %s: %d moves in 4 s, longest wait %.2f s, threads %d (idle %d)"
              % (EVIL, len(gaps), max(gaps or [0]), threads, idle_threads), file=sys.stderr)
        self.assertGreaterEqual(len(gaps), 4)
        self.assertLess(max(gaps), 2.0)
        self.assertLessEqual(threads, idle_threads + 2)


class StopWhileStoring(BotCase):
    def test_sigterm_while_a_move_is_being_stored(self):
        # CI's sanitizer run: a move the storage thread finished at the stop
        # but the loop never took back (its game after the move) leaked
        fault = os.path.join(self.dir, "fault")
        os.environ["CARC_TEST_STORE_FAULT"] = fault
        try:
            srv = self.start()
        finally:
            del os.environ["CARC_TEST_STORE_FAULT"]
        c = srv.create(seats=[{}, {"bot": "random"}], name="p", bot_delay_ms=60000)
        tid = c["id"]
        p = srv.state(tid)["game"]["next"]["legal"]["placements"][0]
        move = {"x": p["x"], "y": p["y"], "rot": p["rot"], "meeple": None}
        with open(fault, "w") as f:
            f.write("slow")  # every write waits a second (test builds)
        answers = []

        def post():
            try:
                answers.append(srv.post("/api/tables/%s/move" % tid, move, token=c["token"]))
            except OSError as e:  # the server went away before answering
                answers.append(e)
        poster = threading.Thread(target=post)
        poster.start()
        time.sleep(0.3)  # the move is with the storage thread now
        if answers:
            poster.join()
            self.skipTest("this build has no fault injection (a release build)")
        srv.proc.send_signal(signal.SIGTERM)
        rc = srv.proc.wait(10)
        poster.join(10)
        self.assertEqual(rc, 0)
        os.remove(fault)
        # the move was stored at the stop (what was acknowledged, or not, is kept)
        srv2 = self.start()
        self.assertEqual(len(srv2.state(tid)["game"]["log"]), 1)


class BotPool(BotCase):
    def test_slow_tables_do_not_starve_a_fast_one(self):
        # the slow levels would think for hours; the watchdog stops each
        # move at --bot-max-time
        srv = self.start(extra=["--bot-threads", "2", "--bot-max-time", "0.2",
                                "--bot-level", "slow=mcts:iter=1000000000",
                                "--bot-level", "slower=star25:depth=8"])
        slow = [srv.create(seats=[{"bot": "slow"}, {"bot": "slower"}], bot_delay_ms=0)["id"]
                for _ in range(4)]
        fast = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], bot_delay_ms=0)["id"]
        start = time.time()
        fclock = MoveClock(self, srv, fast)
        sclock = MoveClock(self, srv, slow[0])
        end = start + 5
        while time.time() < end and not fclock.over:
            fclock.poll(min(end, time.time() + 0.2))
            sclock.poll(min(end, time.time() + 0.05))
        turns = [srv.get("/api/tables/" + t)[1]["turn"] for t in slow]
        fg, sg = fclock.gaps(start), sclock.gaps(start)
        print("\n  fast table: %d moves in %.1f s, wait mean %.3f s, max %.3f s; "
              "slow table: %d moves, wait max %.3f s; slow turns %s"
              % (len(fg), time.time() - start, sum(fg) / max(1, len(fg)), max(fg or [0]),
                 len(sg), max(sg or [0]), turns), file=sys.stderr)
        # 4 slow jobs ahead at most, 2 threads, 0.2 s each: ~0.4 s a move
        self.assertGreaterEqual(len(fg), 6)
        self.assertLess(max(fg), 2.5)
        # and the slow tables are served too, each move within the ceiling
        self.assertTrue(all(t >= 2 for t in turns), turns)
        self.assertLess(max(sg), 2.5)

    def test_sigterm_stops_thinking_bots_at_once(self):
        extra = ["--bot-threads", "2", "--bot-max-time", "20",
                 "--bot-level", "slow=mcts:time=20", "--bot-level", "deep=star25:depth=8"]
        srv = self.start(extra=extra)
        t1 = srv.create(seats=[{"bot": "random"}, {"bot": "slow"}], bot_delay_ms=0)["id"]
        c2 = srv.create(seats=[{}, {"bot": "deep"}], name="p", bot_delay_ms=0)
        t2 = c2["id"]
        t3 = srv.create(seats=[{"bot": "slow"}, {"bot": "slow"}], bot_delay_ms=0)["id"]
        clock = MoveClock(self, srv, t1)
        deadline = time.time() + 5
        while not clock.entries and time.time() < deadline:  # the random bot's move
            clock.poll(time.time() + 0.05)
        self.assertEqual(len(clock.entries), 1)  # then "slow" thinks
        nxt = srv.state(t2)["game"]["next"]
        p = nxt["legal"]["placements"][0]
        st, r, _ = srv.post("/api/tables/%s/move" % t2,
                            {"x": p["x"], "y": p["y"], "rot": p["rot"], "meeple": None},
                            token=c2["token"])
        self.assertEqual(st, 200, r)
        acked = {t1: clock.entries, t2: srv.state(t2)["game"]["log"],
                 t3: srv.state(t3)["game"]["log"]}
        time.sleep(0.3)  # every bot is thinking (or queued) now
        t0 = time.time()
        srv.proc.send_signal(signal.SIGTERM)
        try:
            rc = srv.proc.wait(10)
        except subprocess.TimeoutExpired:
            rc = None
        took = time.time() - t0
        print("\n  SIGTERM with 3 bots thinking (20 s budgets): exit %s after %.2f s"
              % (rc, took), file=sys.stderr)
        self.assertEqual(rc, 0)
        self.assertLess(took, 2.0)
        self.assertIn("stopping", srv.read_log())

        srv2 = self.start(extra=extra + ["--bot-delay", "60000"])
        for tid, log in acked.items():
            got = srv2.state(tid)["game"]["log"]
            self.assertEqual(got[:len(log)], log, tid)
        self.assertEqual(len(acked[t1]), 1)
        self.assertEqual(len(acked[t2]), 1)

    def test_threads_and_memory_stay_bounded(self):
        # AddressSanitizer keeps freed memory (256 MB) to catch uses after
        # free: a small quarantine, so that RSS shows what the server holds
        old_opts = os.environ.get("ASAN_OPTIONS")
        os.environ["ASAN_OPTIONS"] = ((old_opts + ":") if old_opts else "") + "quarantine_size_mb=8"
        try:
            srv = self.start(extra=["--bot-threads", "2", "--bot-max-time", "0.2",
                                    "--bot-max-nodes", "100000", "--bot-level", "big=" + EVIL])
        finally:
            if old_opts is None:
                del os.environ["ASAN_OPTIONS"]
            else:
                os.environ["ASAN_OPTIONS"] = old_opts
        time.sleep(0.2)
        base = proc_status(srv.proc.pid)
        tids = [srv.create(seats=[{"bot": "big"}, {"bot": "big"}], bot_delay_ms=0)["id"]
                for _ in range(16)]
        peak = dict(base)
        end = time.time() + 3
        while time.time() < end:
            s = proc_status(srv.proc.pid)
            peak = {k: max(peak[k], s[k]) for k in peak}
            time.sleep(0.05)
        turns = sum(srv.get("/api/tables/" + t)[1]["turn"] for t in tids)
        print("\n  16 tables of %s: threads %d at start, %d at most; RSS %d MB -> %d MB at "
              "most; %d moves" % (EVIL, base["Threads"], peak["Threads"], base["VmRSS"] // 1024,
                                  peak["VmRSS"] // 1024, turns), file=sys.stderr)
        self.assertGreaterEqual(turns, 8)  # the bots did think
        self.assertLessEqual(peak["Threads"], base["Threads"] + 2)
        # 2 bots of 100000 nodes (3.6 MB) at once; sanitizers add their own
        self.assertLess(peak["VmRSS"] - base["VmRSS"], 100 * 1024)

    def test_a_deterministic_level_resumes_with_the_same_moves(self):
        extra = ["--bot-level", "det=mcts:iter=60"]
        srv = self.start(extra=extra)
        seats = [{"bot": "det"}, {"bot": "medium"}]
        tiles = {"U": 3, "V": 3, "E": 2}
        tid = srv.create(seats=seats, seed=77, tiles=tiles, bot_delay_ms=300)["id"]
        clock = MoveClock(self, srv, tid)
        deadline = time.time() + 5
        while len(clock.entries) < 2 and time.time() < deadline:
            clock.poll(time.time() + 0.05)
        self.assertFalse(clock.over)  # killed in the middle of the game
        srv.kill()
        srv2 = self.start(extra=extra)
        self.wait_over(srv2, tid, timeout=10)
        again = srv2.create(seats=seats, seed=77, tiles=tiles, bot_delay_ms=0)["id"]
        self.wait_over(srv2, again, timeout=10)
        r1 = srv2.get("/api/tables/%s/record" % tid)[1]
        r2 = srv2.get("/api/tables/%s/record" % again)[1]
        self.assertEqual(r1["turns"], r2["turns"])
        self.assertEqual(r1["final"], r2["final"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
