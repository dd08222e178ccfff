#!/usr/bin/env python3
"""What the migration to schema 19 (issue 27: the step as the unit of
storage, docs/server.md "Turns made of steps") costs on a big database:
the start-up of NEW on a copy at schema 18 made by OLD (the build before
the change), against NEW's start on the migrated copy and OLD's own.

    python3 bench/measure_migrate19.py --old OLD_CARC --new NEW_CARC \\
        [--dir /tmp/carc-mig19] [--site /tmp/carc-reads/base-100000.sqlite] \\
        [--pg ADMIN_URL] [--full 10000] [--runs 2]

Two databases per store: --site (SQLite: a site of bench/measure_reads.py,
of any older schema, which OLD migrates to 18 first; PostgreSQL: built
here like it, 100,000 games of guests, 4 in 10 being played, one move each,
copied by bench/gen_games.py), and --full finished games of two bots with
all their moves (gen_games.py copies of one). Each start runs on a fresh
copy (SQLite: a file copy; PostgreSQL: CREATE DATABASE ... TEMPLATE).
"""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_reads as mr  # noqa: E402

GEN = os.path.join(HERE, "gen_games.py")


def psql(url, sql):
    return subprocess.run([shutil.which("psql") or "/usr/lib/postgresql/15/bin/psql", "-X", "-q",
                           "-A", "-t", url, "-c", sql], capture_output=True, text=True,
                          check=True).stdout.strip()


class Bench:
    def __init__(self, a):
        self.a = a
        os.makedirs(a.dir, exist_ok=True)
        self.log = open(os.path.join(a.dir, "servers.log"), "ab")

    def start_stop(self, carc, db):
        p, _, took = mr.launch(carc, db, mr.OPEN, self.log)
        mr.stop(p)
        return took

    def play(self, db, body, finish):
        """One table on OLD: `body`; two guests make a move, or bots play it
        out; resigned when `finish` is "resign". Its id."""
        p, port, _ = mr.launch(self.a.old, db, mr.OPEN, self.log)
        try:
            c = mr.Client(port)
            st, t = c.call("POST", "/api/tables", body)
            assert st == 201, t
            if "name" in body:
                st, j = c.call("POST", "/api/tables/%s/join" % t["id"], {"name": "y"})
                st, s = c.call("GET", "/api/tables/%s/state" % t["id"])
                nxt = s["game"]["next"]
                st, r = c.call("POST", "/api/tables/%s/move" % t["id"],
                               dict(mr.first_legal(nxt), turn=nxt["turn"]), token=t["token"])
                assert st == 200, r
                if finish:
                    st, r = c.call("POST", "/api/tables/%s/resign" % t["id"], {},
                                   token=j["token"])
                    assert st == 200, r
            else:
                while c.call("GET", "/api/tables/" + t["id"])[1]["status"] != "over":
                    time.sleep(0.2)
            time.sleep(1)  # the last writes
            return t["id"]
        finally:
            mr.stop(p)

    def copies(self, db, tid, n, prefix):
        subprocess.run([sys.executable, GEN, "--db", db, "--template", tid, "--count", str(n),
                        "--prefix", prefix], check=True, stdout=subprocess.DEVNULL, timeout=3600)

    def measure(self, label, at18, copy, moves):
        for _ in range(self.a.runs):
            a = copy(at18)
            mig = self.start_stop(self.a.new, a)
            again = self.start_stop(self.a.new, a)
            old = self.start_stop(self.a.old, copy(at18))
            print("%s (%s moves): NEW with the migration %.2f s, NEW after it %.2f s, OLD %.2f s"
                  % (label, moves, mig, again, old), flush=True)

    def sqlite(self):
        def copy(src):
            dst = src.replace(".sqlite", "-copy.sqlite")
            shutil.copy(src, dst)
            for ext in ("-wal", "-shm"):
                if os.path.exists(dst + ext):
                    os.remove(dst + ext)
            return dst

        def moves(db):
            con = sqlite3.connect(db)
            n = con.execute("SELECT count(*) FROM moves").fetchone()[0]
            con.close()
            return n
        site = os.path.join(self.a.dir, "site.sqlite")
        shutil.copy(self.a.site, site)
        self.start_stop(self.a.old, site)  # to 18
        self.measure("SQLite, the site", site, copy, moves(site))
        full = os.path.join(self.a.dir, "full.sqlite")
        if os.path.exists(full):
            os.remove(full)
        tid = self.play(full, {"seats": [{"bot": "medium"}, {"bot": "medium"}], "seed": 99,
                               "bot_delay_ms": 0}, False)
        self.copies(full, tid, self.a.full, "f0")
        self.measure("SQLite, %d finished games" % (self.a.full + 1), full, copy, moves(full))

    def pg(self):
        admin = self.a.pg
        base = admin.rpartition("/")[0]
        n = [0]

        def db(name):
            psql(admin, "DROP DATABASE IF EXISTS %s" % name)
            psql(admin, "CREATE DATABASE %s" % name)
            return base + "/" + name

        def copy(src):
            n[0] += 1
            name = "carc_mig19_copy%d" % n[0]
            psql(admin, "DROP DATABASE IF EXISTS %s" % name)
            psql(admin, "CREATE DATABASE %s TEMPLATE %s" % (name, src.rpartition("/")[2]))
            return base + "/" + name
        site = db("carc_mig19_site")
        playing = self.play(site, {"name": "x", "players": 2}, False)
        over = self.play(site, {"name": "x", "players": 2}, True)
        self.copies(site, playing, 40000, "e0")
        self.copies(site, over, 60000, "e1")
        self.measure("PostgreSQL, 100,000 games", site, copy,
                     psql(site, "SELECT count(*) FROM moves"))
        full = db("carc_mig19_full")
        tid = self.play(full, {"seats": [{"bot": "medium"}, {"bot": "medium"}], "seed": 99,
                               "bot_delay_ms": 0}, False)
        self.copies(full, tid, self.a.full, "f0")
        self.measure("PostgreSQL, %d finished games" % (self.a.full + 1), full, copy,
                     psql(full, "SELECT count(*) FROM moves"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--dir", default="/tmp/carc-mig19")
    ap.add_argument("--site", default="/tmp/carc-reads/base-100000.sqlite",
                    help="a site of bench/measure_reads.py (SQLite), any schema before 19")
    ap.add_argument("--pg", help="a PostgreSQL admin URL: measure there too")
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--full", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    b = Bench(a)
    if not a.no_sqlite:
        b.sqlite()
    if a.pg:
        b.pg()


if __name__ == "__main__":
    main()
