#!/usr/bin/env python3
"""Memory and start-up of `carc serve` on a site with many unfinished games
(docs/server.md, "Tables in memory on demand").

    python3 bench/measure_ondemand.py --old OLD_CARC --new NEW_CARC [--count 10000]

Makes one human-only game being played (two seats, one move) with OLD's
server, copies it COUNT times (bench/gen_games.py), then for each binary,
OLD first (NEW migrates the database on its start, which OLD would then
refuse): PostgreSQL with three processes, and SQLite with one. Per
process: the start-up time (launch to the first answered /api/health),
VmRSS from /proc/PID/status once all are up, the tables it holds
(/api/health "tables"), and the time of the lobby's first page
(GET /api/tables?status=all). PostgreSQL is started in a temporary
folder as tests/py/test_pg.py does.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "py"))
import test_pg  # noqa: E402
from carcserver import first_legal  # noqa: E402


def req(port, method, path, body=None, token=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    hd = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        hd["Authorization"] = "Bearer " + token
    c.request(method, path, body=json.dumps(body).encode() if body is not None else None,
              headers=hd)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data)


def launch(carc, db, web, log):
    t0 = time.time()
    p = subprocess.Popen([carc, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db,
                          "--web", web, "--rate-tables", "0", "--rate-requests", "0"],
                         stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
    port = None
    while time.time() - t0 < 600:
        line = p.stdout.readline()
        if not line:
            break
        m = re.search(rb"listening on http://[0-9.]+:(\d+)/", line)
        if m:
            port = int(m.group(1))
            break
    if port is None:
        raise RuntimeError("%s did not start" % carc)
    while True:
        try:
            if req(port, "GET", "/api/health")[0] == 200:
                break
        except OSError:
            time.sleep(0.005)
    return p, port, time.time() - t0


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def template(carc, db, web, log):
    p, port, _ = launch(carc, db, web, log)
    st, made = req(port, "POST", "/api/tables", {"players": 2, "name": "alice", "seed": 1})
    tid, tok = made["id"], made["token"]
    req(port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
    st, state = req(port, "GET", "/api/tables/%s/state" % tid, token=tok)
    req(port, "POST", "/api/tables/%s/move" % tid, first_legal(state["game"]["next"]), token=tok)
    time.sleep(0.5)
    p.terminate()
    p.wait(10)
    return tid


def run(label, carc, db, n, web, log):
    procs = []
    for _ in range(n):
        p, port, took = launch(carc, db, web, log)
        procs.append((p, port, took))
    rows = []
    for p, port, took in procs:
        t0 = time.time()
        st, page = req(port, "GET", "/api/tables?status=all")
        lobby = time.time() - t0
        held = req(port, "GET", "/api/health")[1]["tables"]
        rows.append((took, rss_kb(p.pid), held, lobby, len(page["tables"])))
    for p, _, _ in procs:
        p.terminate()
        p.wait(30)
    for k, (took, rss, held, lobby, listed) in enumerate(rows):
        print("%-28s process %d: start-up %.3f s, VmRSS %d KiB, tables held %d, "
              "lobby first page %.1f ms (%d rows)" % (label, k + 1, took, rss, held,
                                                     lobby * 1000, listed))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--count", type=int, default=10000)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="carc-ondemand-")
    web = os.path.join(root, "no-web")
    log = open(os.path.join(root, "servers.log"), "ab")
    gen = os.path.join(HERE, "gen_games.py")
    os.chmod(root, 0o755)  # PostgreSQL runs as postgres when we are root
    os.makedirs(os.path.join(root, "pg"))
    pg = test_pg.Postgres(os.path.join(root, "pg"))
    try:
        base = pg.url.rpartition("/")[0]
        test_pg.carcserver.psql(pg.url, "CREATE DATABASE carc_bench")
        url = base + "/carc_bench"
        sq = os.path.join(root, "carc.sqlite")
        for db, n, name in ((url, 3, "PostgreSQL"), (sq, 1, "SQLite")):
            tid = template(a.old, db, web, log)
            subprocess.run([sys.executable, gen, "--db", db, "--template", tid, "--count",
                            str(a.count)], check=True, timeout=900)
            run("%s before (old)" % name, a.old, db, n, web, log)
            run("%s after (new)" % name, a.new, db, n, web, log)
    finally:
        log.close()
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
