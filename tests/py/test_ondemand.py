"""Tables in memory on demand (one process, SQLite).

A server on a database with many unfinished human-only games holds only
the tables it needs: at a start the games whose bots or clocks go on
without a client, then what is asked for (a state, the lobby's page),
which leaves memory again after --idle-evict. The lobby lists every game
from the store, page by page, with the rows a table in memory gives.

The games are made by bench/gen_games.py (copies of one template game).
"""
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, first_legal  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "gen_games.py")
COPIES = 300


def metric(srv, status):
    st, text, _ = srv.get("/api/metrics")
    assert st == 200, text
    for line in text.splitlines():
        if line.startswith('carc_tables{status="%s"} ' % status):
            return int(float(line.rsplit(" ", 1)[1]))
    raise AssertionError("no carc_tables for %s" % status)


def gen(db, template, count, prefix):
    subprocess.run([sys.executable, GEN, "--db", db, "--template", template, "--count",
                    str(count), "--prefix", prefix], check=True, capture_output=True,
                   timeout=120)


class OnDemandTest(ServerCase):

    def make_site(self):
        """A database with COPIES human-only games being played (one move
        in), 20 open tables and one bot game: (playing ids, open ids, bot id)."""
        srv = self.start(extra=("--rate-tables", "0"))
        made = srv.create(players=2, name="alice", seed=5)
        tid, tok = made["id"], made["token"]
        srv.join(tid, "bob")
        st = srv.state(tid, tok)
        s, r, _ = srv.post("/api/tables/%s/move" % tid, first_legal(st["game"]["next"]),
                           token=tok)
        self.assertEqual(s, 200, r)
        opened = srv.create(players=3, name="carol")["id"]
        bot = srv.create(players=2, name="dave", seats=[{}, {"bot": "random"}])["id"]
        deadline = time.time() + 5
        while srv.get("/api/health")[1]["writes_queued"] and time.time() < deadline:
            time.sleep(0.02)
        srv.stop()
        db = srv.db
        gen(db, tid, COPIES, "a0")
        gen(db, opened, 20, "b0")
        playing = [tid] + ["a0%014x" % i for i in range(COPIES)]
        opens = [opened] + ["b0%014x" % i for i in range(20)]
        return db, playing, opens, bot

    def lobby(self, srv, status, limit):
        rows, before = [], None
        for _ in range(100):
            q = "/api/tables?status=%s&limit=%d" % (status, limit)
            st, r, _ = srv.get(q + ("&before=" + before if before else ""))
            self.assertEqual(st, 200, r)
            self.assertLessEqual(len(r["tables"]), limit)
            rows += r["tables"]
            if not r["more"]:
                return rows
            before = r["next_before"]
        self.fail("the lobby did not end in 100 pages")

    def test_many_unfinished_games_few_in_memory_all_listed(self):
        db, playing, opens, bot = self.make_site()
        srv = self.start(os.path.basename(db), extra=("--idle-evict", "1", "--open-expiry", "40"))
        # at the start: only the bot game (its bot moves on without a client)
        self.assertEqual(metric(srv, "playing"), 1)
        self.assertEqual(metric(srv, "open"), 0)
        self.assertEqual(srv.get("/api/health")[1]["tables"], 1)
        # the lobby lists every game from the store, newest first, no page twice
        rows = self.lobby(srv, "all", 50)
        ids = [t["id"] for t in rows]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(set(ids), set(playing) | set(opens) | {bot})
        keys = [(t["created_ms"], t["id"]) for t in rows]
        self.assertEqual(keys, sorted(keys, reverse=True))
        self.assertEqual([t["id"] for t in self.lobby(srv, "open", 7)],
                         [i for i in ids if i in set(opens)])
        self.assertEqual(len(self.lobby(srv, "playing", 50)), COPIES + 2)
        # each row is the table's own description
        for tid in (playing[0], playing[-1], opens[3], bot):
            st, info, _ = srv.get("/api/tables/" + tid)
            self.assertEqual(st, 200, info)
            row = next(t for t in rows if t["id"] == tid)
            row, info = dict(row), dict(info)
            for d in (row, info):
                d["clock"] = dict(d["clock"], server_ms=0)  # the time of the answer
            self.assertEqual(row, info, tid)
        self.assertEqual(next(t for t in rows if t["id"] == playing[5])["turn"], 1)
        # what was listed leaves memory again once idle; so does the bot
        # game, whose next move is its person's (no clock: nothing to time)
        deadline = time.time() + 20
        while time.time() < deadline and srv.get("/api/health")[1]["tables"] > 0:
            time.sleep(0.2)
        self.assertEqual(srv.get("/api/health")[1]["tables"], 0)
        # a state asked for loads the table, and it plays on
        st = srv.state(playing[7])
        self.assertEqual((st["table"]["status"], len(st["game"]["log"])), ("playing", 1))
        self.assertEqual(metric(srv, "playing"), 1)
        made = srv.join(opens[9], "erin")
        self.assertEqual(made["seat"], 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
