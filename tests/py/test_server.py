"""Black-box tests of `carc serve` over loopback: the real server, a database
in a temporary folder, the HTTP API and the WebSocket protocol of
docs/protocol.md. Run: CARC=build/release/carc python3 tests/py/test_server.py
"""
import json
import re
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import (CARC, HOST, Server, ServerCase, WSClosed, first_legal,  # noqa: E402
                        schema_version)
from carcserver import PG_ADMIN, psql  # noqa: E402


class _PgRows:
    def __init__(self, rows):
        self.rows = rows

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self):
        return self.rows


class _PgCon:
    """The few sqlite3 calls the tests make, on the server's PostgreSQL
    database (CARC_TEST_DB): `?` parameters quoted in, numbers back as int."""

    def __init__(self, url):
        self.url = url

    def execute(self, sql, args=()):
        if sql == "pragma user_version":
            sql = "select version from carc_schema"
        for a in args:
            sql = sql.replace("?", "'%s'" % str(a).replace("'", "''"), 1)
        out = psql(self.url, sql)
        rows = []
        for line in out.splitlines():
            rows.append(tuple(int(v) if v.lstrip("-").isdigit() else v
                              for v in line.split("\x1f")))
        return _PgRows(rows)

    def close(self):
        pass


def open_db(srv):
    """The server's database for reading: its SQLite file, or (under
    CARC_TEST_DB) its PostgreSQL database."""
    if PG_ADMIN:
        return _PgCon(srv.db_arg)
    import sqlite3
    return sqlite3.connect("file:%s?mode=ro" % srv.db, uri=True)


def skip_under_pg(why):
    return unittest.skipIf(bool(PG_ADMIN), "SQLite only (%s)" % why)

MAX_TURNS = 200  # a base game has 71 turns (plus discards); every loop is bounded
PALETTE = ["blue", "red", "yellow", "black", "green", "pink"]


# The database as the first schema (version 1) made it: the SQL of the first
# migration of src/server/storage/store_sqlite.c, before seats had colours.
SCHEMA_1 = """
CREATE TABLE games (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('open','playing','over','view')),
  players INTEGER NOT NULL,
  farmers INTEGER NOT NULL,
  farm_scoring TEXT NOT NULL,
  small_city INTEGER NOT NULL,
  expansions TEXT NOT NULL DEFAULT '[]',
  seed INTEGER NOT NULL,
  options TEXT NOT NULL DEFAULT '{}',
  record TEXT,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL);
CREATE INDEX games_by_status ON games(status, created_ms);
CREATE TABLE seats (
  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  seat INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('open','human','bot')),
  name TEXT NOT NULL DEFAULT '',
  level TEXT NOT NULL DEFAULT '',
  bot_spec TEXT NOT NULL DEFAULT '',
  token TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (game_id, seat)) WITHOUT ROWID;
CREATE TABLE moves (
  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
  turn INTEGER NOT NULL,
  player INTEGER NOT NULL,
  move INTEGER NOT NULL,
  tile TEXT NOT NULL,
  entry TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  PRIMARY KEY (game_id, turn)) WITHOUT ROWID;
CREATE TABLE results (
  game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
  scores TEXT NOT NULL,
  by_kind TEXT NOT NULL,
  winners TEXT NOT NULL,
  finished_ms INTEGER NOT NULL);
"""
SCHEMA_1_COLUMNS = {
    "games": "id, status, players, farmers, farm_scoring, small_city, expansions, seed, "
             "options, record, created_ms, updated_ms",
    "seats": "game_id, seat, kind, name, level, bot_spec, token",
    "moves": "game_id, turn, player, move, tile, entry, at_ms",
    "results": "game_id, scores, by_kind, winners, finished_ms",
}


def colours(table):
    return [s["colour"] for s in table["seats"]]


class ServerTest(ServerCase):
    def replay_scores(self, record_text):
        """Final scores of a record as the engine's replay computes them."""
        path = os.path.join(self.dir, "rec-%d.json" % random.randrange(1 << 30))
        with open(path, "w") as f:
            f.write(record_text)
        p = subprocess.run([CARC, "replay", "--json", path], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return json.loads(p.stdout.strip().splitlines()[-1])["scores"]

    # ------------------------------------------------------------------------

    def test_command_line(self):
        p = subprocess.run([CARC, "serve", "--help"], capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 0)
        for opt in ("--host", "--port", "--db", "--web", "--bot-delay"):
            self.assertIn(opt, p.stdout)
        for bad in (["--port", "x"], ["--port", "70000"], ["--sync", "maybe"], ["--nope"],
                    ["--db"]):
            p = subprocess.run([CARC, "serve"] + bad, capture_output=True, text=True, timeout=10)
            self.assertEqual(p.returncode, 2, bad)
            self.assertTrue(p.stderr, bad)
        # a database from a newer carc is refused, not guessed at
        db = os.path.join(self.dir, "future.sqlite")
        if PG_ADMIN:
            from carcserver import pg_url_for
            db = pg_url_for(db)
            psql(db, "create table carc_schema (version integer not null);"
                     "insert into carc_schema values (999)")
        else:
            import sqlite3
            con = sqlite3.connect(db)
            con.execute("pragma user_version=999")
            con.close()
        p = subprocess.run([CARC, "serve", "--port", "0", "--db", db], capture_output=True,
                           text=True, timeout=10)
        self.assertEqual(p.returncode, 1)
        self.assertIn("newer", p.stderr)
        if PG_ADMIN:
            from carcserver import pg_drop
            pg_drop(os.path.join(self.dir, "future.sqlite"))

    def test_health_tiles_options_static(self):
        web = os.path.join(self.dir, "web")
        os.makedirs(web)
        with open(os.path.join(web, "index.html"), "w") as f:
            f.write("<!doctype html><title>carc</title>hello")
        with open(os.path.join(web, "app.js"), "w") as f:
            f.write("console.log('carc')")
        with open(os.path.join(self.dir, "secret.txt"), "w") as f:
            f.write("SECRET")
        os.symlink(os.path.join(self.dir, "secret.txt"), os.path.join(web, "link.txt"))
        srv = self.start(web=web)
        st, h, _ = srv.get("/api/health")
        self.assertEqual(st, 200)
        self.assertTrue(h["ok"])
        self.assertEqual(h["store"], "postgresql" if PG_ADMIN else "sqlite")
        self.assertEqual(srv.get("/healthz")[0], 200)

        st, tiles, _ = srv.get("/api/tiles")
        self.assertEqual(st, 200)
        base = [t for t in tiles["tiles"] if t["set"] == "base" and "garden_of" not in t]
        self.assertEqual(len(base), 24)
        self.assertEqual(sum(t["count"] for t in base), 72)
        self.assertEqual(tiles["start"]["base"], "D")
        goods = [s["goods"] for t in tiles["tiles"] for s in t["segments"] if "goods" in s]
        self.assertTrue(goods and set(goods) <= {"wine", "grain", "cloth"}, goods)
        self.assertEqual(tiles["ports"][:3], ["N0", "N1", "N2"])
        self.assertTrue(all(t["segments"] for t in tiles["tiles"]))

        st, opts, _ = srv.get("/api/options")
        self.assertEqual((opts["players_min"], opts["players_max"]), (2, 5))
        self.assertIn("international", opts["farm_scoring"])

        st, body, hdrs = srv.get("/")
        self.assertEqual(st, 200)
        self.assertIn("hello", body)
        st, body, hdrs = srv.get("/app.js")
        self.assertEqual((st, body), (200, "console.log('carc')"))
        self.assertIn("javascript", hdrs.get("content-type", ""))
        # nothing outside the web folder, however the path is spelled
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt",
                     "/link.txt", "//etc/passwd", "/nothere.js"):
            st, body, _ = srv.get(path)
            self.assertIn(st, (400, 403, 404), path)
            self.assertNotIn("SECRET", str(body), path)
        st, body, _ = srv.get("/api/nothing")
        self.assertEqual(st, 404)
        self.assertEqual(body["error"]["code"], "not_found")

    def test_two_humans_play_a_whole_game_over_websocket(self):
        srv = self.start()
        created = srv.create(players=2, seed=20240607, name="alice")
        tid, ta = created["id"], created["token"]
        self.assertEqual(created["seat"], 0)
        self.assertEqual(created["table"]["status"], "open")
        self.assertNotIn("seed", created["table"]["options"])  # the draw order stays hidden
        jb = srv.join(tid, "bob")
        tb = jb["token"]
        self.assertEqual(jb["seat"], 1)
        self.assertEqual(jb["table"]["status"], "playing")
        self.assertNotEqual(ta, tb)
        self.assertGreaterEqual(len(ta), 32)

        wa, wb = self.ws(srv, tid, ta), self.ws(srv, tid, tb)
        spec = self.ws(srv, tid)
        sa, sb, ss = wa.recv_type("state"), wb.recv_type("state"), spec.recv_type("state")
        self.assertEqual(sa["you"], {"seat": 0})
        self.assertEqual(sb["you"], {"seat": 1})
        self.assertIsNone(ss["you"])
        g = sa["game"]
        for key in ("rules", "board", "figures", "supply", "by_kind", "next", "log"):
            self.assertIn(key, g)
        nxt = g["next"]
        self.assertEqual(nxt["turn"], 0)
        self.assertEqual(nxt["to_move"], 0)
        self.assertEqual(nxt["tiles_left"], 71)
        self.assertEqual(sum(nxt["tiles_left_by_kind"].values()), 71)
        self.assertEqual(g["supply"], [{"follower": 7}, {"follower": 7}])
        self.assertEqual(g["board"], [{"x": 0, "y": 0, "tile": "D", "rot": 0, "player": None}])
        self.assertTrue(nxt["legal"]["placements"])

        rng = random.Random(5)
        socks = [wa, wb]
        log = []
        for turn in range(MAX_TURNS):
            if nxt["over"]:
                break
            self.assertEqual(nxt["turn"], turn)
            mover = socks[nxt["to_move"]]
            move = dict(first_legal(nxt, rng), type="move", turn=turn, ref=turn)
            mover.send(move)
            msgs = [w.recv_type(("move", "error")) for w in (wa, wb, spec)]
            for m in msgs:
                self.assertEqual(m["type"], "move", m)
                self.assertEqual(m["entry"]["turn"], turn)
            self.assertEqual(msgs[0], msgs[1])
            self.assertEqual(msgs[0], msgs[2])
            entry = msgs[0]["entry"]
            if not move.get("discard"):
                self.assertEqual((entry["x"], entry["y"], entry["rot"]),
                                 (move["x"], move["y"], move["rot"]))
                self.assertEqual(entry["meeple"], move["meeple"])
            log.append(entry)
            nxt = msgs[0]["next"]
        self.assertTrue(nxt["over"], "the game did not end")
        final = nxt["final"]["scores"]
        self.assertGreaterEqual(len(log), 71)

        state = srv.state(tid)
        self.assertEqual(state["table"]["status"], "over")
        self.assertEqual(state["game"]["log"], log)
        self.assertIn("seed", state["table"]["options"])

        st, rec, hdrs = srv.get("/api/tables/%s/record" % tid)
        self.assertEqual(st, 200)
        self.assertIn("attachment", hdrs.get("content-disposition", ""))
        self.assertEqual(rec["format"], "carc-record-1")
        self.assertEqual(len(rec["turns"]), len(log))
        self.assertEqual(rec["final"]["scores"], final)
        # each turn's totals as the record has them
        self.assertEqual([t["scores"] for t in rec["turns"]], [e["scores"] for e in log])
        self.assertEqual(self.replay_scores(json.dumps(rec)), final)
        # what the database holds
        con = open_db(srv)
        self.assertEqual(con.execute("pragma user_version").fetchone()[0], schema_version())
        self.assertEqual(con.execute("select status, players, seed from games where id=?",
                                     (tid,)).fetchone(), ("over", 2, 20240607))
        self.assertEqual(con.execute("select seat, kind, name from seats where game_id=? "
                                     "order by seat", (tid,)).fetchall(),
                         [(0, "human", "alice"), (1, "human", "bob")])
        rows = con.execute("select turn, entry from moves where game_id=? order by turn",
                           (tid,)).fetchall()
        self.assertEqual([r[0] for r in rows], list(range(len(log))))
        self.assertEqual([json.loads(r[1]) for r in rows], log)
        self.assertEqual(json.loads(con.execute("select scores from results where game_id=?",
                                                (tid,)).fetchone()[0]), final)
        con.close()
        # the same record uploaded is replayed by the server into a view table
        st, up, _ = srv.http("POST", "/api/records", raw=json.dumps(rec))
        self.assertEqual(st, 201, up)
        view = srv.state(up["id"])
        self.assertEqual(view["table"]["status"], "view")
        self.assertEqual(view["game"]["next"]["final"]["scores"], final)
        self.assertEqual(view["game"]["log"], log)

    def test_rejected_moves_change_nothing(self):
        srv = self.start(extra=("--max-message", "4096"))
        created = srv.create(players=2, name="ann")
        tid, ta = created["id"], created["token"]
        w = self.ws(srv, tid, ta)
        w.recv_type("state")
        st, r, _ = srv.post("/api/tables/%s/move" % tid, {"x": 0, "y": 1, "rot": 0}, token=ta)
        self.assertEqual((st, r["error"]["code"]), (409, "not_started"))
        tb = srv.join(tid, "ben")["token"]
        wb = self.ws(srv, tid, tb)
        wb.recv_type("state")
        spec = self.ws(srv, tid)
        spec.recv_type("state")
        before = srv.state(tid)["game"]
        good = first_legal(before["next"])

        def expect(sock, msg, code):
            sock.send(msg)
            m = sock.recv_type("error")
            self.assertEqual(m["code"], code, m)
            self.assertTrue(m["message"])
            return m

        expect(wb, dict(good, type="move"), "not_your_turn")
        expect(w, dict(good, type="move", token="0" * 32), "bad_token")
        expect(w, dict(good, type="move", token=tb), "not_your_turn")
        expect(spec, dict(good, type="move"), "bad_token")
        m = expect(w, {"type": "move", "x": 0, "y": 0, "rot": 0, "meeple": None, "ref": 7},
                   "illegal_move")
        self.assertEqual(m["ref"], 7)
        expect(w, {"type": "move", "x": 0, "y": 99, "rot": 0}, "illegal_move")
        expect(w, dict(good, type="move", turn=3), "stale_turn")
        expect(w, {"type": "move", "x": "one", "y": 0, "rot": 0}, "malformed")
        expect(w, {"type": "move", "x": 1, "y": 0, "rot": 9}, "malformed")
        expect(w, {"type": "move", "x": 1, "y": 0, "rot": 0,
                   "meeple": {"kind": "follower", "at": "Q9"}}, "malformed")
        expect(w, "{not json", "malformed")
        expect(w, "[1, 2, 3]", "malformed")
        expect(w, {"no": "type"}, "malformed")
        expect(w, {"type": "teleport"}, "unknown_type")
        expect(w, json.dumps(dict(good, type="move", pad="x" * 5000)), "too_large")
        # still connected and served after all of that
        w.send({"type": "ping", "ref": "p"})
        self.assertEqual(w.recv_type("pong")["ref"], "p")

        # the same rules over HTTP
        path = "/api/tables/%s/move" % tid
        self.assertEqual(srv.post(path, good, token="f" * 32)[0], 403)
        self.assertEqual(srv.post(path, good)[0], 403)
        self.assertEqual(srv.post(path, good, token=tb)[0], 409)
        self.assertEqual(srv.post(path, {"x": 0, "y": 0, "rot": 0}, token=ta)[0], 422)
        self.assertEqual(srv.http("POST", path, raw="{oops", token=ta)[0], 400)
        self.assertEqual(srv.http("POST", path, raw="[]", token=ta)[0], 400)
        big = json.dumps(dict(good, pad="x" * 10000))
        self.assertEqual(srv.http("POST", path, raw=big, token=ta)[0], 413)
        self.assertEqual(srv.get(path)[0], 405)

        self.assertEqual(srv.state(tid)["game"], before)
        # nobody was told of a move
        spec.send({"type": "ping"})
        self.assertEqual(spec.recv_type(("pong", "move"))["type"], "pong")

        # and a good move over HTTP goes through, announced on the WebSocket
        st, r, _ = srv.post(path, dict(good, turn=0), token=ta)
        self.assertEqual(st, 200, r)
        self.assertEqual(r["entry"]["turn"], 0)
        self.assertEqual(r["next"]["to_move"], 1)
        self.assertEqual(spec.recv_type("move")["entry"], r["entry"])
        # the same move again is now out of turn and stale
        self.assertEqual(srv.post(path, dict(good, turn=0), token=ta)[0], 409)

    def test_a_move_sent_twice_counts_once(self):
        srv = self.start()
        c = srv.create(players=2, name="a")
        tid, ta = c["id"], c["token"]
        srv.join(tid, "b")
        w = self.ws(srv, tid, ta)
        nxt = w.recv_type("state")["game"]["next"]
        move = json.dumps(dict(first_legal(nxt), type="move"))
        w.send(move)
        w.send(move)
        got = [w.recv_type(("move", "error")) for _ in range(2)]
        kinds = sorted(m["type"] for m in got)
        self.assertEqual(kinds, ["error", "move"], got)
        err = [m for m in got if m["type"] == "error"][0]
        self.assertIn(err["code"], ("stale_turn", "not_your_turn"))
        self.assertEqual(len(srv.state(tid)["game"]["log"]), 1)

    def test_sigkill_mid_game_loses_nothing(self):
        srv = self.start()
        # two people, moves over HTTP
        c = srv.create(players=2, seed=99, name="p0")
        tid, t0 = c["id"], c["token"]
        t1 = srv.join(tid, "p1")["token"]
        # a person against a bot
        cb = srv.create(seats=[{}, {"bot": "random"}], seed=5, name="solo")
        tbid, tsolo = cb["id"], cb["token"]
        # bots only, slowed down so the kill lands mid-game
        seed = 4242
        tbots = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], seed=seed,
                           bot_delay_ms=8)["id"]
        spec = self.ws(srv, tbots)
        spec.recv_type("state")

        tokens = [t0, t1]
        rng = random.Random(1)
        nxt = srv.state(tid)["game"]["next"]
        for _ in range(12):
            st, r, _ = srv.post("/api/tables/%s/move" % tid, first_legal(nxt, rng),
                                token=tokens[nxt["to_move"]])
            self.assertEqual(st, 200, r)
            nxt = r["next"]
        # the bot answers the person's move
        st, r, _ = srv.post("/api/tables/%s/move" % tbid,
                            first_legal(srv.state(tbid)["game"]["next"]), token=tsolo)
        self.assertEqual(st, 200, r)
        deadline = time.time() + 5
        while srv.state(tbid)["game"]["next"]["turn"] < 2 and time.time() < deadline:
            time.sleep(0.02)
        seen = []
        for _ in range(20):
            seen.append(spec.recv_type("move")["entry"])
        before = srv.state(tid)
        before_solo = srv.state(tbid)

        srv.kill()  # SIGKILL in the middle of three games
        spec.close()
        srv2 = self.start()
        after = srv2.state(tid)
        self.assertEqual(after["game"], before["game"])
        self.assertEqual(srv2.state(tbid)["game"]["next"]["turn"],
                         before_solo["game"]["next"]["turn"])
        # every move announced before the kill is in the resumed game
        bots_log = srv2.state(tbots)["game"]["log"]
        self.assertGreaterEqual(len(bots_log), len(seen))
        self.assertEqual(bots_log[:len(seen)], seen)
        self.assertIn("resumed", srv2.read_log())

        # the tokens still hold the seats: play the game to its end
        nxt = after["game"]["next"]
        for _ in range(MAX_TURNS):
            if nxt["over"]:
                break
            st, r, _ = srv2.post("/api/tables/%s/move" % tid, first_legal(nxt, rng),
                                 token=tokens[nxt["to_move"]])
            self.assertEqual(st, 200, r)
            nxt = r["next"]
        self.assertTrue(nxt["over"])
        rec = srv2.get("/api/tables/%s/record" % tid)[1]
        self.assertEqual(self.replay_scores(json.dumps(rec)), nxt["final"]["scores"])

        # the bot game went on by itself, exactly as an uninterrupted one does
        self.wait_over(srv2, tbots)
        again = srv2.create(seats=[{"bot": "random"}, {"bot": "random"}], seed=seed,
                            bot_delay_ms=0)["id"]
        self.wait_over(srv2, again)
        r1 = srv2.get("/api/tables/%s/record" % tbots)[1]
        r2 = srv2.get("/api/tables/%s/record" % again)[1]
        self.assertEqual(r1["turns"], r2["turns"])
        self.assertEqual(r1["final"], r2["final"])

    def test_bot_game_runs_to_its_end(self):
        srv = self.start()
        c = srv.create(seats=[{"bot": "random"}, {"bot": "easy"}, {"bot": "random"}],
                       farm_scoring="first-edition", small_city=True)
        tid = c["id"]
        self.assertEqual(c["table"]["status"], "playing")
        w = self.ws(srv, tid)
        state = w.recv_type("state")
        turn = len(state["game"]["log"])
        nxt = state["game"]["next"]
        for _ in range(MAX_TURNS):
            if nxt["over"]:
                break
            m = w.recv_type("move", timeout=10)
            self.assertEqual(m["entry"]["turn"], turn)
            turn += 1
            nxt = m["next"]
        self.assertTrue(nxt["over"])
        self.assertEqual(len(nxt["final"]["scores"]), 3)
        info = srv.get("/api/tables/" + tid)[1]
        self.assertEqual(info["status"], "over")
        self.assertEqual(info["options"]["farm_scoring"], "first-edition")
        rec = srv.get("/api/tables/%s/record" % tid)[1]
        self.assertEqual(rec["rules"]["farm_scoring"], "first-edition")
        self.assertEqual(self.replay_scores(json.dumps(rec)), nxt["final"]["scores"])

    def test_expansions_game_over_http(self):
        srv = self.start()
        exps = ["river", "inns-cathedrals", "traders-builders", "abbot"]
        c = srv.create(players=6, expansions=exps, seed=77, name="p0")
        tid = c["id"]
        tokens = [c["token"]] + [srv.join(tid, "p%d" % i)["token"] for i in range(1, 6)]
        state = srv.state(tid)
        self.assertEqual(state["game"]["rules"]["expansions"], exps)
        self.assertIn("goods", state["game"])
        kinds = set(k for s in state["game"]["supply"] for k in s)
        self.assertTrue({"follower", "big", "builder", "pig", "abbot"} <= kinds, kinds)
        rng = random.Random(3)
        nxt = state["game"]["next"]
        seen = set()
        for _ in range(400):
            if nxt["over"]:
                break
            move = first_legal(nxt, rng)
            st, r, _ = srv.post("/api/tables/%s/move" % tid, move, token=tokens[nxt["to_move"]])
            self.assertEqual(st, 200, (move, r))
            e = r["entry"]
            if e.get("meeple"):
                seen.add(e["meeple"]["kind"])
            for k in ("bonus", "abbot_recalled", "goods"):
                if k in e:
                    seen.add(k)
            nxt = r["next"]
        self.assertTrue(nxt["over"])
        self.assertTrue(seen & {"big", "builder", "pig", "abbot"}, seen)
        rec = srv.get("/api/tables/%s/record" % tid)[1]
        self.assertEqual(rec["rules"]["expansions"], exps)
        self.assertEqual(self.replay_scores(json.dumps(rec)), nxt["final"]["scores"])
        log = srv.state(tid)["game"]["log"]
        self.assertEqual([t["scores"] for t in rec["turns"]], [e["scores"] for e in log])

    def test_custom_piles_load_back_or_are_refused(self):
        # found by fuzz_http (tests/fuzz/repro/http-empty-pile-unloadable): a
        # pile whose counts were all 0 was accepted, stored without its zeros
        # as {} and the table was gone after a restart
        srv = self.start()
        for pile in ({"E": 0, "U": 0}, {"U": 0}):
            st, r, _ = srv.post("/api/tables", {"name": "a", "tiles": pile})
            self.assertEqual((st, r["error"]["code"]), (400, "bad_option"), r)
            self.assertIn("at least one tile", r["error"]["message"])
        kept = srv.create(name="a", tiles={"E": 0, "U": 2, "V": 1}, seed=9)["id"]
        srv.kill()
        srv2 = self.start()
        st, info, _ = srv2.get("/api/tables/" + kept)
        self.assertEqual(st, 200, info)
        self.assertEqual(info["options"]["tiles"], {"U": 2, "V": 1})
        self.assertNotIn("cannot be loaded", srv2.read_log())

    def test_tables_seats_and_options(self):
        srv = self.start()
        pub = srv.create(players=3)["id"]
        priv = srv.create(players=2, private=True)["id"]
        listed = [t["id"] for t in srv.get("/api/tables")[1]["tables"]]
        self.assertIn(pub, listed)
        self.assertNotIn(priv, listed)
        # the private table is reachable by its id (the invite link)
        self.assertEqual(srv.get("/api/tables/" + priv)[0], 200)
        self.assertEqual(srv.join(priv, "x")["seat"], 0)
        st, r, _ = srv.post("/api/tables/%s/join" % priv, {"name": "y", "seat": 0})
        self.assertEqual((st, r["error"]["code"]), (409, "seat_taken"))
        j = srv.join(priv, "y", seat=1)
        self.assertEqual(j["table"]["status"], "playing")
        st, r, _ = srv.post("/api/tables/%s/join" % priv, {"name": "z"})
        # started, it exists only for its players (docs/protocol.md, "private")
        self.assertEqual((st, r["error"]["code"]), (404, "not_found"))
        st, r, _ = srv.post("/api/tables/%s/join" % priv, {"name": "z"}, token=j["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "table_full"))
        self.assertEqual(srv.post("/api/tables/%s/join" % pub, {})[0], 400)
        self.assertEqual(srv.post("/api/tables/%s/join" % pub, {"name": ""})[0], 400)
        # a join over the WebSocket; the cookie of an HTTP join holds the seat too
        w = self.ws(srv, pub)
        w.recv_type("state")
        w.send({"type": "join", "name": "wsu", "ref": 1})
        joined = w.recv_type("joined")
        self.assertEqual(joined["seat"], 0)
        self.assertEqual(w.recv_type("state")["you"], {"seat": 0})
        st, r, hdrs = srv.post("/api/tables/%s/join" % pub, {"name": "cookie"})
        self.assertIn("carc_%s=%s" % (pub, r["token"]), hdrs.get("set-cookie", ""))
        st, s, _ = srv.get("/api/tables/%s/state" % pub,
                           headers={"Cookie": "carc_%s=%s" % (pub, r["token"])})
        self.assertEqual(s["you"], {"seat": 1})
        st, s, _ = srv.get("/api/tables/%s/state" % pub, headers={"X-Carc-Token": joined["token"]})
        self.assertEqual(s["you"], {"seat": 0})

        bad = [
            ({"players": 1}, "players"),
            ({"players": 7}, "players"),
            ({"farm_scoring": "old"}, "international"),
            ({"expansions": ["dragons"]}, "dragons"),
            ({"seats": [{"bot": "grandmaster"}, {}]}, "levels"),
            ({"seats": [{}, {}], "players": 3}, "seats"),
            ({"colour": "red"}, "colour"),
            ({"tiles": {"Z": 1}}, "tiles"),
            ({"small_city": "yes"}, "small_city"),
        ]
        for opts, word in bad:
            st, r, _ = srv.post("/api/tables", opts)
            self.assertEqual(st, 400, opts)
            self.assertEqual(r["error"]["code"], "bad_option")
            self.assertIn(word, r["error"]["message"], opts)
        self.assertEqual(srv.http("POST", "/api/tables", raw="{")[0], 400)
        self.assertEqual(srv.get("/api/tables/nosuchtable")[0], 404)
        self.assertEqual(srv.get("/api/tables/nosuchtable/state")[0], 404)
        w = self.ws(srv, "nosuchtable")
        self.assertEqual(w.recv_type("error")["code"], "not_found")
        # a short pile makes a short game
        c = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], tiles={"U": 2, "E": 1})
        info = self.wait_over(srv, c["id"], timeout=5)
        self.assertEqual(info["turn"], 3)

    def test_table_limit_makes_room_from_finished_games(self):
        srv = self.start(extra=("--max-tables", "3", "--max-tables-share", "0"))
        done = [srv.create(seats=[{"bot": "random"}, {"bot": "random"}],
                           tiles={"U": 2})["id"] for _ in range(3)]
        for tid in done:
            self.wait_over(srv, tid, timeout=5)
        fresh = srv.create(players=2)["id"]  # finished games leave memory for it
        self.assertEqual(srv.get("/api/health")[1]["tables"], 1)
        for tid in done:  # and come back from the store when asked for
            self.assertEqual(srv.state(tid)["table"]["status"], "over")
        w = self.ws(srv, fresh)
        w.recv_type("state")
        # busy only when every table held is needed: here each has a client
        open_ = [srv.create(players=2)["id"] for _ in range(2)]
        for tid in open_:
            self.ws(srv, tid).recv_type("state")
        st, r, _ = srv.post("/api/tables", {"players": 2})
        self.assertEqual((st, r["error"]["code"]), (503, "busy"))
        self.assertEqual(len(open_), 2)
        # an open table nobody watches leaves memory for a new one
        self.sockets.pop().close()
        deadline = time.time() + 5
        while time.time() < deadline and srv.get("/api/health")[1]["connections"] > 2:
            time.sleep(0.05)
        st, r, _ = srv.post("/api/tables", {"players": 2})
        self.assertEqual(st, 201, r)
        self.assertEqual(srv.state(open_[1])["table"]["status"], "open")  # loaded again

    def test_seat_colours_chosen_stored_and_checked(self):
        srv = self.start()
        c = srv.create(seats=[{"colour": "green"}, {"bot": "random", "colour": "pink"}, {}],
                       name="ann")
        tid = c["id"]
        want = ["green", "pink", "blue"]  # the seat without one: the first free colour
        self.assertEqual(colours(c["table"]), want)
        self.assertEqual(c["table"]["seats"][1]["name"], "Pink bot (random)")
        self.assertEqual(colours(srv.get("/api/tables/" + tid)[1]), want)
        self.assertEqual(colours(srv.state(tid)["table"]), want)
        w = self.ws(srv, tid)
        self.assertEqual(colours(w.recv_type("state")["table"]), want)
        self.assertEqual(srv.get("/api/options")[1]["colours"], PALETTE)
        listed = {t["id"]: t for t in srv.get("/api/tables")[1]["tables"]}
        self.assertEqual(colours(listed[tid]), want)
        j = srv.join(tid, "ben")
        self.assertEqual((j["seat"], colours(j["table"])), (2, want))
        m = w.recv_type("table")
        self.assertEqual(colours(m["table"]), want)
        # no colours asked: the palette in order; some asked: the others fill in
        self.assertEqual(colours(srv.create(players=4)["table"]), PALETTE[:4])
        self.assertEqual(colours(srv.create(seats=[{}, {"colour": "blue"}, {"colour": "red"},
                                                   {}])["table"]),
                         ["yellow", "blue", "red", "black"])
        six = srv.create(players=6, expansions=["inns-cathedrals"])["table"]
        self.assertEqual(colours(six), PALETTE)

        # refused with a message naming the seat; nothing is made
        con = open_db(srv)
        games_before = con.execute("select count(*) from games").fetchone()[0]
        tables_before = srv.get("/api/health")[1]["tables"]
        bad = [
            ([{"colour": "purple"}, {}], ["seats[0]", "purple", "blue"]),
            ([{}, {"colour": 3}], ["seats[1]", "colour"]),
            ([{"colour": ""}, {}], ["seats[0]", "colour"]),
            ([{"colour": "red"}, {"bot": "random", "colour": "red"}], ["seats[1]", "seats[0]", "red"]),
            ([{}, {"colour": "Green"}, {"colour": "green"}], ["seats[1]", "Green"]),
            ([{"colour": "pink"}, {}, {"bot": "random", "colour": "pink"}], ["seats[2]", "seats[0]"]),
        ]
        for seats, words in bad:
            st, r, _ = srv.post("/api/tables", {"seats": seats, "name": "x"})
            self.assertEqual((st, r["error"]["code"]), (400, "bad_option"), seats)
            for word in words:
                self.assertIn(word, r["error"]["message"], seats)
        self.assertEqual(con.execute("select count(*) from games").fetchone()[0], games_before)
        self.assertEqual(srv.get("/api/health")[1]["tables"], tables_before)
        self.assertEqual(con.execute("select seat, colour from seats where game_id=? order by seat",
                                     (tid,)).fetchall(), list(enumerate(want)))
        con.close()

        # a record carries the colours, and an uploaded record keeps them
        b = srv.create(seats=[{"bot": "random", "colour": "black"},
                              {"bot": "random", "colour": "yellow"}], tiles={"U": 2})["id"]
        self.wait_over(srv, b, timeout=5)
        rec = srv.get("/api/tables/%s/record" % b)[1]
        self.assertEqual([s["colour"] for s in rec["seats"]], ["black", "yellow"])
        self.assertEqual([s["name"] for s in rec["seats"]],
                         ["Black bot (random)", "Yellow bot (random)"])
        st, up, _ = srv.http("POST", "/api/records", raw=json.dumps(rec))
        self.assertEqual(st, 201, up)
        self.assertEqual(colours(up["table"]), ["black", "yellow"])

        # kill -9 and a restart on the same database: the same colours
        srv.kill()
        srv2 = self.start()
        self.assertEqual(colours(srv2.get("/api/tables/" + tid)[1]), want)
        self.assertEqual(colours(srv2.state(tid, token=c["token"])["table"]), want)
        self.assertEqual(colours(srv2.get("/api/tables/" + b)[1]), ["black", "yellow"])
        self.assertEqual(colours(srv2.get("/api/tables/" + up["id"])[1]), ["black", "yellow"])

    @skip_under_pg("the migration of a SQLite file of schema 1")
    def test_a_database_of_schema_1_is_migrated(self):
        import sqlite3
        # games written by this server: a finished one and an open one ...
        srv = self.start(db="new.sqlite")
        done = srv.create(seats=[{"bot": "random", "colour": "green"}, {"bot": "random"}],
                          tiles={"U": 2, "E": 1})["id"]
        self.wait_over(srv, done, timeout=5)
        opened = srv.create(players=3, name="old")
        srv.stop()
        # ... copied into a database of the first schema, which had no colours
        # (and named bots by their level)
        old = os.path.join(self.dir, "old.sqlite")
        src = sqlite3.connect(os.path.join(self.dir, "new.sqlite"))
        con = sqlite3.connect(old)
        con.executescript(SCHEMA_1)
        for table, cols in SCHEMA_1_COLUMNS.items():
            rows = src.execute("select %s from %s" % (cols, table)).fetchall()
            marks = ",".join("?" * len(cols.split(",")))
            con.executemany("insert into %s (%s) values (%s)" % (table, cols, marks), rows)
        con.execute("update seats set name = level || ' bot' where kind = 'bot'")
        con.execute("pragma user_version=1")
        con.commit()
        con.close()
        src.close()

        srv2 = self.start(db="old.sqlite")
        con = sqlite3.connect("file:%s?mode=ro" % old, uri=True)
        self.assertEqual(con.execute("pragma user_version").fetchone()[0], schema_version())
        self.assertEqual(con.execute("select seat, colour from seats where game_id=? order by seat",
                                     (done,)).fetchall(), [(0, "blue"), (1, "red")])
        con.close()
        # tables made before get the default colours, and everything else works
        info = srv2.get("/api/tables/" + opened["id"])[1]
        self.assertEqual(colours(info), ["blue", "red", "yellow"])
        self.assertEqual(srv2.state(opened["id"], token=opened["token"])["you"], {"seat": 0})
        j = srv2.join(opened["id"], "new")
        self.assertEqual((j["seat"], colours(j["table"])), (1, ["blue", "red", "yellow"]))
        listed = srv2.get("/api/tables?status=over")[1]["tables"]
        self.assertEqual([t["id"] for t in listed], [done])
        self.assertEqual(colours(listed[0]), ["blue", "red"])
        self.assertEqual(listed[0]["turn"], 3)
        replay = srv2.state(done)
        self.assertEqual(replay["table"]["status"], "over")
        self.assertEqual(len(replay["game"]["log"]), 3)
        self.assertEqual(replay["game"]["next"]["final"]["scores"], listed[0]["scores"])
        # and new tables on the migrated database keep their colours
        c = srv2.create(seats=[{"colour": "pink"}, {}])
        srv2.kill()
        srv3 = self.start(db="old.sqlite")
        self.assertEqual(colours(srv3.get("/api/tables/" + c["id"])[1]), ["pink", "blue"])

    def test_finished_games_are_listed_from_the_store(self):
        srv = self.start(extra=("--max-tables", "3", "--max-tables-share", "0"))
        ids = []
        for _ in range(5):
            tid = srv.create(seats=[{"bot": "random"}, {"bot": "random", "colour": "green"}],
                             tiles={"U": 2, "E": 1})["id"]
            self.wait_over(srv, tid, timeout=5)
            ids.append(tid)
        hidden = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], tiles={"U": 2},
                            private=True)["id"]
        # a started private game exists only for its players (none: two bots)
        for _ in range(100):
            if srv.get("/api/health")[1]["playing"] == 0:
                break
            time.sleep(0.05)
        self.assertEqual(srv.get("/api/health")[1]["playing"], 0)
        self.assertEqual(srv.get("/api/tables/" + hidden)[0], 404)
        waiting = srv.create(players=2)["id"]
        # finished games left memory to make room, and are listed all the same
        self.assertLessEqual(srv.get("/api/health")[1]["tables"], 3)

        def page(server, query):
            st, r, _ = server.get("/api/tables?status=over" + query)
            self.assertEqual(st, 200, r)
            return r

        full = page(srv, "&limit=100")
        self.assertFalse(full["more"])
        self.assertNotIn("next_before", full)
        got = [t["id"] for t in full["tables"]]
        self.assertEqual(sorted(got), sorted(ids))  # not the private one, not the open one
        keys = [(t["finished_ms"], t["id"]) for t in full["tables"]]
        self.assertEqual(keys, sorted(keys, reverse=True))
        self.assertEqual(len(set(keys)), len(keys))
        at = {t["id"]: t["finished_ms"] for t in full["tables"]}
        self.assertEqual(at[got[0]], at[ids[-1]])  # the last game to end comes first
        self.assertEqual(at[got[-1]], at[ids[0]])
        self.assertEqual(page(srv, "")["tables"], full["tables"])  # the default page holds 20
        for t in full["tables"]:
            self.assertEqual(t["status"], "over")
            self.assertEqual(colours(t), ["blue", "green"])
            self.assertEqual([s["name"] for s in t["seats"]],
                             ["Blue bot (random)", "Green bot (random)"])
            self.assertEqual([s["kind"] for s in t["seats"]], ["bot", "bot"])
            self.assertEqual(t["turn"], 3)
            self.assertEqual(len(t["scores"]), 2)
            self.assertTrue(t["winners"])
            self.assertIn("seed", t["options"])
            self.assertEqual(t["options"]["tiles"], {"U": 2, "E": 1})
            self.assertNotIn("seats", t["options"])
            self.assertGreaterEqual(t["finished_ms"], t["created_ms"])

        def pages(server, limit):
            out, before = [], None
            for _ in range(10):
                r = page(server, "&limit=%d" % limit + ("&before=" + before if before else ""))
                out.append([t["id"] for t in r["tables"]])
                if not r["more"]:
                    self.assertNotIn("next_before", r)
                    return out
                self.assertEqual(r["next_before"], out[-1][-1])
                before = r["next_before"]
            self.fail("paging did not end")

        split = pages(srv, 2)
        self.assertEqual([len(p) for p in split], [2, 2, 1])
        self.assertEqual(sum(split, []), got)  # disjoint, in order, nothing left out
        self.assertEqual(pages(srv, 5), [got])

        # after a restart only the store knows the finished games
        srv.kill()
        srv2 = self.start()
        # (the open table too: it is loaded when asked for)
        self.assertEqual(srv2.get("/api/health")[1]["tables"], 0)
        again = page(srv2, "&limit=100")
        self.assertEqual(again["tables"], full["tables"])
        self.assertEqual(pages(srv2, 3), [got[:3], got[3:]])
        self.assertEqual(srv2.get("/api/health")[1]["tables"], 0)  # listing loads nothing
        replay = srv2.state(got[-1])  # and a replay opens from the store
        self.assertEqual(replay["game"]["next"]["final"]["scores"], full["tables"][-1]["scores"])

        for q in ("&limit=0", "&limit=101", "&limit=-1", "&limit=x", "&limit=", "&limit=2.5",
                  "&limit=1e3", "&before=", "&before=xyz", "&before=" + "0" * 16,
                  "&before=" + waiting, "&before=" + "a" * 40):
            st, r, _ = srv2.get("/api/tables?status=over" + q)
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), q)
            self.assertIn("limit" if "limit" in q else "before", r["error"]["message"], q)
        st, r, _ = srv2.get("/api/tables?status=finished")
        self.assertEqual((st, r["error"]["code"]), (400, "malformed"))

    def test_uploaded_record_is_read_only(self):
        srv = self.start()
        c = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], tiles={"U": 3, "V": 2})
        self.wait_over(srv, c["id"], timeout=5)
        rec = srv.get("/api/tables/%s/record" % c["id"])[1]
        st, up, _ = srv.http("POST", "/api/records", raw=json.dumps(rec))
        self.assertEqual(st, 201)
        vid = up["id"]
        v = srv.state(vid)
        self.assertEqual(len(v["game"]["log"]), 5)
        self.assertEqual(v["game"]["next"]["final"]["scores"], rec["final"]["scores"])
        st, r, _ = srv.post("/api/tables/%s/move" % vid, {"x": 1, "y": 0, "rot": 0}, token="a")
        self.assertEqual((st, r["error"]["code"]), (409, "read_only"))
        rec["turns"][0]["x"] = 40
        st, r, _ = srv.http("POST", "/api/records", raw=json.dumps(rec))
        self.assertEqual((st, r["error"]["code"]), (422, "bad_record"))
        self.assertEqual(srv.http("POST", "/api/records", raw="nope")[0], 422)
        # views survive a restart too
        srv.kill()
        srv2 = self.start()
        self.assertEqual(srv2.state(vid)["game"]["log"], v["game"]["log"])

    def test_sigterm_stops_cleanly_and_keeps_everything(self):
        srv = self.start()
        c = srv.create(players=2, name="a")
        tid, ta = c["id"], c["token"]
        tb = srv.join(tid, "b")["token"]
        bots = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], bot_delay_ms=20)["id"]
        w = self.ws(srv, tid, ta)
        nxt = w.recv_type("state")["game"]["next"]
        w.send(dict(first_legal(nxt), type="move"))
        w.recv_type("move")
        self.ws(srv, bots).recv_type("state")
        srv.proc.send_signal(signal.SIGTERM)
        self.assertEqual(srv.proc.wait(10), 0)
        log = srv.read_log()
        self.assertIn("stopping", log)
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error"):
            self.assertNotIn(bad, log)
        srv2 = self.start()
        g = srv2.state(tid, token=tb)
        self.assertEqual(len(g["game"]["log"]), 1)
        self.assertEqual(g["you"], {"seat": 1})
        self.wait_over(srv2, bots)  # the bots go on after the restart

    def test_a_crowd_of_spectators(self):
        srv = self.start()
        tid = srv.create(players=2)["id"]
        first = self.ws(srv, tid)
        first.recv_type("state")
        crowd = [self.ws(srv, tid) for _ in range(30)]
        for w in crowd:
            w.recv_type("state")
        # comings and goings are announced together, not once per arrival
        tables = []
        deadline = time.time() + 1.0
        while time.time() < deadline:
            try:
                m = first.recv(timeout=max(0.01, deadline - time.time()))
            except TimeoutError:
                break
            if m["type"] == "table":
                tables.append(m)
        self.assertTrue(1 <= len(tables) <= 4, len(tables))
        self.assertEqual(tables[-1]["table"]["spectators"], 31)
        self.assertEqual(srv.get("/api/health")[1]["connections"], 31)

    def test_slow_client_does_not_block_others(self):
        srv = self.start(extra=("--max-queue", "65536"))
        c = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], bot_delay_ms=5)
        tid = c["id"]
        # one watcher never reads; another reads everything
        slow = self.ws(srv, tid, rcvbuf=2048)
        fast = self.ws(srv, tid)
        nxt = fast.recv_type("state")["game"]["next"]
        for _ in range(MAX_TURNS):
            if nxt["over"]:
                break
            nxt = fast.recv_type("move", timeout=10)["next"]
        self.assertTrue(nxt["over"])
        self.assertEqual(srv.get("/api/health")[0], 200)
        slow.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
