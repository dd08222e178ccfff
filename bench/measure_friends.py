#!/usr/bin/env python3
"""How long the friends' endpoints take (docs/server.md, "Friends"): one
account with N friends (default 50) on a server of its own (SQLite in a
temporary folder), 200 reads of its GET /api/friends, then a block by
each friend (a write of the storage thread each).

    CARC=build/release/carc python3 bench/measure_friends.py [N]
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "py"))
from carcserver import Server  # noqa: E402
from test_friends import Person  # noqa: E402

OPEN = ["--rate-logins", "0", "--rate-requests", "0", "--rate-social", "0", "--friend-rate", "0",
        "--auth-threads", "2"]


def pct(ts, p):
    ts = sorted(ts)
    return ts[min(len(ts) - 1, int(len(ts) * p))]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    d = tempfile.mkdtemp(prefix="carc-frbench-")
    srv = Server(os.path.join(d, "b.sqlite"), extra=OPEN)
    try:
        me = Person(srv, "Centre")
        others = [Person(srv, "Friend %d" % i) for i in range(n)]
        for o in others:
            o.do("request", name="Centre")
        for o in others:
            assert me.do("accept", id=o.id)[0] == 200
        assert len(me.friends()["friends"]) == n
        reads = []
        for _ in range(200):
            t0 = time.perf_counter()
            me.friends()
            reads.append((time.perf_counter() - t0) * 1000)
        writes = []
        for o in others:
            t0 = time.perf_counter()
            assert o.do("block", name="Centre")[0] == 200
            writes.append((time.perf_counter() - t0) * 1000)
        print("GET /api/friends with %d friends: p50 %.2f ms, p99 %.2f ms" %
              (n, pct(reads, 0.5), pct(reads, 0.99)))
        print("POST /api/friends/block: p50 %.2f ms, p99 %.2f ms (%d)" %
              (pct(writes, 0.5), pct(writes, 0.99), len(writes)))
    finally:
        srv.kill()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
