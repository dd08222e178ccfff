"""Storage faults, honest health and tokens stored as hashes (issue 11,
defect 10 and the storage half of 11), against the real server on loopback.

Faults are made for real where the machine lets us: the database file
deleted or replaced while the server runs, and `chattr +i` (immutable: it
stops writes as root too, also through file descriptors already open).
Where chattr does not work (no CAP_LINUX_IMMUTABLE, a file system without
attributes) the tests use the fault injection that only test builds
(MODE=test, sanitizers) honour: CARC_TEST_STORE_FAULT names a file whose
content ("read_only", "io", "full") makes every write fail that way while
the file exists.

Run: CARC=build/test/carc python3 tests/py/test_storage.py
"""
import hashlib
import json
import re
import os
import tempfile
import shutil
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, first_legal, schema_version  # noqa: E402

UNAVAILABLE = "the game database is unavailable"
SQL_WORDS = ("sqlite", "INSERT", "UPDATE", "SELECT", "BEGIN", "COMMIT", "WHERE")

# The seats table of schema 2 (schema 1 plus colours), before tokens were
# stored as hashes; the other tables did not change since schema 1.
SCHEMA_2 = """
CREATE TABLE games (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('open','playing','over','view')),
  players INTEGER NOT NULL, farmers INTEGER NOT NULL, farm_scoring TEXT NOT NULL,
  small_city INTEGER NOT NULL, expansions TEXT NOT NULL DEFAULT '[]',
  seed INTEGER NOT NULL, options TEXT NOT NULL DEFAULT '{}', record TEXT,
  created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL);
CREATE INDEX games_by_status ON games(status, created_ms);
CREATE TABLE seats (
  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  seat INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('open','human','bot')),
  name TEXT NOT NULL DEFAULT '', level TEXT NOT NULL DEFAULT '',
  bot_spec TEXT NOT NULL DEFAULT '', token TEXT NOT NULL DEFAULT '',
  colour TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (game_id, seat)) WITHOUT ROWID;
CREATE TABLE moves (
  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn INTEGER NOT NULL, player INTEGER NOT NULL, move INTEGER NOT NULL,
  tile TEXT NOT NULL, entry TEXT NOT NULL, at_ms INTEGER NOT NULL,
  PRIMARY KEY (game_id, turn)) WITHOUT ROWID;
CREATE TABLE results (
  game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  scores TEXT NOT NULL, by_kind TEXT NOT NULL, winners TEXT NOT NULL,
  finished_ms INTEGER NOT NULL);
CREATE INDEX results_by_finish ON results(finished_ms, game_id);
"""
COLUMNS = {
    "games": "id, status, players, farmers, farm_scoring, small_city, expansions, seed, "
             "options, record, created_ms, updated_ms",
    "seats": "game_id, seat, kind, name, level, bot_spec, token, colour",
    "moves": "game_id, turn, player, move, tile, entry, at_ms",
    "results": "game_id, scores, by_kind, winners, finished_ms",
}


def sha256_hex(text):
    return hashlib.sha256(text.encode()).hexdigest()


def chattr(path, flag):
    try:
        p = subprocess.run(["chattr", flag, path], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


class StorageCase(ServerCase):
    def setUp(self):
        super().setUp()
        self.immutable = []
        self.fault_file = os.path.join(self.dir, "fault")

    def tearDown(self):
        for p in self.immutable:
            chattr(p, "-i")
        super().tearDown()

    # --- helpers ------------------------------------------------------------------

    def start_faultable(self, db="carc.sqlite", extra=()):
        """A server whose writes the test can make fail (see the top)."""
        os.environ["CARC_TEST_STORE_FAULT"] = self.fault_file
        try:
            return self.start(db=db, extra=extra)
        finally:
            del os.environ["CARC_TEST_STORE_FAULT"]

    def can_chattr(self):
        probe = os.path.join(self.dir, "chattr-probe")
        with open(probe, "w") as f:
            f.write("x")
        ok = chattr(probe, "+i")
        if ok:
            try:
                with open(probe, "a") as f:
                    f.write("y")
                ok = False  # immutable, yet writable: it does not bite
            except OSError:
                pass
            chattr(probe, "-i")
        os.remove(probe)
        return ok

    def make_read_only(self, srv):
        """Makes the database refuse writes: chattr +i on the file and its
        WAL when that works, else the fault injection. Returns how."""
        if self.can_chattr():
            for p in (srv.db, srv.db + "-wal"):
                if os.path.exists(p) and chattr(p, "+i"):
                    self.immutable.append(p)
            return "chattr"
        with open(self.fault_file, "w") as f:
            f.write("read_only")
        return "injected"

    def make_writable(self):
        for p in self.immutable:
            chattr(p, "-i")
        self.immutable = []
        if os.path.exists(self.fault_file):
            os.remove(self.fault_file)

    def two_humans(self, srv):
        c = srv.create(players=2, name="ann")
        j = srv.join(c["id"], "ben")
        return c["id"], [c["token"], j["token"]]

    def move(self, srv, tid, tokens):
        """One legal move for the seat to move: (status, reply, turn before)."""
        g = srv.state(tid)["game"]
        nxt = g["next"]
        mv = first_legal(nxt)
        mv["turn"] = len(g["log"])
        st, r, _ = srv.post("/api/tables/%s/move" % tid, mv, token=tokens[nxt["to_move"]])
        return st, r, len(g["log"])

    def turn(self, srv, tid):
        return len(srv.state(tid)["game"]["log"])

    def health(self, srv):
        st, h, _ = srv.get("/api/health")
        self.assertIsInstance(h, dict, h)
        return st, h

    def wait_health(self, srv, ok, timeout=8):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, h = self.health(srv)
            if h["ok"] == ok:
                return st, h
            time.sleep(0.05)
        self.fail("health did not become ok=%s in %d s: %s" % (ok, timeout, h))

    def assert_unavailable(self, st, r):
        self.assertEqual(st, 503, r)
        self.assertEqual(r["error"]["code"], "storage", r)
        msg = r["error"]["message"]
        self.assertTrue(msg.startswith(UNAVAILABLE), msg)
        for w in SQL_WORDS:
            self.assertNotIn(w, msg, "SQL in a client's message: %r" % msg)

    def assert_writes_refused(self, srv, tid, tokens):
        """A move, a join and a new table are all refused, and the refused
        move is not applied."""
        before = self.turn(srv, tid)
        st, r, _ = self.move(srv, tid, tokens)
        self.assert_unavailable(st, r)
        self.assertEqual(self.turn(srv, tid), before)
        st, r, _ = srv.post("/api/tables", {"players": 2, "name": "x"})
        self.assert_unavailable(st, r)
        opened = [t["id"] for t in srv.get("/api/tables")[1]["tables"]]
        st, r, _ = srv.post("/api/tables", {"players": 2})
        self.assert_unavailable(st, r)
        self.assertEqual([t["id"] for t in srv.get("/api/tables")[1]["tables"]], opened)
        return before

    # --- defect 10: the file vanishes or is replaced ---------------------------------

    def test_a_deleted_database_refuses_writes_and_health_says_so(self):
        srv = self.start()
        tid, tokens = self.two_humans(srv)
        waiting = srv.create(players=2, name="w")["id"]
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        st, h = self.health(srv)
        self.assertEqual((st, h["ok"], h["storage"]["ok"]), (200, True, True), h)

        os.remove(srv.db)
        self.assert_writes_refused(srv, tid, tokens)
        st, r, _ = srv.post("/api/tables/%s/join" % waiting, {"name": "late"})
        self.assert_unavailable(st, r)
        self.assertEqual(srv.get("/api/tables/" + waiting)[1]["seats"][1]["kind"], "open")
        # over the WebSocket too, and nobody is told of a move
        g = srv.state(tid)["game"]
        w = self.ws(srv, tid, tokens[g["next"]["to_move"]])
        w.recv_type("state")
        w.send(dict(first_legal(g["next"]), type="move", turn=len(g["log"]), ref=7))
        e = w.recv_type(("error", "move"))
        self.assertEqual((e["type"], e["code"], e["ref"]), ("error", "storage", 7), e)
        self.assertTrue(e["message"].startswith(UNAVAILABLE), e)
        self.assertEqual(self.turn(srv, tid), len(g["log"]))

        st, h = self.health(srv)
        self.assertEqual(st, 503, h)
        self.assertFalse(h["ok"])
        self.assertFalse(h["storage"]["ok"])
        self.assertFalse(h["storage"]["read_only"])
        self.assertIn("deleted or replaced", h["storage"]["error"])
        for w_ in SQL_WORDS:
            self.assertNotIn(w_, json.dumps(h["storage"]))
        # it stays refused: the file at the path is not the one written to
        self.assertEqual(self.move(srv, tid, tokens)[0], 503)
        srv.stop()
        # the log has the details a client does not get
        self.assertIn(srv.db, srv.read_log())

    def test_a_replaced_database_refuses_writes(self):
        srv = self.start()
        tid, tokens = self.two_humans(srv)
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        other = os.path.join(self.dir, "other.sqlite")
        sqlite3.connect(other).close()
        os.replace(other, srv.db)
        self.assert_writes_refused(srv, tid, tokens)
        st, h = self.health(srv)
        self.assertEqual((st, h["ok"], h["storage"]["ok"]), (503, False, False), h)

    def test_a_deleted_wal_refuses_writes(self):
        # the moves since the last checkpoint live only in the WAL: without
        # it on disk they would be lost by a crash
        srv = self.start()
        tid, tokens = self.two_humans(srv)
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        os.remove(srv.db + "-wal")
        self.assert_writes_refused(srv, tid, tokens)

    # --- defect 10: read-only -----------------------------------------------------

    def test_a_read_only_database_is_reported_and_recovers(self):
        srv = self.start_faultable()
        tid, tokens = self.two_humans(srv)
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        how = self.make_read_only(srv)
        st, h = self.health(srv)
        if how == "injected" and st == 200:
            self.skipTest("no chattr here and this build has no fault injection")
        self.assertEqual(st, 503, h)
        self.assertEqual((h["ok"], h["storage"]["ok"], h["storage"]["read_only"]),
                         (False, False, True), h)
        self.assertIn("read-only", h["storage"]["error"])
        turn = self.assert_writes_refused(srv, tid, tokens)
        st, r, _ = self.move(srv, tid, tokens)
        self.assertIn("read-only", r["error"]["message"])

        self.make_writable()
        st, h = self.wait_health(srv, True)
        self.assertEqual(st, 200, h)
        self.assertEqual((h["storage"]["ok"], h["storage"]["read_only"]), (True, False), h)
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        self.assertEqual(self.turn(srv, tid), turn + 1)
        srv.stop()
        self.assertIn("read", srv.read_log())  # the refusals were logged
        srv2 = self.start()
        self.assertEqual(self.turn(srv2, tid), turn + 1)

    def test_a_server_started_on_a_read_only_database(self):
        srv = self.start()
        tid, tokens = self.two_humans(srv)
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        srv.stop()
        if not self.can_chattr():
            self.skipTest("chattr +i does not bite here")
        for p in (srv.db, srv.db + "-wal", srv.db + "-shm"):
            if os.path.exists(p) and chattr(p, "+i"):
                self.immutable.append(p)
        srv2 = self.start()
        st, h = self.health(srv2)
        self.assertEqual(st, 503, h)
        self.assertEqual((h["storage"]["ok"], h["storage"]["read_only"]), (False, True), h)
        self.assertEqual(self.turn(srv2, tid), 1)  # it reads
        self.assert_writes_refused(srv2, tid, tokens)
        self.make_writable()
        self.wait_health(srv2, True)
        self.assertEqual(self.move(srv2, tid, tokens)[0], 200)
        srv2.stop()
        srv3 = self.start()
        self.assertEqual(self.turn(srv3, tid), 2)

    # --- the writer does not drop a failed write ------------------------------------

    def test_a_failed_move_write_is_refused_and_not_applied(self):
        srv = self.start_faultable()
        tid, tokens = self.two_humans(srv)
        spectator = self.ws(srv, tid)
        spectator.recv_type("state")
        acked = 0
        for _ in range(3):
            self.assertEqual(self.move(srv, tid, tokens)[0], 200)
            acked += 1
        for kind, words in (("io", "disk error"), ("full", "full")):
            with open(self.fault_file, "w") as f:
                f.write(kind)
            st, r, turn = self.move(srv, tid, tokens)
            if st == 200:
                self.skipTest("this build has no fault injection")
            self.assert_unavailable(st, r)
            self.assertIn(words, r["error"]["message"])
            self.assertEqual(self.turn(srv, tid), turn)
            st, h = self.health(srv)
            self.assertEqual((st, h["storage"]["ok"]), (503, False), h)
            os.remove(self.fault_file)
            self.wait_health(srv, True)
            # the same turn is played again, and counts once
            st, r, again = self.move(srv, tid, tokens)
            self.assertEqual((st, again), (200, turn), r)
            acked += 1
            self.assertEqual(self.turn(srv, tid), turn + 1)
        # the spectator saw each acknowledged move once, none of the refused
        seen = []
        deadline = time.time() + 5
        while len(seen) < acked and time.time() < deadline:
            m = spectator.recv_type("move", timeout=max(0.01, deadline - time.time()))
            seen.append(m["entry"]["turn"])
        self.assertEqual(seen, list(range(acked)))
        srv.kill()
        srv2 = self.start()
        self.assertEqual(self.turn(srv2, tid), acked)

    def test_a_bot_waits_for_the_storage_and_then_moves(self):
        srv = self.start_faultable()
        c = srv.create(seats=[{}, {"bot": "random"}], name="me", bot_delay_ms=300)
        tid, tokens = c["id"], [c["token"]]
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        with open(self.fault_file, "w") as f:
            f.write("io")
        st, h = self.health(srv)
        if st == 200:
            self.skipTest("this build has no fault injection")
        time.sleep(2)
        # the bot's move was refused, and it did not try again and again
        self.assertEqual(self.turn(srv, tid), 1)
        refused = srv.read_log().count("table=%s store:" % tid)
        self.assertEqual(refused, 1)
        os.remove(self.fault_file)
        deadline = time.time() + 8
        while self.turn(srv, tid) < 2 and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.turn(srv, tid), 2)

    def test_a_failed_status_write_does_not_strand_the_table(self):
        # the last join is stored, the status change after it fails: the
        # table must still start after a restart
        srv = self.start()
        c = srv.create(players=2, name="ann")
        tid = c["id"]
        st, r, _ = srv.post("/api/tables/%s/join" % tid, {"name": "ben"})
        self.assertEqual(st, 200, r)
        srv.kill()
        con = sqlite3.connect(srv.db)
        con.execute("update games set status='open' where id=?", (tid,))
        con.commit()
        con.close()
        srv2 = self.start()
        self.assertEqual(srv2.get("/api/tables/" + tid)[1]["status"], "playing")
        tokens = [c["token"], r["token"]]
        self.assertEqual(self.move(srv2, tid, tokens)[0], 200)

    # --- tokens stored as hashes ----------------------------------------------------

    def db_bytes(self, db):
        out = b""
        for p in (db, db + "-wal"):
            if os.path.exists(p):
                with open(p, "rb") as f:
                    out += f.read()
        return out

    def test_tokens_are_stored_as_hashes(self):
        srv = self.start()
        tid, tokens = self.two_humans(srv)
        bots = srv.create(seats=[{}, {"bot": "random"}], name="solo")
        tokens.append(bots["token"])
        for t in tokens:
            self.assertRegex(t, "^[0-9a-f]{32}$")
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        con = sqlite3.connect("file:%s?mode=ro" % srv.db, uri=True)
        stored = dict(((g, s), t) for g, s, t in con.execute(
            "select game_id, seat, token from seats where kind='human'"))
        con.close()
        self.assertEqual(stored, {(tid, 0): sha256_hex(tokens[0]), (tid, 1): sha256_hex(tokens[1]),
                                  (bots["id"], 0): sha256_hex(tokens[2])})
        raw = self.db_bytes(srv.db)
        for t in tokens:
            self.assertNotIn(t.encode(), raw)
        # no JSON view and no record holds a token (or its hash)
        views = [srv.get("/api/tables?status=all")[1], srv.get("/api/tables/" + tid)[1],
                 srv.state(tid), srv.state(tid, token=tokens[0]),
                 srv.get("/api/tables/%s/record" % tid)[1], srv.get("/api/health")[1]]
        w = self.ws(srv, tid, tokens[1])
        views.append(w.recv_type("state"))
        text = json.dumps(views)
        for t in tokens:
            self.assertNotIn(t, text)
            self.assertNotIn(sha256_hex(t), text)
        # the tokens work, a wrong one (even the stored hash) does not
        self.assertEqual(srv.state(tid, token=tokens[1])["you"], {"seat": 1})
        self.assertIsNone(srv.state(tid, token=sha256_hex(tokens[1]))["you"])
        srv.kill()
        # ... and after a restart
        srv2 = self.start()
        self.assertEqual(srv2.state(tid, token=tokens[0])["you"], {"seat": 0})
        self.assertEqual(srv2.state(tid, token=tokens[1])["you"], {"seat": 1})
        self.assertEqual(self.move(srv2, tid, tokens)[0], 200)
        self.assertEqual(srv2.state(bots["id"], token=tokens[2])["you"], {"seat": 0})

    def test_a_database_of_schema_2_is_migrated_and_keeps_its_tokens(self):
        srv = self.start(db="new.sqlite")
        tid, tokens = self.two_humans(srv)
        self.assertEqual(self.move(srv, tid, tokens)[0], 200)
        opened = srv.create(players=3, name="old")
        srv.stop()
        plain = {(tid, 0): tokens[0], (tid, 1): tokens[1], (opened["id"], 0): opened["token"]}
        # the same games as schema 2 kept them: tokens in plain text
        old = os.path.join(self.dir, "old.sqlite")
        src = sqlite3.connect(os.path.join(self.dir, "new.sqlite"))
        con = sqlite3.connect(old)
        con.executescript(SCHEMA_2)
        for table, cols in COLUMNS.items():
            rows = src.execute("select %s from %s" % (cols, table)).fetchall()
            if table == "seats":
                rows = [r[:6] + (plain.get((r[0], r[1]), ""),) + r[7:] for r in rows]
            marks = ",".join("?" * len(cols.split(",")))
            con.executemany("insert into %s (%s) values (%s)" % (table, cols, marks), rows)
        con.execute("pragma user_version=2")
        con.commit()
        con.close()
        src.close()
        self.assertIn(tokens[0].encode(), self.db_bytes(old))

        srv2 = self.start(db="old.sqlite")
        con = sqlite3.connect("file:%s?mode=ro" % old, uri=True)
        self.assertEqual(con.execute("pragma user_version").fetchone()[0], schema_version())
        got = dict(((g, s), t) for g, s, t in con.execute(
            "select game_id, seat, token from seats where kind='human'"))
        con.close()
        self.assertEqual(got, dict((k, sha256_hex(v)) for k, v in plain.items()))
        # the players keep their tokens
        self.assertEqual(srv2.state(tid, token=tokens[1])["you"], {"seat": 1})
        self.assertEqual(self.move(srv2, tid, tokens)[0], 200)
        self.assertEqual(srv2.state(opened["id"], token=opened["token"])["you"], {"seat": 0})
        j = srv2.join(opened["id"], "new")
        srv2.stop()
        # the plain tokens are gone from the file (VACUUM after the migration)
        raw = self.db_bytes(old)
        for t in plain.values():
            self.assertNotIn(t.encode(), raw)
        srv3 = self.start(db="old.sqlite")
        self.assertEqual(srv3.state(opened["id"], token=j["token"])["you"], {"seat": 1})
        self.assertEqual(srv3.state(tid, token=tokens[0])["you"], {"seat": 0})


if __name__ == "__main__":
    unittest.main()
