"""A database of the build before issue 27 (schema 18: the moves keyed by
their turn) migrated in place to the step as the unit of storage (schema
19: docs/server.md, "Steps in the store"), with its games in progress
going on after the upgrade: a bot whose move was due moves, a person on a
clock moves within the grace after the restart and the bot answers, and
two people's clock that ran out while the server was down times out
after the grace, the takeover bot plays and the clock moves on. The
finished game's record is byte for byte what the old server gave.

The database is tests/data/pre27/schema18.sqlite.sql (or, under
CARC_TEST_DB, schema18.pg.sql): written by that build's own server
(tests/data/pre27/make.py says how), never by this one.

Run: CARC=build/test/carc python3 tests/py/test_migrate_steps.py
     PG_SUITES=tests/py/test_migrate_steps.py CARC=build/test/carc sh tests/pg/run.sh
"""
import http.client
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import (CARC, PG_ADMIN, PSQL, ServerCase, connect_db, first_legal,  # noqa: E402
                        pg_url_for, schema_version)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "pre27")
GRACE_S = 6


def engine_names():
    out = subprocess.run([CARC, "names", "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


class MigrateSteps(ServerCase):
    def load_fixture(self, db):
        """The old build's database at `db` (a path in the test's folder)."""
        path = os.path.join(self.dir, db)
        if PG_ADMIN:
            p = subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f",
                                os.path.join(DATA, "schema18.pg.sql"), pg_url_for(path)],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
        else:
            import sqlite3
            con = sqlite3.connect(path)
            with open(os.path.join(DATA, "schema18.sqlite.sql")) as f:
                con.executescript(f.read())
            con.commit()
            con.close()
        # the server was down a day: every deadline has passed (the fixture
        # may be younger than that)
        con = connect_db(path)
        con.execute("UPDATE clocks SET deadline_ms = deadline_ms - 86400000 WHERE deadline_ms > 0")
        con.commit()
        con.close()

    def rows(self, srv, sql):
        con = connect_db(srv.db)
        try:
            return [tuple(r) for r in con.execute(sql)]
        finally:
            con.close()

    def wait_state(self, srv, tid, cond, what, timeout=30):
        end = time.time() + timeout
        while True:
            s = srv.state(tid)
            if cond(s):
                return s
            if time.time() > end:
                self.fail("table %s: %s did not happen in %d s; state %s\n%s"
                          % (tid, what, timeout, json.dumps(s["table"]), srv.read_log()[-3000:]))
            time.sleep(0.05)

    def move(self, srv, tid, token):
        nxt = srv.state(tid, token)["game"]["next"]
        st, r, _ = srv.post("/api/tables/%s/move" % tid,
                            dict(first_legal(nxt), turn=nxt["turn"], step=nxt["step"]), token=token)
        self.assertEqual(st, 200, r)
        return r

    def test_a_schema_18_database_is_migrated_and_its_games_go_on(self):
        with open(os.path.join(DATA, "games.json")) as f:
            fixture = json.load(f)
        games = fixture["pg" if PG_ADMIN else "sqlite"]
        self.assertEqual(fixture["schema"], 18)
        self.assertGreaterEqual(schema_version(), 19, "the steps' migration is 19")
        self.load_fixture("carc.sqlite")
        con = connect_db(os.path.join(self.dir, "carc.sqlite"))
        before = sorted(tuple(r) for r in con.execute(
            "SELECT game_id, turn, player, move, tile FROM moves"))
        clocks = sorted(tuple(r) for r in con.execute("SELECT game_id, turn FROM clocks"))
        con.close()
        self.assertGreater(len(before), 50)
        t0 = time.time()
        srv = self.start(extra=["--clock-grace", str(GRACE_S)])
        # the person on a clock against a bot moves first, within the grace
        cb = games["clock_bot"]
        r = self.move(srv, cb["id"], cb["tokens"][0])
        self.assertLess(time.time() - t0, GRACE_S, "the test was too slow for the grace")
        self.assertEqual((r["entry"]["turn"], r["entry"]["step"], r["entry"]["player"]), (6, 6, 0))
        # two people on a clock: the deadline that passed while the server
        # was down is the grace's
        cp = games["clock_people"]
        info = srv.get("/api/tables/" + cp["id"])[1]
        late = info["to_move"]
        self.assertEqual((info["turn"], info["step"]), (5, 5))
        self.assertEqual((info["clock"]["seat"], info["clock"]["step"]), (late, 5))
        self.assertLessEqual(info["clock"]["deadline_ms"], int((t0 + GRACE_S + 5) * 1000))

        # every row kept its number as the step of its turn, a tile step
        tile_step = engine_names()["steps"][0]
        (version,) = self.rows(srv, "SELECT version FROM carc_schema" if PG_ADMIN
                               else "PRAGMA user_version")[0]
        self.assertEqual(int(version), schema_version())
        after = {(g, st): (t, k, p, m, tile) for g, st, t, k, p, m, tile in self.rows(
            srv, "SELECT game_id, step, turn, kind, player, move, tile FROM moves")}
        for g, turn, p, m, tile in before:
            self.assertEqual(after.get((g, turn)), (turn, tile_step, p, m, tile),
                             "move %s/%d" % (g, turn))
        self.assertEqual(sorted(g for g, _ in self.rows(srv, "SELECT game_id, step FROM clocks")),
                         [g for g, _ in clocks])

        # the bot answers the person, and the person's clock runs again
        s = self.wait_state(srv, cb["id"], lambda s: s["game"]["next"]["to_move"] == 0
                            and s["game"]["next"]["step"] == 8, "the bot's answer")
        clock = s["table"]["clock"]
        self.assertEqual((clock["seat"], clock["step"], clock["turn"]), (0, 8, 8))
        self.assertGreater(clock["deadline_ms"] - clock["server_ms"], 500 * 1000)

        # the bot whose move was due when the old server stopped moves
        bd = games["bot_due"]
        self.wait_state(srv, bd["id"], lambda s: s["game"]["next"]["step"] == 2,
                        "the due bot's move")
        self.move(srv, bd["id"], bd["tokens"][0])
        self.wait_state(srv, bd["id"], lambda s: s["game"]["next"]["step"] == 4,
                        "the bot's next move")

        # two people: the time of the seat to move ran out while the server
        # was down; after the grace the takeover bot plays its move and the
        # next seat's clock runs
        s = self.wait_state(srv, cp["id"], lambda s: s["game"]["next"]["step"] == 6,
                            "the timeout's move", timeout=GRACE_S + 30)
        clock, nxt = s["table"]["clock"], s["game"]["next"]
        self.assertEqual((clock["seat"], clock["step"], clock["seats"][late]["timeouts"]),
                         (nxt["to_move"], 6, 1))
        self.assertTrue(s["game"]["log"][-1].get("takeover"), s["game"]["log"][-1])
        self.move(srv, cp["id"], cp["tokens"][nxt["to_move"]])
        info = srv.get("/api/tables/" + cp["id"])[1]
        self.assertEqual((info["clock"]["seat"], info["clock"]["step"]), (info["to_move"], 7))

        # the finished game's record is the old server's, byte for byte
        fin = games["finished"]
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        conn.request("GET", "/api/tables/%s/record" % fin["id"])
        r = conn.getresponse()
        rec = r.read().decode()
        conn.close()
        self.assertEqual(r.status, 200, rec)
        with open(os.path.join(DATA, "records", "server-finished-%s.json"
                               % ("pg" if PG_ADMIN else "sqlite"))) as f:
            self.assertEqual(rec, f.read())

        # and a restart on the migrated database finds every game as it was
        states = {g["id"]: srv.state(g["id"])["game"]["next"]["step"] for g in games.values()}
        srv.stop()
        srv = self.start(extra=["--clock-grace", str(GRACE_S)])
        for tid, step in states.items():
            nxt = srv.state(tid)["game"]["next"]
            self.assertGreaterEqual(nxt["step"], step, tid)


if __name__ == "__main__":
    unittest.main()
