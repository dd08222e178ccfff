"""Who plays a table's bots and timeouts when several `carc serve` processes
share one PostgreSQL database (src/server/storage/cluster.c).

The process holding a table's advisory lock plays its bots; it proves at
every poll that its lock session is still alive. These tests restart the
database under bot games (pg_ctl restart -m fast and -m immediate), end
games while other processes have the tables in memory, and kill the
process holding a timed table's lock after its deadline passed.

This module starts a PostgreSQL of its own (test_pg.Postgres) even under
CARC_TEST_DB: restarting a database shared with other tests would break
them. Needs the PostgreSQL binaries (tests/pg/run.sh installs them).

Run: CARC=build/test/carc PG_SUITES='tests/py/test_pg_owners.py' sh tests/pg/run.sh
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from carcserver import psql  # noqa: E402
from test_pg import ClusterCase, http_json, pg_bin  # noqa: E402

SETTLE_S = 2.0  # after a restart: one player per bot table within this


class RestartablePostgres(test_pg.Postgres):
    """test_pg.Postgres that pg_ctl can restart (then pg_ctl stops it too)."""

    restarted = False

    def restart(self, mode):
        """pg_ctl restart -m mode, waiting until it accepts connections again;
        returns the seconds it took."""
        run_as = ["runuser", "-u", self.user, "--"] if self.user else []
        t0 = time.time()
        p = subprocess.run(run_as + [pg_bin("pg_ctl"), "restart", "-D", self.data, "-m", mode,
                                     "-w", "-t", "60", "-l",
                                     os.path.join(self.data, "restart.log")],
                           capture_output=True, text=True, timeout=90)
        if p.returncode:
            raise RuntimeError("pg_ctl restart: " + p.stdout + p.stderr)
        self.restarted = True
        if self.proc.poll() is None:
            self.proc.wait(10)  # the first postmaster, stopped by pg_ctl
        return time.time() - t0

    def stop(self):
        if not self.restarted:
            return super().stop()
        run_as = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run(run_as + [pg_bin("pg_ctl"), "stop", "-D", self.data, "-m", "fast", "-w"],
                       capture_output=True, timeout=60)
        self.log.close()


PG = None
ROOT = None


def setUpModule():
    global PG, ROOT
    if not pg_bin("initdb") or not pg_bin("postgres") or not pg_bin("pg_ctl"):
        test_pg.SKIP = "PostgreSQL is not installed (tests/pg/run.sh installs it)"
        print("test_pg: owners: skipped: " + test_pg.SKIP, file=sys.stderr)
        return
    ROOT = tempfile.mkdtemp(prefix="carc-pg-owners-")
    PG = RestartablePostgres(ROOT)
    test_pg.PG_URL = PG.url  # ClusterCase makes its databases there


def tearDownModule():
    if PG:
        PG.stop()
    if ROOT:
        shutil.rmtree(ROOT, ignore_errors=True)


class OwnersTest(ClusterCase):

    def dbname(self):
        return self.url.rsplit("/", 1)[1]

    def pg_locks(self):
        """Advisory locks granted on this test's database."""
        out = psql(PG.url, "select count(*) from pg_locks where locktype = 'advisory' and "
                           "granted and database = (select oid from pg_database where "
                           "datname = '%s')" % self.dbname())
        return int(out.split()[0])

    def held(self, procs):
        return [int(self.metric(p.port, "carc_bot_tables_held")) for p in procs]

    def moves(self, tid):
        for _ in range(50):  # the database may be restarting
            try:
                return int(psql(self.url, "select count(*) from moves where game_id='%s'"
                                % tid).split()[0])
            except RuntimeError:
                time.sleep(0.1)
        raise AssertionError("the database did not answer")

    def status(self, port, tid):
        st, info = http_json(port, "GET", "/api/tables/" + tid)
        return info["status"]

    def restart_under_bot_games(self, mode):
        procs = self.start(3, extra=["--bot-delay", "100"])
        tids = []
        # made on one process, which plays them all: it has no table of
        # another's to try the lock of (then it met its dead lock session
        # only by chance), as with one bot game
        for i in range(2):
            st, made = http_json(procs[0].port, "POST", "/api/tables",
                                 {"seats": [{"bot": "random"}, {"bot": "random"}],
                                  "seed": 40 + i, "bot_delay_ms": 100})
            self.assertEqual(st, 201, made)
            tids.append(made["id"])
        deadline = time.time() + 10
        while min(self.moves(t) for t in tids) < 5 and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(sum(self.held(procs)), len(tids), self.logs())
        before = {t: self.moves(t) for t in tids}
        took = PG.restart(mode)
        t0 = time.time()
        # until every table moved again with one player each
        settled = None
        while time.time() < t0 + 15:
            held = self.held(procs)
            moved = all(self.moves(t) > before[t] for t in tids)
            if moved and sum(held) == len(tids) and self.pg_locks() == len(tids):
                settled = time.time() - t0
                break
            time.sleep(0.05)
        self.assertIsNotNone(settled, "no single player per table after the restart: held %s, "
                             "pg_locks %d\n%s" % (self.held(procs), self.pg_locks(), self.logs()))
        # one player each within SETTLE_S; a new move stored needs the
        # writer's probe too (WRITER_PROBE_MS): a second's margin
        self.assertLess(settled, SETTLE_S + 1.0)
        if time.time() < t0 + SETTLE_S:
            time.sleep(t0 + SETTLE_S - time.time())
        marks = [len(p.read_log()) for p in procs]
        # the games go on to their end, one player each all the way
        deadline = time.time() + 60
        samples = 0
        while time.time() < deadline:
            over = [self.status(procs[0].port, t) == "over" for t in tids]
            if all(over):
                break
            held, locks = sum(self.held(procs)), self.pg_locks()
            # a table may end between the two reads: at most the ones still playing
            self.assertLessEqual(held, len(tids), self.logs())
            self.assertLessEqual(locks, len(tids))
            samples += 1
            time.sleep(0.2)
        self.assertTrue(all(self.status(procs[0].port, t) == "over" for t in tids),
                        "the games did not end after the restart\n" + self.logs())
        after = "\n".join(p.read_log()[m:] for p, m in zip(procs, marks))
        conflicts = [l for l in after.splitlines() if "event=conflict" in l]
        self.assertEqual(conflicts, [], "moves offered twice %.1f s after the restart" % SETTLE_S)
        for t in tids:
            rows = psql(self.url, "select turn from moves where game_id='%s' order by turn" % t)
            turns = [int(r) for r in rows.split()]
            self.assertEqual(turns, list(range(len(turns))))  # none lost, none twice
            st, state = http_json(procs[1].port, "GET", "/api/tables/%s/state" % t)
            self.assertEqual(len(state["game"]["log"]), len(turns))
        early = self.logs().count("event=conflict")
        print("test_pg: owners: pg_ctl restart -m %s took %.2f s; bots of %d tables played "
              "again, one process each, %.2f s after it (poll %d ms); %d conflicts before "
              "that, none after %.0f s" % (mode, took, len(tids), settled, 1000, early, SETTLE_S),
              file=sys.stderr)

    def test_database_restart_fast(self):
        self.restart_under_bot_games("fast")

    def test_database_restart_immediate(self):
        self.restart_under_bot_games("immediate")

    def test_no_orphan_alarm_after_a_game_ends(self):
        # the games are played on a; b and c have them in memory (a look at
        # each) and try their locks at every poll until they end
        a, b, c = self.start(3, extra=["--bot-delay", "20"])
        tids = []
        for i in range(4):
            st, made = http_json(a.port, "POST", "/api/tables",
                                 {"seats": [{"bot": "random"}, {"bot": "random"}],
                                  "seed": 60 + i, "bot_delay_ms": 20 + 30 * i,
                                  "tiles": {"U": 6, "E": 6}})
            self.assertEqual(st, 201, made)
            tids.append(made["id"])
            for s in (b, c):
                http_json(s.port, "GET", "/api/tables/" + tids[-1])
        deadline = time.time() + 20
        while time.time() < deadline and not all(self.status(a.port, t) == "over" for t in tids):
            time.sleep(0.1)
        self.assertTrue(all(self.status(a.port, t) == "over" for t in tids), self.logs())
        time.sleep(2.5)  # two polls of every process
        alarms = [l for l in self.logs().splitlines() if "nobody played them" in l]
        self.assertEqual(alarms, [], "finished games reported as orphans\n" + self.logs())
        self.assertEqual(self.held([a, b, c]), [0, 0, 0])
        self.assertEqual(self.pg_locks(), 0)

    def test_timeout_played_when_the_lock_holder_is_killed(self):
        # b makes the table and plays its bot (seat 0 moves first); alice
        # watches on a and never moves. b hangs (SIGSTOP) until alice's
        # deadline has passed on a, where nothing happens (b owns the
        # table's time); then b is killed: a takes the lock at its next
        # look and plays the timeout move.
        a, b = self.start(2, extra=["--bot-delay", "20"])
        move_s = 2
        st, made = http_json(b.port, "POST", "/api/tables",
                             {"seats": [{"bot": "random"}, {}], "name": "alice", "seed": 9,
                              "bot_delay_ms": 20,
                              "clock": {"mode": "realtime", "move_s": move_s, "reserve_s": 0,
                                        "max_timeouts": 5, "takeover": "random"}})
        self.assertEqual(st, 201, made)
        tid = made["id"]
        w = self.ws(a.port, tid, made["token"])
        state = w.recv_type("state")
        nxt, turn = state["game"]["next"], len(state["game"]["log"])
        while nxt["to_move"] != 1:
            m = w.recv_type("move")
            nxt, turn = m["next"], m["entry"]["turn"] + 1
        self.assertEqual(self.held([a, b]), [0, 1])
        st, info = http_json(a.port, "GET", "/api/tables/%s/state" % tid)
        deadline_ms = info["table"]["clock"]["deadline_ms"]
        self.assertIsNotNone(deadline_ms, info["table"]["clock"])
        b.proc.send_signal(signal.SIGSTOP)
        try:
            wait = deadline_ms / 1000.0 - time.time() + 0.5
            time.sleep(max(0.0, wait))  # a's timer fired; b holds the lock
            # only the owner of the table's time acts on a deadline
            self.assertNotIn("event=timeout", self.servers[0].read_log())
        finally:
            b.kill()  # SIGKILL works on a stopped process
        killed = time.time()
        got = w.recv_type("move", timeout=10)
        took = time.time() - killed
        self.assertEqual(got["entry"]["player"], 1)
        self.assertEqual(got["entry"]["turn"], turn)
        self.assertLess(took, 3.0, "the timeout move came %.1f s after the kill" % took)
        self.assertEqual(self.held([a]), [1])
        self.assertIn("event=timeout", self.servers[0].read_log())
        print("test_pg: owners: timeout move played by another process %.2f s after kill -9 of "
              "the lock holder (deadline passed %.1f s before)" % (took, max(0.0, wait)),
              file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
