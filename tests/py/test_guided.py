"""The guided first game (web/js/guide.js, docs/web.md "The guided first
game"): the table option "tutorial" and what the server does with it.

- "tutorial": true is kept with the table (its options, also after a
  restart) and is refused when it is not true or false;
- a tutorial game is never rated, even where custom piles are
  (--rate-custom-piles, --rated-min-moves 0); the same game without the
  option is rated (the control);
- a tutorial table that gives no pile and no seed of its own is dealt the
  guide's game (data/tutorial.json, compiled into the server: the client
  names no tile), and that deal still gives the person a city cap first, a
  road second and a cloister third: if the engine's shuffle changes, this
  says the guide's seed must be chosen again.

    CARC=build/release/carc python3 tests/py/test_guided.py
"""
import json
import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase  # noqa: E402
from test_hostile_play import Client, HostileCase  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def guide_game():
    """The guide's deal (data/tutorial.json) and its bot, as guide.js
    writes the level (GUIDE_BOT)."""
    with open(os.path.join(REPO, "data", "tutorial.json"), encoding="utf-8") as f:
        g = json.load(f)
    with open(os.path.join(REPO, "web", "js", "guide.js"), encoding="utf-8") as f:
        g["bot"] = re.search(r"^export const GUIDE_BOT = '(\w+)';$", f.read(), re.M).group(1)
    return g


class TutorialTest(HostileCase):
    ABSENT = object()

    def body(self, tutorial):
        g = guide_game()
        b = {"name": "Learner", "seats": [{}, {"bot": g["bot"]}], "tiles": g["tiles"],
             "seed": g["seed"], "bot_delay_ms": 0}
        if tutorial is not self.ABSENT:
            b["tutorial"] = tutorial
        return b

    def test_the_option_is_kept_and_checked(self):
        srv = self.start()
        st, t, _ = srv.post("/api/tables", self.body(True))
        self.assertEqual(st, 201, t)
        self.assertIs(srv.state(t["id"])["table"]["options"]["tutorial"], True)
        st, plain, _ = srv.post("/api/tables", self.body(self.ABSENT))
        self.assertNotIn("tutorial", srv.state(plain["id"])["table"]["options"])
        for bad in ("yes", 1, None, [], {}):
            st, r, _ = srv.post("/api/tables", self.body(bad))
            self.assertEqual(st, 400, (bad, r))
            self.assertIn("'tutorial' must be true or false", r["error"]["message"])
        srv.stop()
        srv = self.start()
        self.assertIs(srv.state(t["id"])["table"]["options"]["tutorial"], True)

    def test_a_tutorial_is_never_rated(self):
        srv = self.start(extra=["--rated-min-moves", "0", "--rate-custom-piles"])
        a = Client(srv)
        a.register("Learner")
        st, t, _ = a.call("POST", "/api/tables", self.body(True))
        self.assertEqual(st, 201, t)
        self.play_out(srv, t["id"], {0: t["token"]})
        p = self.player(srv, "Learner")
        self.assertEqual((p["rating"], p["games"]), (1500, 0), p)
        self.assertIn("table=%s event=unrated why=tutorial" % t["id"], srv.read_log())
        # the control: the same game without the option counts
        st, t2, _ = a.call("POST", "/api/tables", self.body(False))
        self.assertEqual(st, 201, t2)
        self.play_out(srv, t2["id"], {0: t2["token"]})
        p = self.player(srv, "Learner")
        self.assertEqual(p["games"], 1, p)
        self.assertNotEqual(p["rating"], 1500, p)

    def test_the_guides_pile_deals_its_lessons_early(self):
        srv = self.start()
        # the guide sends the option alone (as guide.js does): the server deals
        body = self.body(True)
        del body["tiles"], body["seed"]
        st, t, _ = srv.post("/api/tables", body)
        self.assertEqual(st, 201, t)
        self.assertEqual(t["table"]["options"]["tiles"], guide_game()["tiles"])
        self.assertEqual(sum(guide_game()["tiles"].values()), 22)
        mine = []
        tid, tok = t["id"], t["token"]
        while len(mine) < 3:
            s = srv.state(tid, tok)
            nxt = s["game"]["next"]
            if nxt["to_move"] != 0:
                time.sleep(0.02)
                continue
            mine.append(nxt["tile"])
            # the city cap fits north of the start tile only turned (rotation 2)
            if len(mine) == 1:
                north = [p for p in nxt["legal"]["placements"] if (p["x"], p["y"]) == (0, -1)]
                self.assertEqual([p["rot"] for p in north], [2], north)
            p = nxt["legal"]["placements"][0]
            st, r, _ = srv.post("/api/tables/%s/move" % tid, {"x": p["x"], "y": p["y"], "rot": p["rot"],
                                "turn": nxt["turn"]}, token=tok)
            self.assertEqual(st, 200, r)
        self.assertEqual(mine[0], "E")
        self.assertIn(mine[1], ("U", "V"))
        self.assertIn(mine[2], ("A", "B"))


if __name__ == "__main__":
    unittest.main()
