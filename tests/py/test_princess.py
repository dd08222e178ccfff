"""Princess & Dragon through the whole server (issue 28): the expansion is a
table option like the others, and its steps ("action": the fairy, the magic
portal, the princess; "dragon": one square of the dragon) travel through
storage, the WebSocket, undo, a restart, records and the analysis with no
code outside the engine naming them: the test decides each step from the
engine's legal options, whatever its kind.

- A person against a bot on a short pile rich in volcano, dragon, portal
  and princess tiles, played to the end: every step is announced and
  stored; the dragon's squares are decided by the seats in turn; the
  preview of a dragon square says what would go home; the log says where
  the dragon and the fairy stand after each step; a restart midway gives
  the same game back; the record downloaded replays with `carc replay`.
- Hostile decisions of the new steps: wrong types, unknown keys, squares
  off the board, an action of the wrong kind, a huge nested object: each
  refused with its code, nothing changed.

On PostgreSQL too (CARC_TEST_DB, tests/pg/run.sh).
Run: CARC=build/test/carc python3 tests/py/test_princess.py
"""
import json
import os
import random
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, ServerCase, first_legal  # noqa: E402
from test_steps import Table, decide  # noqa: E402


def names():
    out = subprocess.run([CARC, "names", "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


# a short pile with every kind of Princess & Dragon tile (the engine's names)
PILE = {"pd1": 1, "pd5": 1, "pd7": 1, "pd11": 2, "pd12": 1, "pd14": 1, "pd20": 1, "pd22": 1,
        "pd24": 1, "pd26": 1, "E": 2, "U": 3, "N": 1, "K": 1}


class PrincessCase(ServerCase):
    def setUp(self):
        super().setUp()
        v = names()
        self.exp = [e for e in v["expansions"] if e.startswith("princess")]
        self.assertEqual(len(self.exp), 1, v["expansions"])
        self.steps = v["steps"]

    def table(self, srv, **kw):
        return srv.create(name="Ann", seats=[{}, {"bot": "random"}], expansions=self.exp,
                          tiles=PILE, **kw)


class PersonAndBot(PrincessCase):
    def test_a_game_against_a_bot_end_to_end(self):
        rng = random.Random(28)
        srv = self.start()
        t = self.table(srv, seed=2828, bot_delay_ms=0)
        servers = [srv]
        table = Table(self, lambda seat, tok: self.ws(servers[0], t["id"], tok), t["id"],
                      {0: t["token"]})
        kinds = {}
        previews = []

        def seen(tb, m):
            e = m["entry"]
            kind = next((k for k in self.steps[1:] if k in e), self.steps[0])
            kinds.setdefault(kind, set()).add(e["player"])
            # where the neutral figures stand after every step
            self.assertIn("dragon_at", e)
            self.assertIn("fairy_at", e)
            if kind == "dragon":
                self.assertEqual(e["dragon_at"], e["dragon"])
            nxt = m["next"]
            if not nxt["over"] and nxt["step_kind"] == "dragon" and nxt["to_move"] == 0:
                o = dict(nxt["legal"]["options"][0])
                o.pop("text")
                tb.reader.send({"type": "preview", "move": o, "step": nxt["step"], "ref": 1})
                previews.append(tb.reader.recv_type(("preview",)))

        table.play(rng, lambda tb: len(tb.log) >= 14 and tb.nxt["to_move"] == 0, seen)
        before = srv.state(t["id"])["game"]
        srv.stop()
        srv = servers[0] = self.start()
        after = table.connect()["game"]
        self.assertEqual(after["log"], before["log"])
        self.assertEqual(after["next"], before["next"])
        for k in ("dragon", "fairy"):
            self.assertEqual(after.get(k), before.get(k))
        table.play(rng, lambda tb: False, seen)

        st = srv.state(t["id"])
        self.assertEqual(st["table"]["status"], "over")
        self.assertIn("dragon", kinds, kinds)  # the dragon moved
        self.assertIn("action", kinds, kinds)
        self.assertTrue(previews)
        for p in previews:
            self.assertIn("eaten", p["preview"], p)
        # by_kind has the fairy's points (maybe 0)
        self.assertIn("fairy", st["game"]["by_kind"][0])
        code, rec = srv.get("/api/tables/%s/record" % t["id"])[:2]
        self.assertEqual(code, 200)
        self.assertEqual(rec["rules"]["expansions"], self.exp)
        path = os.path.join(self.dir, "pd.json")
        with open(path, "w") as f:
            json.dump(rec, f)
        p = subprocess.run([CARC, "replay", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # the analysis goes through every step, the new kinds included
        code, a = srv.post("/api/tables/%s/analysis" % t["id"], {})[:2]
        self.assertIn(code, (200, 202), a)
        end = time.time() + 120
        while a.get("status") != "done" and time.time() < end:
            time.sleep(0.2)
            code, a = srv.get("/api/tables/%s/analysis" % t["id"])[:2]
        self.assertEqual(a.get("status"), "done", a)
        log = st["game"]["log"]
        self.assertEqual([x["step"] for x in a["turns"]], list(range(len(log))))
        played = [x["played"] for x in a["turns"]]
        self.assertTrue(any("dragon" in p for p in played), played)
        self.assertTrue(any("action" in p for p in played), played)


class Hostile(PrincessCase):
    def test_bad_decisions_of_the_new_steps_are_refused(self):
        srv = self.start()
        # two people: nothing moves unless they do
        t = srv.create(name="Ann", expansions=self.exp, tiles=PILE, seed=2829)
        j = srv.join(t["id"], "Bob")
        tok = {0: t["token"], 1: j["token"]}
        path = "/api/tables/%s/move" % t["id"]
        rng = random.Random(5)
        seen = set()
        for _ in range(200):
            nxt = srv.state(t["id"])["game"]["next"]
            if nxt["over"]:
                break
            kind, who = nxt["step_kind"], nxt["to_move"]
            where = dict(turn=nxt["turn"], step=nxt["step"])
            if kind in ("action", "dragon") and kind not in seen:
                seen.add(kind)
                n = len(srv.state(t["id"])["game"]["log"])
                bad = [({kind: 7}, 400), ({kind: "everything"}, 400 if kind == "action" else 400),
                       ({kind: {"x": "1", "y": 0}}, 400), ({kind: None}, 400),
                       ({kind: {"x": 200, "y": 200}}, 422 if kind == "dragon" else 400),
                       ({kind: {"fairy": {"x": 0, "y": 0, "at": "Q9"}}}, 400),
                       ({kind: {"portal": {"x": 0, "y": 0, "at": "N1", "kind": "builder"}}}, 400 if kind == "dragon" else 422),
                       ({kind: {"a": {"b": {"c": {"d": ["x" * 1000] * 10}}}}}, 400),
                       ({kind: {"fairy": {}, "princess": {}}}, 400)]
                for body, want in bad:
                    st, r, _ = srv.post(path, dict(body, **where), token=tok[who])
                    self.assertIn(st, (400, 413, 422), (body, r))
                    self.assertEqual(st, want, (kind, body, r))
                # a decision of the other new kind is not this step's
                other = "dragon" if kind == "action" else "action"
                st, r, _ = srv.post(path, dict({other: "none"}, **where), token=tok[who])
                self.assertEqual(st, 400, r)
                self.assertEqual(len(srv.state(t["id"])["game"]["log"]), n)
                # the other seat may not decide it
                o = decide(nxt, rng)
                st, r, _ = srv.post(path, dict(o, **where), token=tok[1 - who])
                self.assertEqual((st, r["error"]["code"]), (409, "not_your_turn"))
            mv = decide(nxt, rng) if "options" in nxt["legal"] else first_legal(nxt, rng)
            st, r, _ = srv.post(path, dict(mv, **where), token=tok[who])
            self.assertEqual(st, 200, (mv, r))
        self.assertEqual(seen, {"action", "dragon"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
