"""The facts a log entry's scoring events carry for the browser's log (issue
13): a city's shields and cathedral, a road's inn, a farm's completed cities.
Checked against the points themselves: with them, every event's points follow
from the rules (docs/protocol.md, "Log entry")."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from carcserver import ServerCase  # noqa: E402


class LogFacts(ServerCase):
    def check_game(self, srv, tid):
        self.wait_over(srv, tid, timeout=60)
        log = srv.state(tid)["game"]["log"]
        seen = set()
        for entry in log:
            for ev in entry["events"]:
                if "returned" in ev:
                    continue  # a figure going home (issue 27): no points
                best = max(ev["points"])
                if best <= 0 or "x" not in ev:
                    continue
                kind, final, tiles = ev["kind"], ev["final"], ev["tiles"]
                seen.add(kind)
                if kind == "city":
                    self.assertIsInstance(ev["shields"], int)
                    base = tiles + ev["shields"]
                    want = base if final else base * (3 if ev.get("cathedral") else 2)
                    self.assertEqual(best, want, ev)
                elif kind == "road":
                    want = tiles * (2 if ev.get("inn") and not final else 1)
                    self.assertEqual(best, want, ev)
                elif kind == "farm":
                    self.assertEqual(best, 3 * ev["cities"], ev)
                else:
                    self.assertNotIn("shields", ev)
        return seen

    def test_facts_explain_the_points(self):
        srv = self.start()
        seen = set()
        for seed in (1, 2, 3):
            t = srv.create(players=2, seats=[{"bot": "medium"}, {"bot": "medium"}], seed=seed,
                           bot_delay_ms=0, expansions=["inns-cathedrals"])
            seen |= self.check_game(srv, t["id"])
        self.assertTrue({"city", "road", "farm"} <= seen, seen)

    def test_inn_and_cathedral_marked(self):
        srv = self.start()
        flags = set()
        for seed in (4, 5, 6, 7):
            t = srv.create(players=3, seats=[{"bot": "medium"}] * 3, seed=seed, bot_delay_ms=0,
                           expansions=["inns-cathedrals"])
            self.check_game(srv, t["id"])
            for entry in srv.state(t["id"])["game"]["log"]:
                for ev in entry["events"]:
                    flags |= {k for k in ("inn", "cathedral") if ev.get(k)}
        self.assertEqual(flags, {"inn", "cathedral"})

    def test_goods_named(self):
        srv = self.start()
        t = srv.create(players=3, seats=[{"bot": "medium"}] * 3, seed=9, bot_delay_ms=0,
                       expansions=["traders-builders"])
        self.wait_over(srv, t["id"], timeout=60)
        st = srv.state(t["id"])["game"]
        goods = [e for e in st["log"][-1]["events"] if e.get("kind") == "goods"]
        self.assertTrue(goods)
        held = st["goods"]
        for e in goods:
            self.assertNotIn("x", e)  # a majority of tokens is no place on the board
            k = e["good"]
            most = max(h[k] for h in held)
            self.assertEqual([p for p, h in enumerate(held) if h[k] == most],
                             [p for p, v in enumerate(e["points"]) if v == 10], e)
        want = [k for k in ("wine", "grain", "cloth") if max(h[k] for h in held) > 0]
        self.assertEqual([e["good"] for e in goods], want)


if __name__ == "__main__":
    unittest.main()
