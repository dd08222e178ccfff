"""Reads that cost what the asker owns (issue 26; docs/server.md, "Reads
that cost what the asker owns"): what a client can ask for that made the
server read more than the asker's own rows.

- The leaderboard is read by walking the rating index from the best: a
  deep offset walked that many rows per request (up to 1,000,000 was
  accepted). Now an offset past 10,000 is refused (400 malformed) and the
  page that reaches the deepest one says "more": false.
- Schema 16 gives every seat and clock a copy of its game's status (the
  lists read an account's seats of one status from one index, the owners'
  poll the games being played with a bot or a clock): a database of
  schema 15 is migrated with the copies filled in, so presence, "my
  games" and the records' download read the same as before, and the
  copies follow the games after the migration.

The plans themselves are checked by tests/test_store_plans.c (make test)
and tests/py/test_pg_plans.py (PostgreSQL).
Run: CARC=build/test/carc python3 tests/py/test_hostile_reads.py
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import PG_ADMIN, ServerCase, connect_db, first_legal, pg_url_for, psql, schema_version  # noqa: E402,E501
from test_friends import OPEN, Person, code  # noqa: E402

# What each schema took away again, newest first: a database as schema 15
# left it is the current one with these run down to 16. A later migration
# adds its own step here (a step of a version the server does not have yet
# is skipped).
DOWN_SQLITE = {
    19: """
ALTER TABLE moves DROP COLUMN turn;
ALTER TABLE moves DROP COLUMN kind;
ALTER TABLE moves RENAME COLUMN step TO turn;
ALTER TABLE clocks RENAME COLUMN step TO turn;
""",
    18: """
ALTER TABLE accounts DROP COLUMN epoch;
DELETE FROM server_keys WHERE name = 'device';
""",
    17: """
DROP INDEX accounts_board;
ALTER TABLE accounts DROP COLUMN est_games;
ALTER TABLE accounts DROP COLUMN opponents;
ALTER TABLE accounts DROP COLUMN established;
CREATE INDEX accounts_by_rating ON accounts(rating DESC, name) WHERE games > 0;
DROP TABLE rating_opponents;
DROP TABLE rating_bots;
DROP INDEX match_waiting;
ALTER TABLE match_queue DROP COLUMN addr;
ALTER TABLE match_queue DROP COLUMN recent;
ALTER TABLE match_queue DROP COLUMN note;
CREATE INDEX match_waiting ON match_queue(pool, joined_ms) WHERE table_id = '';
DROP TABLE match_seats;
DROP TABLE match_holds;
DROP TABLE match_voids;
""",
    16: """
DROP TRIGGER seats_game_status_new;
DROP TRIGGER clocks_game_status_new;
DROP TRIGGER games_status_to_seats;
DROP INDEX seats_by_account_status;
DROP INDEX seats_bots_playing;
DROP INDEX clocks_playing;
ALTER TABLE seats DROP COLUMN game_status;
ALTER TABLE clocks DROP COLUMN game_status;
CREATE INDEX seats_by_account ON seats(account) WHERE account <> 0;
CREATE INDEX games_by_status ON games(status, created_ms);
""",
}
DOWN_PG = {
    19: DOWN_SQLITE[19],
    18: DOWN_SQLITE[18],
    17: DOWN_SQLITE[17],
    16: """
DROP TRIGGER seats_game_status_new ON seats;
DROP TRIGGER clocks_game_status_new ON clocks;
DROP TRIGGER games_status_to_seats ON games;
DROP FUNCTION carc_game_status_new();
DROP FUNCTION carc_games_status_to_seats();
DROP INDEX seats_by_account_status;
DROP INDEX seats_bots_playing;
DROP INDEX clocks_playing;
ALTER TABLE seats DROP COLUMN game_status;
ALTER TABLE clocks DROP COLUMN game_status;
ALTER TABLE seats ALTER COLUMN account RESET (n_distinct);
CREATE INDEX seats_by_account ON seats(account) WHERE account <> 0;
CREATE INDEX games_by_status ON games(status, created_ms);
""",
}


def down_to_15(steps):
    """The SQL that takes the current schema back to 15, newest step first."""
    now = schema_version()
    missing = [v for v in range(16, now + 1) if v not in steps]
    if missing:
        raise AssertionError("no down step for schema %s: add it to DOWN_SQLITE/DOWN_PG" % missing)
    return "".join(steps[v] for v in range(now, 15, -1))


class LeaderboardDepth(ServerCase):
    def test_a_deep_offset_is_refused(self):
        srv = self.start()
        for q in ("offset=10001", "offset=1000000", "offset=10001&limit=1"):
            st, r, _ = srv.get("/api/leaderboard?" + q)
            self.assertEqual((st, code(r)), (400, "malformed"), (q, r))
            self.assertIn("offset must be a number from 0 to 10000", r["error"]["message"])
        st, r, _ = srv.get("/api/leaderboard?offset=10000&limit=128")
        self.assertEqual(st, 200, r)
        self.assertEqual((r["players"], r["more"]), ([], False))


class SchemaSixteen(ServerCase):
    def playing(self, srv, a, b):
        """A table of a and b, being played: the table, b's join."""
        t = a.create(seats=[{}, {}])
        j = b.join(t["id"])
        return t, j

    def finished(self, srv, a, b):
        """A table of a and b that b resigns after a's first move."""
        t, j = self.playing(srv, a, b)
        nxt = srv.state(t["id"])["game"]["next"]
        st, r, _ = srv.post("/api/tables/%s/move" % t["id"], dict(first_legal(nxt),
                            turn=nxt["turn"]), token=t["token"])
        self.assertEqual(st, 200, r)
        st, r, _ = b.call("POST", "/api/tables/%s/resign" % t["id"], {}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.wait_over(srv, t["id"])
        return t

    def friend_of(self, person, playing, timeout=10):
        """person's one friend, once shown playing `playing` (a game id, or
        None: not playing); the status is written by the storage thread
        after the answer that changed it."""
        end = time.time() + timeout
        while True:
            (f,) = person.friends()["friends"]
            if f["game"] == playing or time.time() > end:
                return f
            time.sleep(0.05)

    def downgrade(self, srv):
        if PG_ADMIN:
            psql(pg_url_for(srv.db), down_to_15(DOWN_PG) + "UPDATE carc_schema SET version = 15;\n")
        else:
            con = connect_db(srv.db)
            con.executescript(down_to_15(DOWN_SQLITE) + "PRAGMA user_version = 15;\n")
            con.commit()
            con.close()

    def copies(self, srv, table="seats"):
        con = connect_db(srv.db)
        rows = con.execute("SELECT DISTINCT game_id, game_status FROM " + table).fetchall()
        con.close()
        return sorted(tuple(r) for r in rows)

    def test_a_schema_15_database_is_migrated_with_the_copies_filled_in(self):
        srv = self.start(extra=OPEN)
        a, b = Person(srv, "Alice"), Person(srv, "Bob")
        a.do("request", name="Bob")
        b.do("accept", id=a.id)
        over = self.finished(srv, a, b)["id"]
        live, j = self.playing(srv, a, b)
        live = live["id"]
        self.assertEqual(self.friend_of(b, live)["game"], live)
        srv.stop()
        self.downgrade(srv)
        srv = self.start(extra=OPEN)
        a.srv = b.srv = srv
        con = connect_db(srv.db)
        version = con.execute("SELECT version FROM carc_schema" if PG_ADMIN
                              else "PRAGMA user_version").fetchall()[0][0]
        con.close()
        self.assertEqual(int(version), schema_version())
        self.assertEqual(self.copies(srv), sorted([(over, "over"), (live, "playing")]))
        # the resignation left the finished game a clock row (its "ended")
        self.assertEqual(self.copies(srv, "clocks"), [(over, "over")])
        # the lists read the copies: presence, my games, the records
        f = self.friend_of(b, live)
        self.assertEqual((f["playing"], f["game"]), (True, live))
        st, r, _ = a.call("GET", "/api/me/games")
        self.assertEqual(st, 200, r)
        self.assertEqual(sorted((g["id"], g["status"]) for g in r["games"]),
                         sorted([(over, "over"), (live, "playing")]))
        st, r, _ = a.call("GET", "/api/me/records")
        self.assertEqual(st, 200, r)
        self.assertEqual([x["table"] for x in r["records"]], [over])
        # after the migration the copies follow the games: Bob resigns the live one
        st, r, _ = b.call("POST", "/api/tables/%s/resign" % live, {}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.wait_over(srv, live)
        f = self.friend_of(b, None)
        self.assertEqual((f["playing"], f["game"]), (False, None))
        self.assertEqual(self.copies(srv), sorted([(over, "over"), (live, "over")]))
        self.assertEqual(self.copies(srv, "clocks"), sorted([(over, "over"), (live, "over")]))
        st, r, _ = a.call("GET", "/api/me/records")
        self.assertEqual(sorted(x["table"] for x in r["records"]), sorted([over, live]))


if __name__ == "__main__":
    unittest.main()
