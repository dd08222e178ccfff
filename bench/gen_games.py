#!/usr/bin/env python3
"""Many stored games from one: copies game TEMPLATE (its row, seats, moves,
clock, and when it has finished its result and rating changes) COUNT times
into a carc database, for measuring a server on a big site (docs/server.md,
"Tables in memory on demand", "Reads that cost what the asker owns").

    python3 bench/gen_games.py --db carc.sqlite --template ID --count 10000
    python3 bench/gen_games.py --db postgresql://u@host/db --template ID --count 10000

The copies get ids PREFIX + a hex number (16 hex digits in all, as the
server makes them) and created (and finished) times one millisecond apart
before the template's, so the lobby's order is fixed. Make the template through the
API (a table, its seats joined, a few moves), stop the server (SQLite) or
not (PostgreSQL), then run this. One SQL statement per table: SQLite
through the standard library, PostgreSQL through psql.
"""
import argparse
import shutil
import sqlite3
import subprocess
import sys

TABLES = (("games", "id"), ("seats", "game_id"), ("moves", "game_id"), ("clocks", "game_id"),
          ("results", "game_id"), ("ratings", "game_id"))


def new_id_sql(pg, prefix):
    width = 16 - len(prefix)
    if pg:
        return "'%s' || lpad(to_hex(n.i), %d, '0')" % (prefix, width)
    return "'%s' || printf('%%0%dx', n.i)" % (prefix, width)


def copy_sql(pg, table, key, cols, template, count, prefix):
    out = []
    for c in cols:
        if c == key:
            out.append(new_id_sql(pg, prefix))
        elif (table, c) in (("games", "created_ms"), ("results", "finished_ms")):
            out.append("t.%s - 1 - n.i" % c)
        else:
            out.append("t." + c)
    series = ("generate_series(0, %d) AS n(i)" % (count - 1) if pg else "n")
    head = ("" if pg else
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %d) "
            % count)
    return ("%sINSERT INTO %s (%s) SELECT %s FROM %s t, %s WHERE t.%s = '%s'"
            % (head, table, ", ".join(cols), ", ".join(out), table, series, key, template))


def psql(url, sql):
    exe = shutil.which("psql") or "/usr/lib/postgresql/15/bin/psql"
    p = subprocess.run([exe, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql],
                       capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.exit("psql: " + p.stderr.strip())
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True, help="a SQLite path or a postgresql:// URL")
    ap.add_argument("--template", required=True, help="the id of the game to copy")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--prefix", default="e0", help="hex digits the copies' ids start with")
    a = ap.parse_args()
    if a.count < 1 or not all(c in "0123456789abcdef" for c in a.prefix + a.template) \
            or not 0 < len(a.prefix) < 12:
        sys.exit("--count must be positive, --template and --prefix hex digits")
    pg = a.db.startswith(("postgresql:", "postgres:"))
    if pg:
        for table, key in TABLES:
            cols = psql(a.db, "SELECT column_name FROM information_schema.columns WHERE "
                        "table_name = '%s' ORDER BY ordinal_position" % table).split()
            psql(a.db, copy_sql(True, table, key, cols, a.template, a.count, a.prefix))
        psql(a.db, "ANALYZE")
    else:
        con = sqlite3.connect(a.db)
        con.execute("PRAGMA foreign_keys=ON")
        with con:
            for table, key in TABLES:
                cols = [r[1] for r in con.execute("PRAGMA table_info(%s)" % table)]
                con.execute(copy_sql(False, table, key, cols, a.template, a.count, a.prefix))
        con.close()
    print("%d copies of %s in %s" % (a.count, a.template, "PostgreSQL" if pg else a.db))


if __name__ == "__main__":
    main()
