#!/usr/bin/env python3
"""What a preview and a feature view cost the server (docs/server.md, "What
a decision would do"), next to a ping: a game of Inns & Cathedrals,
Traders & Builders and the Abbot is played to 40 tiles with random moves,
then one connection asks --count previews (the current tile's placements
in turn), feature views (the figures on the board in turn) and pings, one
after the other; the server's CPU time (user + system, /proc) per message
and the round trip.

    CARC=build/test/carc python3 bench/measure_views.py [--count 2000]

The budgets are off (--rate-views 0, --rate-requests 0). The CPU is read
in clock ticks (10 ms): run enough messages that a kind takes a second or
so, and read the figures as rough.
"""
import argparse
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "py"))
from carcserver import Server  # noqa: E402
from test_hostile_views import EXPANSIONS, ask, cpu_s  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="carc-views-")
    s = Server(os.path.join(d, "v.sqlite"), extra=["--rate-views", "0", "--rate-requests", "0"])
    try:
        t = s.create(players=2, expansions=EXPANSIONS, seed=a.seed)
        tid = t["id"]
        toks = {x["seat"]: x["token"] for x in (s.join(tid, "A"), s.join(tid, "B"))}
        rng = random.Random(1)
        for _ in range(40):
            n = s.state(tid)["game"]["next"]
            if n["over"]:
                break
            if n["legal"].get("discard"):
                mv = {"discard": True}
            elif "placements" in n["legal"]:
                p = rng.choice(n["legal"]["placements"])
                mv = {"x": p["x"], "y": p["y"], "rot": p["rot"],
                      "meeple": rng.choice(p["meeples"]) if p["meeples"] else None}
            else:
                mv = {k: v for k, v in n["legal"]["options"][0].items() if k != "text"}
            mv["step"] = n["step"]
            st, r, _ = s.post("/api/tables/%s/move" % tid, mv, token=toks[n["to_move"]])
            assert st == 200, r
        g = s.state(tid)["game"]
        pls = g["next"]["legal"]["placements"]
        print("board %d tiles, %d placements of the tile in hand, %d figures"
              % (len(g["board"]), len(pls), len(g["figures"])))
        w = s.ws(tid)
        w.recv_type("state")
        for kind in ("preview", "feature", "ping"):
            c0, t0 = cpu_s(s), time.time()
            for i in range(a.count):
                if kind == "preview":
                    p = pls[i % len(pls)]
                    m = {"type": "preview", "move": {"x": p["x"], "y": p["y"], "rot": p["rot"]}}
                elif kind == "feature":
                    f = g["figures"][i % len(g["figures"])]
                    m = {"type": "feature", "x": f["x"], "y": f["y"], "at": f["at"]}
                else:
                    m = {"type": "ping"}
                r = ask(w, m, i)
                assert r["type"] in (kind, "pong"), r
            print("%-8s server CPU %5.1f us a message, round trip %.2f ms"
                  % (kind, (cpu_s(s) - c0) / a.count * 1e6, (time.time() - t0) / a.count * 1e3))
        w.close()
    finally:
        s.kill()


if __name__ == "__main__":
    main()
