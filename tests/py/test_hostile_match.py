"""Quick match and ratings against abuse (issue 26, findings 1, 6, 7 and
part of 13), each found by a tester on one SQLite server and each a test
that failed before its fix:

1. quick match filled the site: a matched table belonged to no address,
   so no per-address limit counted it (one address with two accounts got
   10 clocked tables where --max-tables-share allowed 2; two addresses
   filled --max-tables). Now a matched table counts against the address
   and the account of everyone seated (the address travels with the queue
   entry); a person over their share is refused at join, and one found
   over it when the table is made is left out while the others go back to
   the queue;
6. ratings farmed with one's own fresh accounts (1500 to 1958.8 in eight
   games of ten moves and a resignation). Now a result against a
   provisional account moves no rating (docs/server.md, "Ratings"), and
   the leaderboard lists only established accounts; a real newcomer who
   beats established players still moves as Glicko-2 says;
7. a parked account was paired with every real person in its pool, who
   waited out its clock. Now a seat that does not make its first move in
   time voids the table (unrated), its account is held out of the queue
   (longer for each repeat), it cannot be matched again while a table
   waits for its first move, and the people who came go back to the
   queue first, their join not counted;
13 (part). /api/leaderboard?limit=200 answered 200 where the protocol says
   1..128.

Quick match also prefers people one has not just played (--match-recent).

    CARC=build/test/carc python3 tests/py/test_hostile_match.py

Also on PostgreSQL (tests/pg/run.sh lists it: CARC_TEST_DB).
"""
import http.client
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import HOST, PG_ADMIN, ServerCase, connect_db, first_legal, psql  # noqa: E402
from carcserver import pg_url_for  # noqa: E402
from test_accounts import glicko2  # noqa: E402

PW = "correct horse"
# the limits that would get in the way of many accounts from one address
OPEN = ["--rate-logins", "0", "--auth-queue-per-addr", "0", "--rate-match", "0",
        "--rate-match-account", "0", "--match-poll-ms", "0", "--rate-requests", "0",
        "--rate-tables", "0"]
TB = {"players": 2, "rules": "base", "clock": "tb-1d"}
RT = {"players": 2, "rules": "base", "clock": "rt-60"}


class Person:
    """One browser with an account, from one loopback address."""

    def __init__(self, srv, src="127.0.0.1"):
        self.srv, self.src, self.session = srv, src, None

    def call(self, method, path, body=None, token=None):
        if method == "POST" and body is None:
            body = {}
        hdrs = {"Origin": "http://%s:%d" % (HOST, self.srv.port)}
        if self.session:
            hdrs["Cookie"] = "carc_session=" + self.session
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        if token:
            hdrs["Authorization"] = "Bearer " + token
        conn = http.client.HTTPConnection(HOST, self.srv.port, timeout=10,
                                          source_address=(self.src, 0))
        try:
            conn.request(method, path, body=data, headers=hdrs)
            r = conn.getresponse()
            text = r.read().decode(errors="replace")
            hd = {k.lower(): v for k, v in r.getheaders()}
        finally:
            conn.close()
        sc = hd.get("set-cookie") or ""
        first = sc.split(";")[0].strip()
        if first.startswith("carc_session="):
            self.session = first.split("=", 1)[1] or None
        try:
            val = json.loads(text)
        except ValueError:
            val = text
        return r.status, val, hd


class MatchCase(ServerCase):

    def person(self, srv, name, src="127.0.0.1"):
        p = Person(srv, src)
        st, r, _ = p.call("POST", "/api/account/register", {"name": name, "password": PW})
        self.assertEqual(st, 201, r)
        p.name = name
        return p

    def join(self, p, choice=RT):
        st, r, _ = p.call("POST", "/api/match", choice)
        return st, r

    def poll(self, p):
        return p.call("GET", "/api/match")[:2]

    def matched(self, p, timeout=10):
        end = time.time() + timeout
        r = None
        while time.time() < end:
            st, r = self.poll(p)
            self.assertEqual(st, 200, r)
            if r["state"] == "matched" and r["ready"]:
                return r
            time.sleep(0.03)
        self.fail("%s not matched in %d s: %r" % (p.name, timeout, r))

    def pair(self, a, b, choice=RT):
        """a and b join one after the other and meet: the table's id."""
        st, r = self.join(a, choice)
        self.assertEqual(st, 201, r)
        st, r = self.join(b, choice)
        self.assertEqual(st, 201, r)
        ma, mb = self.matched(a), self.matched(b)
        self.assertEqual(ma["table"], mb["table"])
        return ma["table"]

    def claim(self, p, tid):
        st, r, _ = p.call("POST", "/api/tables/%s/claim" % tid)
        self.assertEqual(st, 200, r)
        return r["seat"], r["token"]

    def moves(self, srv, tid, tokens, n, seats=None, timeout=30):
        """Moves for the seats in tokens (seat -> token) until every seat of
        `seats` (default: those) has n moves in the log (a discarded tile
        is a turn, and its player draws again: a bot's tenth move may need
        an eleventh of ours first)."""
        seats = list(tokens) if seats is None else seats
        end = time.time() + timeout
        while time.time() < end:
            st = srv.state(tid)
            log = st["game"]["log"]
            if all(len([e for e in log if e["player"] == s]) >= n for s in seats):
                return
            nxt = st["game"]["next"]
            self.assertFalse(nxt["over"] or st["table"]["status"] == "over", st["table"])
            seat = nxt["to_move"]
            if seat in tokens:
                code, r, _ = srv.post("/api/tables/%s/move" % tid,
                                      dict(first_legal(nxt), turn=nxt["turn"]),
                                      token=tokens[seat])
                self.assertIn(code, (200, 409), r)
            else:
                time.sleep(0.02)
        self.fail("table %s: the moves were not made in %d s" % (tid, timeout))

    def resign(self, p, tid, token, timeout=10):
        """Resigns the seat of `token`; while the seat's last move is being
        stored the server answers 409 stale_turn "try again" (the moves
        above return when the log shows the move, before its commit)."""
        end = time.time() + timeout
        while True:
            st, r, _ = p.call("POST", "/api/tables/%s/resign" % tid, {}, token=token)
            if st != 409 or r.get("error", {}).get("code") != "stale_turn" or time.time() > end:
                return st, r
            time.sleep(0.05)

    def farm_game(self, srv, winner, loser, tid):
        """Ten own moves each (--rated-min-moves), then the loser resigns."""
        sw, tw = self.claim(winner, tid)
        sl, tl = self.claim(loser, tid)
        self.moves(srv, tid, {sw: tw, sl: tl}, 10)
        st, r = self.resign(loser, tid, tl)
        self.assertEqual(st, 200, r)
        self.wait_over(srv, tid)

    def account(self, srv, name):
        db = connect_db(srv.db)
        row = db.execute("SELECT rating, rd, vol, games FROM accounts WHERE name='%s'"
                         % name).fetchall()[0]
        db.close()
        return {"r": float(row[0]), "rd": float(row[1]), "vol": float(row[2]), "games": row[3]}

    def sql(self, srv, statement):
        db = connect_db(srv.db)
        db.execute(statement)
        getattr(db, "commit", lambda: None)()
        db.close()

    def board_names(self, srv):
        st, lb, _ = srv.get("/api/leaderboard?limit=128")
        self.assertEqual(st, 200, lb)
        return [p["name"] for p in lb["players"]]


# ---- 1. a matched table counts against the people seated -----------------------------------


class ShareTest(MatchCase):

    def test_one_address_with_many_accounts_gets_its_share_of_matched_tables(self):
        """Before: ten turn-based tables (they hold their place for days)
        where --max-tables-share allows two."""
        srv = self.start(extra=OPEN + ["--max-tables", "20", "--max-tables-share", "10"])
        made, refused = [], []
        for i in range(10):
            a = self.person(srv, "a%02d" % i, "127.0.0.2")
            b = self.person(srv, "b%02d" % i, "127.0.0.2")
            st, r = self.join(a, TB)
            if st != 201:
                refused.append((st, r))
                continue
            st, r = self.join(b, TB)
            if st != 201:
                refused.append((st, r))
                a.call("POST", "/api/match/leave")
                continue
            made.append(self.matched(a)["table"])
        print("\none address, 20 accounts: %d matched tables, %d joins refused"
              % (len(made), len(refused)), file=sys.stderr)
        self.assertEqual(len(made), 2, made)
        self.assertEqual(len(refused), 8)
        for st, r in refused:
            self.assertEqual((st, r.get("error", {}).get("code")), (429, "too_many_tables"), r)
            self.assertIn("--max-tables-share", r["error"]["message"])
        # another address still makes a table that needs its place
        other = Person(srv, "127.0.0.3")
        st, r, _ = other.call("POST", "/api/tables", {"seats": [{"bot": "random"},
                                                                 {"bot": "random"}],
                                                       "bot_delay_ms": 60000})
        self.assertEqual(st, 201, r)

    def test_two_addresses_cannot_fill_the_server(self):
        """Before: people of two addresses matched with each other filled
        --max-tables, and then a third address's new table got 503 busy."""
        srv = self.start(extra=OPEN + ["--max-tables", "10", "--max-tables-share", "20"])
        made = 0
        for i in range(6):
            a = self.person(srv, "c%02d" % i, "127.0.0.2")
            b = self.person(srv, "d%02d" % i, "127.0.0.3")
            if self.join(a, TB)[0] != 201:
                continue
            if self.join(b, TB)[0] != 201:
                a.call("POST", "/api/match/leave")
                continue
            self.matched(a)
            made += 1
        self.assertEqual(made, 2)  # each table counts against both addresses
        third = Person(srv, "127.0.0.4")
        for _ in range(2):
            st, r, _ = third.call("POST", "/api/tables", {"seats": [{"bot": "random"},
                                                                     {"bot": "random"}],
                                                           "bot_delay_ms": 60000})
            self.assertEqual(st, 201, r)

    def test_over_the_share_when_the_table_is_made_the_others_go_back_first(self):
        """Someone who was under the share at the join and is over it when
        a table is made for them is not seated; the other goes back to the
        queue (its place kept) and meets the next person."""
        srv = self.start(extra=OPEN + ["--max-tables", "20", "--max-tables-share", "10"])
        x = self.person(srv, "xaver", "127.0.0.2")
        y = self.person(srv, "yvonne", "127.0.0.5")
        z = self.person(srv, "zora", "127.0.0.6")
        st, r = self.join(x, TB)
        self.assertEqual(st, 201, r)
        # now x's address makes two tables that need their place: its share
        maker = Person(srv, "127.0.0.2")
        for _ in range(2):
            st, r, _ = maker.call("POST", "/api/tables", {"seats": [{"bot": "random"},
                                                                     {"bot": "random"}],
                                                           "bot_delay_ms": 60000})
            self.assertEqual(st, 201, r)
        st, r = self.join(y, TB)
        self.assertEqual(st, 201, r)
        time.sleep(0.5)
        st, r = self.poll(y)
        self.assertEqual((st, r["state"]), (200, "waiting"), r)
        st, r = self.poll(x)
        self.assertEqual((st, r.get("error", {}).get("code")), (429, "too_many_tables"), r)
        self.assertEqual(self.poll(x)[1]["state"], "none")  # told once, then out
        st, r = self.join(z, TB)
        self.assertEqual(st, 201, r)
        my, mz = self.matched(y), self.matched(z)
        self.assertEqual(my["table"], mz["table"])
        st, info, _ = srv.get("/api/tables/" + my["table"])
        self.assertEqual(sorted(s["name"] for s in info["seats"]), ["yvonne", "zora"])
        self.assertNotIn("match_failed", srv.read_log())


# ---- 6. ratings that cannot be bought with fresh accounts ----------------------------------


class FarmTest(MatchCase):
    # the window is no matter here: an account of 700 meets one of 1500 at once
    START = OPEN + ["--match-window", "2000", "--match-window-max", "2000"]

    def test_a_fresh_farmer_gains_nothing_from_fresh_accounts(self):
        """Before: 1500 -> 1958.8 in eight games, first on the leaderboard."""
        srv = self.start(extra=self.START)
        farmer = self.person(srv, "farmer")
        for i in range(8):
            victim = self.person(srv, "victim%d" % i)
            self.farm_game(srv, farmer, victim, self.pair(farmer, victim))
        f = self.account(srv, "farmer")
        print("\nfresh farmer after 8 wins over fresh accounts: %.1f (rd %.1f, %d games)"
              % (f["r"], f["rd"], f["games"]), file=sys.stderr)
        self.assertEqual(f["games"], 8)  # rated games...
        self.assertLessEqual(f["r"], 1560)  # ...that buy nothing
        self.assertNotIn("farmer", self.board_names(srv))

    def establish_against_bots(self, srv, p):
        """Ten rated games against three bot levels (resigning after ten
        moves): an established account by the default thresholds."""
        for level in ("random", "easy", "medium") * 3 + ("random",):
            st, t, _ = p.call("POST", "/api/tables", {"name": "x", "bot_delay_ms": 0,
                                                      "seats": [{}, {"bot": level}]})
            self.assertEqual(st, 201, t)
            self.moves(srv, t["id"], {0: t["token"]}, 10, seats=[0, 1])
            st, r = self.resign(p, t["id"], t["token"])
            self.assertEqual(st, 200, r)
            self.wait_over(srv, t["id"])

    def test_an_established_farmer_gains_nothing_from_fresh_accounts(self):
        srv = self.start(extra=self.START)
        farmer = self.person(srv, "oldhand")
        self.establish_against_bots(srv, farmer)
        before = self.account(srv, "oldhand")
        self.assertEqual(before["games"], 10, "\n".join(
            x for x in srv.read_log().splitlines() if "rated" in x or "over" in x))
        self.assertIn("oldhand", self.board_names(srv))
        for i in range(8):
            victim = self.person(srv, "fresh%d" % i)
            self.farm_game(srv, farmer, victim, self.pair(farmer, victim))
        after = self.account(srv, "oldhand")
        print("\nestablished farmer after 8 wins over fresh accounts: %.1f -> %.1f"
              % (before["r"], after["r"]), file=sys.stderr)
        self.assertEqual(after["games"], 18)
        self.assertLessEqual(after["r"] - before["r"], 60)
        names = self.board_names(srv)
        self.assertIn("oldhand", names)
        self.assertFalse([n for n in names if n.startswith("fresh")], names)

    def test_a_real_newcomer_beating_established_players_moves_as_before(self):
        """Eight wins of a new account over established players: its rating
        moves exactly as Glicko-2 says (recomputed here); theirs does not
        move for a result against a provisional account."""
        srv = self.start(extra=self.START)
        newcomer = self.person(srv, "newcomer")
        olds = [self.person(srv, "old%d" % i) for i in range(8)]
        self.sql(srv, "UPDATE accounts SET rating=1500, rd=80, games=40, est_games=40,"
                      " opponents=12, established=1 WHERE name LIKE 'old%'")
        me = {"r": 1500.0, "rd": 350.0, "vol": 0.06}
        for o in olds:
            tid = self.pair(newcomer, o)
            self.farm_game(srv, newcomer, o, tid)
            r, rd, vol = glicko2(dict(me, points=1, forfeited=0),
                                 [{"r": 1500.0, "rd": 80.0, "points": 0, "forfeited": 1}])
            me.update(r=r, rd=rd, vol=vol)
        got = self.account(srv, "newcomer")
        print("\nnewcomer after 8 wins over established 1500/80: %.1f (rd %.1f); Glicko-2 says"
              " %.1f" % (got["r"], got["rd"], me["r"]), file=sys.stderr)
        self.assertAlmostEqual(got["r"], me["r"], places=6)
        self.assertAlmostEqual(got["rd"], me["rd"], places=6)
        for o in olds:
            a = self.account(srv, o.name)
            self.assertEqual((a["r"], a["rd"], a["games"]), (1500, 80, 41))


# ---- 7. a no-show voids the table and is held out -------------------------------------------


class NoShowTest(MatchCase):

    def wait_void(self, srv, tid, timeout=20):
        info = self.wait_over(srv, tid, timeout)
        st = srv.state(tid)
        return info, st["table"]["clock"]["ended"]

    def test_a_no_show_voids_the_table_and_is_held_out(self):
        srv = self.start(extra=OPEN + ["--rate-match-account", "1", "--match-first-move", "2",
                                       "--match-hold", "4"])
        came = self.person(srv, "came", "127.0.0.2")
        parked = self.person(srv, "parked", "127.0.0.3")
        tid = self.pair(came, parked)
        # the parked account may not queue again while its table waits for it
        st, r = self.join(parked)
        self.assertEqual((st, r.get("error", {}).get("code")), (409, "match_pending"), r)
        self.assertEqual(r["error"]["table"], tid)
        seat, token = self.claim(came, tid)
        t0 = time.time()
        # the one who came plays its first move when it is its turn
        while time.time() - t0 < 10:
            st = srv.state(tid)
            if st["table"]["status"] == "over":
                break
            nxt = st["game"]["next"]
            if nxt["to_move"] == seat and not any(e["player"] == seat for e in st["game"]["log"]):
                srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt), turn=nxt["turn"]),
                         token=token)
            time.sleep(0.05)
        info, ended = self.wait_void(srv, tid)
        self.assertIsNotNone(ended, "the table is over with no void in its clock: %s; the "
                             "server's log ends:\n%s" % (srv.state(tid)["table"],
                                                          srv.read_log()[-6000:]))
        self.assertEqual(ended["reason"], "no_show", ended)
        self.assertEqual(ended["seat"], 1 - seat)
        self.assertEqual(ended["winners"], [])
        # void: nobody is rated
        for name in ("came", "parked"):
            a = self.account(srv, name)
            self.assertEqual((a["r"], a["games"]), (1500, 0), name)
        # the no-show is held out
        st, r = self.join(parked)
        self.assertEqual((st, r.get("error", {}).get("code")), (429, "held_out"), r)
        self.assertIn("--match-hold", r["error"]["message"])
        self.assertTrue(3 <= r["error"]["retry_after_s"] <= 4, r)
        # the one who came goes back first: its join is not counted against
        # --rate-match-account (1) and it waits from when the table was made
        st, r = self.join(came)
        self.assertEqual(st, 201, r)
        self.assertGreaterEqual(r["waited_ms"], (time.time() - t0) * 1000 - 500)
        came.call("POST", "/api/match/leave")
        self.assertIn("event=void", srv.read_log())
        # the table said it was a quick match; its rematch is not one
        self.assertEqual(info["options"]["match"], "2/base/rt-60")
        st, rm, _ = came.call("POST", "/api/tables/%s/rematch" % tid, {}, token=token)
        self.assertEqual(st, 200, rm)
        self.assertNotIn("match", rm["table"]["options"])

    def test_a_client_cannot_make_a_quick_match_table(self):
        srv = self.start()
        st, r, _ = srv.post("/api/tables", {"match": "2/base/rt-30"})
        self.assertEqual((st, r.get("error", {}).get("code")), (400, "bad_option"), r)
        self.assertIn("unknown option 'match'", r["error"]["message"])

    def test_repeated_no_shows_are_held_out_longer(self):
        srv = self.start(extra=OPEN + ["--match-first-move", "1", "--match-hold", "2"])
        parked = self.person(srv, "sleeper", "127.0.0.3")
        holds = []
        for i in range(2):
            came = self.person(srv, "came%d" % i, "127.0.0.2")
            tid = self.pair(came, parked)
            seat, token = self.claim(came, tid)
            end = time.time() + 10
            while time.time() < end and srv.state(tid)["table"]["status"] != "over":
                st = srv.state(tid)
                nxt = st["game"]["next"]
                if nxt["to_move"] == seat and not st["game"]["log"]:
                    srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt), turn=0),
                             token=token)
                time.sleep(0.05)
            self.wait_void(srv, tid)
            st, r = self.join(parked)
            self.assertEqual((st, r.get("error", {}).get("code")), (429, "held_out"), r)
            holds.append(r["error"]["retry_after_s"])
            time.sleep(r["error"]["retry_after_s"] + 0.2)
        print("\nholds of two no-shows in a row: %s s" % holds, file=sys.stderr)
        self.assertEqual(holds, [2, 4])
        st, r = self.join(parked)  # the hold is over
        self.assertEqual(st, 201, r)


# ---- quick match prefers people one has not just played -------------------------------------


class RecentTest(MatchCase):

    def played(self, srv, a, b):
        """a and b meet and their game ends at once (a resigns)."""
        tid = self.pair(a, b)
        _, ta = self.claim(a, tid)
        st, r = self.resign(a, tid, ta)
        self.assertEqual(st, 200, r)
        self.wait_over(srv, tid)

    def test_someone_new_is_met_before_a_recent_opponent(self):
        """Before: the two who had just played met again at once."""
        srv = self.start(extra=OPEN + ["--match-recent-wait", "30"])
        a, b, c = (self.person(srv, n) for n in ("anna", "bert", "cleo"))
        self.played(srv, a, b)
        self.assertEqual(self.join(a)[0], 201)
        self.assertEqual(self.join(b)[0], 201)
        time.sleep(1)
        self.assertEqual(self.poll(a)[1]["state"], "waiting")
        self.assertEqual(self.poll(b)[1]["state"], "waiting")
        self.assertEqual(self.join(c)[0], 201)
        mc = self.matched(c)
        self.assertEqual(self.matched(a)["table"], mc["table"])  # the longest waiting
        self.assertEqual(self.poll(b)[1]["state"], "waiting")

    def test_a_recent_opponent_is_met_after_the_wait(self):
        srv = self.start(extra=OPEN + ["--match-recent-wait", "2"])
        a, b = self.person(srv, "dora"), self.person(srv, "emil")
        self.played(srv, a, b)
        t0 = time.time()
        self.assertEqual(self.join(a)[0], 201)
        self.assertEqual(self.join(b)[0], 201)
        ma, mb = self.matched(a), self.matched(b)
        waited = time.time() - t0
        self.assertEqual(ma["table"], mb["table"])
        self.assertGreaterEqual(waited, 1.8)
        self.assertLess(waited, 10)


# ---- 13. the leaderboard's page ---------------------------------------------------------------


class LeaderboardTest(MatchCase):

    def test_limit_is_1_to_128(self):
        """Before: limit=200 answered 200."""
        srv = self.start()
        for q, want in (("200", 400), ("129", 400), ("128", 200), ("1", 200), ("0", 400)):
            st, r, _ = srv.get("/api/leaderboard?limit=" + q)
            self.assertEqual(st, want, (q, r))
            if want == 400:
                self.assertEqual(r["error"]["code"], "malformed")
                self.assertIn("1 to 128", r["error"]["message"])

    def test_the_board_is_read_through_its_partial_index(self):
        srv = self.start()
        q = ("SELECT id, name, '', created_ms, rating, rd, vol, games FROM accounts"
             " WHERE established = 1 ORDER BY rating DESC, name LIMIT 51 OFFSET 0")
        if PG_ADMIN:
            # an empty table: the planner is told to use an index, and which one
            # it takes and whether it sorts after is what is looked at
            plan = psql(pg_url_for(srv.db), "SET enable_seqscan = off; SET enable_bitmapscan = off;"
                                            " EXPLAIN " + q)
            self.assertIn("accounts_board", plan)
            self.assertNotIn("Sort", plan)
        else:
            db = connect_db(srv.db)
            plan = " ".join(r[-1] for r in db.execute("EXPLAIN QUERY PLAN " + q))
            db.close()
            self.assertIn("accounts_board", plan)
            self.assertNotIn("TEMP B-TREE", plan)


if __name__ == "__main__":
    unittest.main(verbosity=2)
