"""Princess & Dragon with several `carc serve` processes on one PostgreSQL
database (issue 28; tests/py/test_princess.py has the rest): two people on
two processes play a Princess & Dragon table to the end over the
WebSocket, each deciding on its own process, so the dragon's squares
(decided by the seats in turn) go back and forth between the processes
within one turn. One process is restarted midway. Both processes end with
the same game, the dragon and the fairy where the log says, and the record
replays.

Run through tests/pg/run.sh (which starts PostgreSQL), or alone: it starts
its own PostgreSQL like tests/py/test_pg.py.
"""
import json
import os
import random
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from carcserver import CARC  # noqa: E402
from test_pg import ClusterCase, http_json  # noqa: E402
from test_princess import PILE, names  # noqa: E402
from test_steps import Table  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


class PgPrincess(ClusterCase):
    def test_two_people_on_two_processes_play_princess_and_dragon(self):
        exp = [e for e in names()["expansions"] if e.startswith("princess")]
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"name": "Ann", "expansions": exp, "seed": 2830, "tiles": PILE})
        self.assertEqual(st, 201, made)
        tid = made["id"]
        st, j = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "Bob"})
        self.assertEqual(st, 200, j)
        home = {0: a, 1: b}
        table = Table(self, lambda seat, tok: self.ws(home[seat].port, tid, tok), tid,
                      {0: made["token"], 1: j["token"]})
        rng = random.Random(30)
        dragon = []

        def seen(tb, m):
            if "dragon" in m["entry"]:
                dragon.append(m["entry"]["player"])

        table.play(rng, lambda tb: len(tb.log) >= 10, seen)
        a.stop()
        (a2,) = self.start(1)
        home[0] = a2
        before = table.log
        table.connect()
        self.assertEqual(table.log, before)
        table.play(rng, lambda tb: False, seen)
        self.assertEqual(set(dragon), {0, 1})  # both seats decided dragon squares
        states = []
        for srv in (a2, b):
            st, s = http_json(srv.port, "GET", "/api/tables/%s/state" % tid)
            self.assertEqual(st, 200, s)
            self.assertEqual(s["table"]["status"], "over")
            states.append(s["game"])
        self.assertEqual(states[0]["log"], states[1]["log"])
        self.assertEqual(states[0]["log"], table.log)
        self.assertEqual(states[0].get("dragon"), table.log[-1]["dragon_at"])
        st, rec = http_json(b.port, "GET", "/api/tables/%s/record" % tid)
        self.assertEqual(st, 200)
        path = os.path.join(self.dir, "pd.json")
        with open(path, "w") as f:
            json.dump(rec, f)
        p = subprocess.run([CARC, "replay", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
