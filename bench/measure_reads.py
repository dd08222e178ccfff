#!/usr/bin/env python3
"""What the lists cost as the site grows (docs/server.md, "Reads that cost
what the asker owns"): one asker with its own few games and ten friends,
on a site of N other games (4 in 10 being played, 6 finished), for two
builds side by side.

    python3 bench/measure_reads.py --old OLD_CARC --new NEW_CARC \\
        [--sizes 1000,100000] [--dir /tmp/carc-reads] [--pg URL] [--flood-s 10]

A site is built once per size with OLD's server (its schema; NEW migrates
a copy when it starts, and the start-up with that migration is reported)
and kept in --dir for the next run: accounts Centre (the asker), Friend
0..9 and two of the site; Centre and its friends play 20 finished and 7
running games among them; then a game being played and a finished one of
the site's two accounts are copied (bench/gen_games.py) to make N games.

Per request: OLD and NEW on every size run at once, each on its own copy
(NEW's start-up includes its migration of the copy), every limit off, and
each list is asked of them in turn (--samples times, 30, or fewer once
the slowest one's answers took over 20 s in all), Centre's session where one is
needed; the median and the 90th percentile in ms.

The flood: each build alone, at the default limits, four connections
from 127.0.0.1 ask the heaviest list (GET /api/friends, the asker's) for
--flood-s seconds while another address asks /api/health every 10 ms and
a third plays a game of two guests: each move's time from its POST to the
`move` message on a spectator's WebSocket. Percentiles of both, in ms.

--pg start (a PostgreSQL of its own in a temporary folder) or --pg URL
(an admin URL of a PostgreSQL server) does the same on PostgreSQL: the
sites are built as databases carc_reads_base_N there (kept for the next
run on a URL), each build runs on a copy (CREATE DATABASE ... TEMPLATE),
and the flood is measured at the largest size. --no-sqlite: PostgreSQL
only.
"""
import argparse
import base64
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "py"))
from carcserver import WebSocket, first_legal  # noqa: E402

PW = "bench-password-1"
OPEN = ["--rate-requests", "0", "--rate-tables", "0", "--max-open-tables", "0",
        "--rate-logins", "0", "--rate-social", "0", "--friend-rate", "0", "--rate-players", "0",
        "--rate-downloads", "0", "--auth-threads", "2"]
LISTS = [("friends", "/api/friends"), ("my games", "/api/me/games"),
         ("profile", "/api/player?name=Centre"), ("records", "/api/me/records?limit=25"),
         ("leaderboard", "/api/leaderboard"), ("lobby, open", "/api/tables?status=open"),
         ("lobby, playing", "/api/tables?status=playing"),
         ("lobby, all", "/api/tables?status=all"), ("finished", "/api/tables?status=over")]


class Client:
    """Keep-alive HTTP from one source address, with a session cookie."""

    def __init__(self, port, src="127.0.0.1", session=None):
        self.port, self.src, self.session, self.conn = port, src, session, None

    def call(self, method, path, body=None, token=None):
        hd = {"Origin": "http://127.0.0.1:%d" % self.port}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hd["Content-Type"] = "application/json"
        if token:
            hd["Authorization"] = "Bearer " + token
        if self.session:
            hd["Cookie"] = "carc_session=" + self.session
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600,
                                                       source_address=(self.src, 0))
            try:
                self.conn.request(method, path, body=data, headers=hd)
                r = self.conn.getresponse()
                text = r.read()
                m = re.search(r"carc_session=([0-9a-f]+)", r.getheader("Set-Cookie") or "")
                if m:
                    self.session = m.group(1)
                try:
                    return r.status, json.loads(text)
                except ValueError:
                    return r.status, text
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise


class BoundWebSocket(WebSocket):
    """carcserver's WebSocket from a source address of its own (a flood's
    address is over its limits, which a WebSocket's opening counts)."""

    def __init__(self, src, port, path, timeout=10):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.bind((src, 0))
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, port, key)).encode())
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("WebSocket closed during its handshake")
            buf += chunk
        head, self.buf = buf.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError("WebSocket refused: %r" % head[:80])
        self.closed = False


def launch(carc, db, extra, log):
    t0 = time.time()
    p = subprocess.Popen([carc, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db,
                          "--web", "/nonexistent", "--bot-delay", "0"] + extra,
                         stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
    port = None
    while time.time() - t0 < 1200:
        line = p.stdout.readline()
        if not line:
            break
        m = re.search(rb"listening on http://[0-9.]+:(\d+)/", line)
        if m:
            port = int(m.group(1))
            break
    if port is None:
        raise RuntimeError("%s did not start on %s" % (carc, db))
    c = Client(port)
    while True:
        try:
            if c.call("GET", "/api/health")[0] == 200:
                break
        except OSError:
            time.sleep(0.01)
    return p, port, time.time() - t0


def stop(p):
    p.terminate()
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def person(port, name):
    c = Client(port)
    st, r = c.call("POST", "/api/account/register", {"name": name, "password": PW})
    if st != 201:
        raise RuntimeError("register %s: %s %s" % (name, st, r))
    c.id = r["account"]["id"]
    return c


def game(a, b, finish):
    """A table of a against b: a's first move made; b resigns it when finish."""
    st, t = a.call("POST", "/api/tables", {"name": "x", "players": 2})
    assert st == 201, (st, t)
    st, j = b.call("POST", "/api/tables/%s/join" % t["id"], {"name": "y"})
    assert st == 200, (st, j)
    st, s = a.call("GET", "/api/tables/%s/state" % t["id"])
    nxt = s["game"]["next"]
    st, r = a.call("POST", "/api/tables/%s/move" % t["id"], dict(first_legal(nxt),
                   turn=nxt["turn"]), token=t["token"])
    assert st == 200, (st, r)
    if finish:
        st, r = b.call("POST", "/api/tables/%s/resign" % t["id"], {}, token=j["token"])
        assert st == 200, (st, r)
    return t["id"]


def build(carc, db, size, log):
    """The site (see the top): Centre's rows fixed, the rest `size` games."""
    p, port, _ = launch(carc, db, OPEN, log)
    try:
        centre = person(port, "Centre")
        friends = [person(port, "Friend %d" % i) for i in range(10)]
        site = [person(port, "Site %d" % i) for i in range(2)]
        for f in friends:
            centre.call("POST", "/api/friends/request", {"id": f.id})
            assert f.call("POST", "/api/friends/accept", {"id": centre.id})[0] == 200
        for k in range(20):
            game(centre, friends[k % 10], True)
        for k in range(5):
            game(friends[k], friends[k + 5], False)
        for k in range(2):
            game(centre, friends[k], False)
        playing = game(site[0], site[1], False)
        over = game(site[0], site[1], True)
        time.sleep(1)  # the last writes
    finally:
        stop(p)
    gen = os.path.join(HERE, "gen_games.py")
    for tid, n, prefix in ((playing, size * 4 // 10, "e0"), (over, size - size * 4 // 10, "e1")):
        subprocess.run([sys.executable, gen, "--db", db, "--template", tid, "--count", str(n),
                        "--prefix", prefix], check=True, timeout=3600, stdout=subprocess.DEVNULL)


def login(port, src="127.0.0.1"):
    c = Client(port, src)
    st, r = c.call("POST", "/api/account/login", {"name": "Centre", "password": PW})
    assert st == 200, (st, r)
    return c


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")


SAMPLES = 30


def per_request(label, servers, log):
    """servers: (name, carc, db) each; all run at once, every list asked of
    each in turn, so that a shared machine's load falls on all alike."""
    run = []
    try:
        for name, carc, db in servers:
            p, port, took = launch(carc, db, OPEN, log)
            run.append((name, p, login(port)))
            print("%s: %s started in %.2f s" % (label, name, took), flush=True)
        print("%s, median (90th percentile) in ms: %s" % (label, " | ".join(n for n, _, _ in run)),
              flush=True)
        for lname, path in LISTS:
            times = {n: [] for n, _, _ in run}
            for _, _, c in run:  # the first answer loads tables into memory: not counted
                st, r = c.call("GET", path)
                assert st == 200, (lname, st, str(r)[:200])
            slowest = 0.0
            while len(times[run[0][0]]) < SAMPLES and (slowest < 20 or len(times[run[0][0]]) < 3):
                for n, _, c in run:
                    t0 = time.perf_counter()
                    st, r = c.call("GET", path)
                    dt = time.perf_counter() - t0
                    assert st == 200, (lname, st, str(r)[:200])
                    times[n].append(dt * 1000)
                slowest = max(sum(v) for v in times.values()) / 1000
            print("  %-15s %s (%d each)" % (lname, " | ".join(
                "%.2f (%.2f)" % (statistics.median(times[n]), pct(times[n], 0.9))
                for n, _, _ in run), len(times[run[0][0]])), flush=True)
    finally:
        for _, p, _ in run:
            stop(p)


def flood(label, carc, db, seconds, log):
    p, port, _ = launch(carc, db, ["--rate-logins", "0"], log)
    stop_at = [0.0]
    health, moves, answers = [], [], {}
    lock = threading.Lock()
    try:
        flooders = [login(port) for _ in range(4)]

        def flood_one(c):
            while time.time() < stop_at[0]:
                st, _ = c.call("GET", "/api/friends")
                with lock:
                    answers[st] = answers.get(st, 0) + 1

        def poll_health():
            c = Client(port, "127.0.0.2")
            while time.time() < stop_at[0]:
                t0 = time.perf_counter()
                c.call("GET", "/api/health")
                health.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.01)

        def play():
            c = Client(port, "127.0.0.3")
            while time.time() < stop_at[0]:
                st, t = c.call("POST", "/api/tables", {"name": "p", "players": 2})
                st, j = c.call("POST", "/api/tables/%s/join" % t["id"], {"name": "q"})
                tokens = [t["token"], j["token"]]
                w = BoundWebSocket("127.0.0.3", port, "/ws/%s" % t["id"], timeout=120)
                nxt = c.call("GET", "/api/tables/%s/state" % t["id"])[1]["game"]["next"]
                while not nxt["over"] and time.time() < stop_at[0]:
                    t0 = time.perf_counter()
                    st, r = c.call("POST", "/api/tables/%s/move" % t["id"],
                                   dict(first_legal(nxt), turn=nxt["turn"]),
                                   token=tokens[nxt["to_move"]])
                    if st != 200:
                        break
                    m = w.recv_type(("move",), timeout=120)
                    moves.append((time.perf_counter() - t0) * 1000)
                    nxt = m["next"]
                    time.sleep(0.02)
                w.close()

        stop_at[0] = time.time() + seconds
        threads = [threading.Thread(target=flood_one, args=(c,)) for c in flooders]
        threads += [threading.Thread(target=poll_health), threading.Thread(target=play)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        stop(p)
    print("%s flood of GET /api/friends, %d s: answers %s; /api/health p50 %.1f p99 %.1f max %.1f ms"
          " (%d); move to broadcast p50 %.1f p99 %.1f max %.1f ms (%d moves)"
          % (label, seconds, dict(sorted(answers.items())), pct(health, 0.5), pct(health, 0.99),
             max(health or [0]), len(health), pct(moves, 0.5), pct(moves, 0.99),
             max(moves or [0]), len(moves)), flush=True)


def copy_pg(admin, src, dst):
    from carcserver import psql
    base = admin.rpartition("/")[0]
    psql(admin, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % dst)
    psql(admin, "CREATE DATABASE %s TEMPLATE %s" % (dst, src))
    return base + "/" + dst


def builds(a):
    return (("new", a.new),) if a.new_only else (("old", a.old), ("new", a.new))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--dir", default="/tmp/carc-reads")
    ap.add_argument("--pg", help="measure the largest size on PostgreSQL too: 'start' (a"
                    " PostgreSQL of its own in a temporary folder, as tests/py/test_pg.py"
                    " does) or an admin URL")
    ap.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    ap.add_argument("--flood-s", type=int, default=10)
    ap.add_argument("--no-flood", action="store_true")
    ap.add_argument("--samples", type=int, default=30, help="answers per list and server")
    ap.add_argument("--new-only", action="store_true",
                    help="measure NEW alone (OLD still builds the sites)")
    a = ap.parse_args()
    global SAMPLES
    SAMPLES = a.samples
    os.makedirs(a.dir, exist_ok=True)
    log = open(os.path.join(a.dir, "servers.log"), "ab")
    sizes = [int(x) for x in a.sizes.split(",")]
    print("load average %s" % open("/proc/loadavg").read().split()[:3], flush=True)
    servers = []
    for size in ([] if a.no_sqlite else sizes):
        base = os.path.join(a.dir, "base-%d.sqlite" % size)
        if not os.path.exists(base):
            t0 = time.time()
            build(a.old, base, size, log)
            print("built %s in %.0f s" % (base, time.time() - t0), flush=True)
        for k, carc in builds(a):
            db = os.path.join(a.dir, "%s-%d.sqlite" % (k, size))
            shutil.copyfile(base, db)
            servers.append(("%s %d" % (k, size), carc, db))
    if servers:
        per_request("SQLite", servers, log)
    if servers and not a.no_flood:
        for name, carc, db in servers:
            flood("SQLite %s" % name, carc, db, a.flood_s, log)
    pg = None
    if a.pg == "start":
        import tempfile
        import test_pg
        root = tempfile.mkdtemp(prefix="carc-reads-pg-")
        os.chmod(root, 0o755)  # PostgreSQL runs as postgres when we are root
        pg = test_pg.Postgres(root)
        a.pg = pg.url
    try:
        if a.pg:
            measure_pg(a, sizes, log)
    finally:
        if pg:
            pg.stop()
            shutil.rmtree(pg.root, ignore_errors=True)
    log.close()


def measure_pg(a, sizes, log):
    from carcserver import psql
    servers = []
    for size in sizes:
        src = "carc_reads_base_%d" % size
        base_url = a.pg.rpartition("/")[0] + "/" + src
        if not psql(a.pg, "SELECT 1 FROM pg_database WHERE datname='%s'" % src).strip():
            psql(a.pg, "CREATE DATABASE %s" % src)
            t0 = time.time()
            build(a.old, base_url, size, log)
            print("built %s in %.0f s" % (base_url, time.time() - t0), flush=True)
        for k, carc in builds(a):
            servers.append(("%s %d" % (k, size), carc,
                            copy_pg(a.pg, src, "carc_reads_%s_%d" % (k, size))))
    per_request("PostgreSQL", servers, log)
    if not a.no_flood:
        for name, carc, db in servers:
            if name.endswith(" %d" % sizes[-1]):
                flood("PostgreSQL %s" % name, carc, db, a.flood_s, log)


if __name__ == "__main__":
    main()
