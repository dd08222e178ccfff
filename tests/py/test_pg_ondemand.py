"""Tables in memory on demand, several processes on one PostgreSQL database.

No process loads the unfinished games at its start, nor a table made on
another process when it hears of it: a table is loaded where it is asked
for. The lobby of every process lists every game from the store, page by
page. The games with bots or clocks that are in nobody's memory (their
process died) are found in the store by the owners' poll and played on.

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import ClusterCase, http_json  # noqa: E402
import carcserver  # noqa: E402
from carcserver import first_legal  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "gen_games.py")
COPIES = 300


class OnDemandPgTest(ClusterCase):

    def tables_held(self, port, status):
        return int(self.metric(port, 'carc_tables{status="%s"}' % status))

    def lobby(self, port, limit):
        rows, before = [], None
        for _ in range(100):
            q = "/api/tables?status=all&limit=%d" % limit
            st, r = http_json(port, "GET", q + ("&before=" + before if before else ""))
            self.assertEqual(st, 200, r)
            rows += r["tables"]
            if not r["more"]:
                return rows
            before = r["next_before"]
        self.fail("the lobby did not end in 100 pages")

    def test_many_games_few_in_memory_listed_everywhere(self):
        (a,) = self.start(1, extra=["--rate-tables", "0"])
        st, made = http_json(a.port, "POST", "/api/tables", {"players": 2, "name": "alice",
                                                             "seed": 3})
        self.assertEqual(st, 201, made)
        tid, tok = made["id"], made["token"]
        st, _ = http_json(a.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
        self.assertEqual(st, 200)
        st, state = http_json(a.port, "GET", "/api/tables/%s/state" % tid, token=tok)
        st, r = http_json(a.port, "POST", "/api/tables/%s/move" % tid,
                          first_legal(state["game"]["next"]), token=tok)
        self.assertEqual(st, 200, r)
        subprocess.run([sys.executable, GEN, "--db", self.url, "--template", tid, "--count",
                        str(COPIES), "--prefix", "c0"], check=True, capture_output=True,
                       timeout=120)
        b, c = self.start(2, extra=["--idle-evict", "1"])
        # made on b: the others hear of it and do not load it
        st, fresh = http_json(b.port, "POST", "/api/tables", {"players": 2, "name": "carl"})
        self.assertEqual(st, 201, fresh)
        time.sleep(0.5)
        for s in (b, c):
            self.assertLessEqual(self.tables_held(s.port, "playing"), 1, s.port)
        self.assertEqual(self.tables_held(c.port, "open"), 0)
        rows = self.lobby(c.port, 50)
        ids = [t["id"] for t in rows]
        want = {tid, fresh["id"]} | {"c0%014x" % i for i in range(COPIES)}
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(set(ids), want)
        self.assertEqual([t["id"] for t in self.lobby(b.port, 33)], ids)
        # a state asked for on c loads the table there, with its move
        st, s7 = http_json(c.port, "GET", "/api/tables/c0%014x/state" % 7)
        self.assertEqual((st, len(s7["game"]["log"])), (200, 1))

    def test_bot_table_of_a_killed_process_is_taken_over_by_the_poll(self):
        a, b, c = self.start(3, extra=["--bot-delay", "400"])
        # two bots, a move every 400 ms: about 12 s of play
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"seats": [{"bot": "random"}, {"bot": "random"}],
                              "tiles": {"U": 30}, "seed": 4})
        self.assertEqual(st, 201, made)
        tid = made["id"]
        time.sleep(1.5)
        # only a, which made it and plays it, has it in memory
        self.assertEqual(self.tables_held(a.port, "playing"), 1)
        for s in (b, c):
            self.assertEqual(self.tables_held(s.port, "playing"), 0, s.port)
        a.kill()
        # watched in the store (asking b or c for it would load it there,
        # and its bots would go on without the poll)
        def moves():
            return int(carcserver.psql(self.url, "SELECT count(*) FROM moves WHERE game_id='%s'"
                                       % tid).strip())
        turn0 = moves()
        deadline = time.time() + 20
        while time.time() < deadline and moves() < turn0 + 3:
            time.sleep(0.3)
        others = b.read_log() + c.read_log()
        self.assertGreaterEqual(moves(), turn0 + 3, others[-3000:])
        self.assertIn("table=%s event=bots_claimed" % tid, others)

if __name__ == "__main__":
    unittest.main(verbosity=2)
