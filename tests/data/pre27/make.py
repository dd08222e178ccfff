#!/usr/bin/env python3
"""How the files of this folder were made, with the build before issue 27
(turns made of steps). They are kept as they came out of that build: a
later build must read them, never rewrite them.

    git worktree add --detach /tmp/pre27 afb0e97 && make -C /tmp/pre27 -j2
    python3 tests/data/pre27/make.py --carc /tmp/pre27/build/release/carc \\
        [--pg-admin postgresql://postgres@127.0.0.1:PORT/postgres]

- records/: records of each rule set from `carc sim --record` (two seeds
  each), and server-finished-{sqlite,pg}.json, the records a server of that
  build gave for a game played to its end against a bot (GET
  /api/tables/ID/record), on each store.
  tests/py/test_records_pre27.py replays every one with today's build and
  writes it again, byte for byte.
- schema18.sqlite.sql (and, with --pg-admin, schema18.pg.sql): a database of
  schema 18 as that build's server left it, with games in progress: a
  person against a bot whose move is due, a person against a bot on a
  clock, two people on a clock, a finished game; games.json names them and
  holds their seats' tokens. tests/py/test_migrate_steps.py (and its
  PostgreSQL run) starts today's server on it.
"""
import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
RULE_SETS = [
    ("base", []),
    ("base-3p", ["--players", "3"]),
    ("base-5p", ["--players", "5"]),
    ("city-once", ["--farm-scoring", "city-once"]),
    ("first-edition", ["--farm-scoring", "first-edition", "--players", "3"]),
    ("small-city", ["--small-city"]),
    ("no-farmers", ["--no-farmers"]),
    ("river", ["--expansions", "river"]),
    ("inns", ["--expansions", "inns-cathedrals", "--players", "6"]),
    ("inns-tiles", ["--expansions", "inns-cathedrals-tiles", "--players", "4"]),
    ("traders", ["--expansions", "traders-builders"]),
    ("abbot", ["--expansions", "abbot"]),
    ("all", ["--expansions", "river,inns-cathedrals,traders-builders,abbot", "--players", "4"]),
]


def sim_records(carc, out):
    for name, args in RULE_SETS:
        tmp = tempfile.mkdtemp()
        try:
            subprocess.run([carc, "sim", "--games", "2", "--seed", "27", "--record", tmp] + args,
                           check=True, stdout=subprocess.DEVNULL)
            for f in sorted(os.listdir(tmp)):
                shutil.copy(os.path.join(tmp, f), os.path.join(out, "%s-%s" % (name, f)))
        finally:
            shutil.rmtree(tmp)


class Srv:
    def __init__(self, carc, db, workdir):
        self.log = open(os.path.join(workdir, "server.log"), "ab")
        self.p = subprocess.Popen([carc, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db,
                                   "--web", workdir, "--bot-delay", "0"],
                                  stdout=subprocess.PIPE, stderr=self.log)
        line = self.p.stdout.readline().decode()
        m = re.search(r"listening on http://[0-9.]+:(\d+)/", line)
        assert m, line
        self.base = "http://127.0.0.1:%s" % m.group(1)

    def call(self, method, path, body=None, token=None, raw=False):
        hd = {"Origin": self.base, "Content-Type": "application/json"}
        if token:
            hd["Authorization"] = "Bearer " + token
        rq = urllib.request.Request(self.base + path, method=method, headers=hd,
                                    data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(rq, timeout=30) as r:
                text = r.read().decode()
                return r.status, (text if raw else json.loads(text))
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode())

    def state(self, tid):
        st, s = self.call("GET", "/api/tables/%s/state" % tid)
        assert st == 200, s
        return s

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(20)
        self.log.close()


def a_move(nxt):
    legal = nxt["legal"]
    if legal["discard"]:
        return {"discard": True}
    p = legal["placements"][0]
    return {"x": p["x"], "y": p["y"], "rot": p["rot"],
            "meeple": p["meeples"][0] if p["meeples"] else None}


def move(srv, tid, token):
    nxt = srv.state(tid)["game"]["next"]
    st, r = srv.call("POST", "/api/tables/%s/move" % tid, dict(a_move(nxt), turn=nxt["turn"]),
                     token)
    assert st == 200, r


def wait_turn(srv, tid, seat, turn, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        nxt = srv.state(tid)["game"]["next"]
        if nxt["over"] or (nxt["to_move"] == seat and nxt["turn"] >= turn):
            return nxt
        time.sleep(0.05)
    raise SystemExit("table %s: seat %d never got turn %d" % (tid, seat, turn))


def play_site(carc, db, workdir, records, store):
    """The games of the fixture on database db (a path or a URL)."""
    games = {}
    srv = Srv(carc, db, workdir)
    try:
        # a person against a bot, played to its end: the finished game and
        # the server's record
        st, t = srv.call("POST", "/api/tables", {"name": "Ann", "seats": [{}, {"bot": "medium"}],
                                                 "seed": 2701})
        assert st == 201, t
        tid, tok = t["id"], t["token"]
        while True:
            nxt = wait_turn(srv, tid, 0, 0)
            if nxt["over"]:
                break
            move(srv, tid, tok)
        st, rec = srv.call("GET", "/api/tables/%s/record" % tid, raw=True)
        assert st == 200
        with open(os.path.join(records, "server-finished-%s.json" % store), "w") as f:
            f.write(rec)
        games["finished"] = {"id": tid, "tokens": [tok, None]}
        # a person on a clock against a bot: the person to move
        st, t = srv.call("POST", "/api/tables", {
            "name": "Cid", "seats": [{}, {"bot": "random"}], "seed": 2702,
            "clock": {"mode": "realtime", "move_s": 600, "reserve_s": 60}})
        assert st == 201, t
        tid, tok = t["id"], t["token"]
        for k in range(3):
            wait_turn(srv, tid, 0, 2 * k)
            move(srv, tid, tok)
        wait_turn(srv, tid, 0, 6)
        games["clock_bot"] = {"id": tid, "tokens": [tok, None]}
        # two people on a clock: seat 1 to move
        st, t = srv.call("POST", "/api/tables", {
            "name": "Dee", "seed": 2703,
            "clock": {"mode": "realtime", "move_s": 900, "reserve_s": 0}})
        assert st == 201, t
        tid, a = t["id"], t["token"]
        st, j = srv.call("POST", "/api/tables/%s/join" % tid, {"name": "Eve"})
        assert st == 200, j
        b = j["token"]
        for k in range(5):
            move(srv, tid, a if k % 2 == 0 else b)
        games["clock_people"] = {"id": tid, "tokens": [a, b]}
        # a person against a bot whose move is due: the bot pauses 5 s
        # before it moves, and the server stops within them
        st, t = srv.call("POST", "/api/tables", {"name": "Fay", "seats": [{}, {"bot": "easy"}],
                                                 "seed": 2704, "bot_delay_ms": 5000})
        assert st == 201, t
        tid, tok = t["id"], t["token"]
        move(srv, tid, tok)
        nxt = srv.state(tid)["game"]["next"]
        assert nxt["to_move"] == 1 and nxt["turn"] == 1, nxt
        games["bot_due"] = {"id": tid, "tokens": [tok, None]}
    finally:
        srv.stop()
    return games


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--carc", required=True, help="the carc of the build before issue 27")
    ap.add_argument("--pg-admin", help="a PostgreSQL admin URL: also schema18.pg.sql")
    a = ap.parse_args()
    records = os.path.join(HERE, "records")
    os.makedirs(records, exist_ok=True)
    sim_records(a.carc, records)
    work = tempfile.mkdtemp(prefix="carc-pre27-")
    try:
        db = os.path.join(work, "site.sqlite")
        games = play_site(a.carc, db, work, records, "sqlite")
        con = sqlite3.connect(db)
        version = con.execute("PRAGMA user_version").fetchone()[0]
        with open(os.path.join(HERE, "schema18.sqlite.sql"), "w") as f:
            for line in con.iterdump():
                f.write(line + "\n")
            f.write("PRAGMA user_version=%d;\n" % version)
        con.close()
        out = {"schema": version, "sqlite": games}
        if a.pg_admin:
            base = a.pg_admin.rpartition("/")[0]
            psql = shutil.which("psql")
            for sql in ("DROP DATABASE IF EXISTS carc_pre27", "CREATE DATABASE carc_pre27"):
                subprocess.run([psql, "-X", "-q", a.pg_admin, "-c", sql], check=True)
            url = base + "/carc_pre27"
            out["pg"] = play_site(a.carc, url, work, records, "pg")
            dump = subprocess.run([shutil.which("pg_dump"), "--no-owner", "--no-privileges",
                                   "--inserts", url], check=True, capture_output=True,
                                  text=True).stdout
            with open(os.path.join(HERE, "schema18.pg.sql"), "w") as f:
                f.write(dump)
        with open(os.path.join(HERE, "games.json"), "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
