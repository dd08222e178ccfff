"""Round trip of an undo (docs/server.md "Training against bots"): a person
against a random bot plays 30 moves, then takes back one move five times and
25 at once, over HTTP.

    CARC=build/release/carc python3 bench/undo/latency.py
"""
import os, shutil, sys, time, tempfile, statistics
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tests/py"))
from carcserver import Server, first_legal
d = tempfile.mkdtemp()
srv = Server(os.path.join(d, "m.sqlite"), extra=["--rate-undos", "0", "--undo-table-rate", "0"])
try:
    c = srv.create(seats=[{}, {"bot": "random"}], name="me", seed=5)
    tid, tok = c["id"], c["token"]
    def my_turn():
        while True:
            s = srv.state(tid, tok); n = s["game"]["next"]
            if n["over"] or n["to_move"] == 0: return s
            time.sleep(0.005)
    own = 0
    while own < 30:
        n = my_turn()["game"]["next"]
        srv.post("/api/tables/%s/move" % tid, dict(first_legal(n), turn=n["turn"]), token=tok); own += 1
    my_turn()
    times = []
    for k in (1, 1, 1, 1, 1):
        t0 = time.perf_counter(); st, r, _ = srv.post("/api/tables/%s/undo" % tid, {"moves": k}, token=tok); times.append((time.perf_counter() - t0) * 1000)
        assert st == 200, r
    print("undo 1 move at turn ~%d: " % (own * 2) + "%.1f-%.1f ms (median %.1f) round trip" % (min(times), max(times), statistics.median(times)))
    t0 = time.perf_counter(); st, r, _ = srv.post("/api/tables/%s/undo" % tid, {"moves": 25}, token=tok); dt = (time.perf_counter() - t0) * 1000
    assert st == 200, r
    print("undo 25 moves back to turn %d: %.1f ms round trip" % (r["turn"], dt))
finally:
    srv.kill()
    shutil.rmtree(d, ignore_errors=True)
