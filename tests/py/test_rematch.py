"""Rematches keep the table's clock and follow the accounts (issue 22,
defects 1 and 2) against the real server on loopback:

- the rematch of a 30 s + 1:00 reserve table has the same clock options
  and starts with the full reserve on every seat (it had 0);
- a rematch of two accounts is in both accounts' "my games" (open, then
  playing), a second browser of an account claims the seat kept for it
  (POST /api/tables/<id>/claim, with the account's own token), the seats
  are stored with their accounts, and the rematch is rated exactly like
  the first game (the standard pile, --rated-min-moves);
- a rematch on a custom pile stays unrated, as its first game.

    CARC=build/release/carc python3 tests/py/test_rematch.py

tests/py/test_pg_rematch.py runs the same with the two players on two
processes of one PostgreSQL database.
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, connect_db, first_legal  # noqa: E402
from test_accounts import Client  # noqa: E402

CLOCK = {"mode": "realtime", "move_s": 30, "reserve_s": 60, "max_timeouts": 2,
         "takeover": "random"}
SHORT = {"U": 2, "E": 1}  # a pile of three tiles (never rated)


def play_out(case, clients, tid, tokens, timeout=60):
    """Plays first legal moves for every seat (tokens: seat -> token, each
    seat through its own client clients[seat]) until the game ends."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        st, s, _ = clients[0].call("GET", "/api/tables/%s/state" % tid)
        case.assertEqual(st, 200, s)
        nxt = s["game"]["next"]
        if nxt["over"] or s["table"]["status"] == "over":
            break
        if s["table"]["status"] != "playing":
            time.sleep(0.02)
            continue
        seat = nxt["to_move"]
        st, r, _ = clients[seat].call("POST", "/api/tables/%s/move" % tid,
                                      dict(first_legal(nxt), turn=nxt["turn"]),
                                      token=tokens[seat])
        case.assertIn(st, (200, 409), r)
    else:
        case.fail("game %s did not end" % tid)
    while time.time() < deadline:
        st, info, _ = clients[0].call("GET", "/api/tables/" + tid)
        if st == 200 and info["status"] == "over":
            return info
        time.sleep(0.05)
    case.fail("game %s did not end" % tid)


def first_game(case, alice, bob, **opts):
    """A two-player game of accounts Alice (seat 0) and Bob (seat 1)
    played to its end: (table id, {seat: token})."""
    body = {"name": "x", "players": 2}
    body.update(opts)
    st, t, _ = alice.call("POST", "/api/tables", body)
    case.assertEqual(st, 201, t)
    tid = t["id"]
    st, j, _ = bob.call("POST", "/api/tables/%s/join" % tid, {"name": "x"})
    case.assertEqual(st, 200, j)
    tokens = {0: t["token"], 1: j["token"]}
    play_out(case, {0: alice, 1: bob}, tid, tokens)
    return tid, tokens


def my_games(client):
    st, g, _ = client.call("GET", "/api/me/games")
    assert st == 200, g
    return {x["id"]: x for x in g["games"]}


def wait_for(pred, timeout=10, what="a condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("%s did not hold within %d s" % (what, timeout))


def check_rematch(case, a1, b1, a2, b2, db_rows):
    """The whole story on clients a1/b1 (first browsers of Alice and Bob)
    and a2/b2 (their second browsers, possibly on other processes).
    db_rows(sql, args) reads the store. Returns the rematch's id."""
    tid, tokens = first_game(case, a1, b1, clock=CLOCK)
    rated = db_rows("SELECT account FROM ratings WHERE game_id=%s", (tid,))
    case.assertEqual(len(rated), 2, "the first game is rated")
    first = a1.call("GET", "/api/tables/" + tid)[1]
    case.assertEqual(first["clock"]["seats"][0]["reserve_ms"], 60000)
    # Alice asks for the rematch from her first browser (her old seat's token)
    st, r, _ = a1.call("POST", "/api/tables/%s/rematch" % tid, {"token": tokens[0]})
    case.assertEqual(st, 200, r)
    nid, aseat = r["id"], r["seat"]
    case.assertEqual(aseat, 1)  # seats rotate: Bob starts
    # defect 1: the full clock, every option and the reserve on both seats
    info = r["table"]
    for k in ("mode", "move_s", "reserve_s", "takeover", "max_timeouts"):
        case.assertEqual(info["options"]["clock"][k], first["options"]["clock"][k], k)
    case.assertEqual([s["reserve_ms"] for s in info["clock"]["seats"]], [60000, 60000])
    # defect 2: Alice's token is her account's (another browser gets the same)
    st, c, _ = a2.call("POST", "/api/tables/%s/claim" % nid)
    case.assertEqual((st, c.get("seat"), c.get("token")), (200, aseat, r["token"]), c)
    # the open rematch is in both accounts' games, Bob's seat kept for him
    for cl in (a1, a2, b1, b2):
        g = wait_for(lambda: my_games(cl).get(nid), what="the rematch in my games")
        case.assertEqual(g["status"], "open")
    case.assertEqual(my_games(b2)[nid]["seat"], 0)
    case.assertEqual(b2.call("GET", "/api/tables/" + nid)[1]["seats"][0].get("reserved"),
                     True)
    # Bob's second browser picks it up: the seat kept for him, with his token
    st, c, _ = b2.call("POST", "/api/tables/%s/claim" % nid)
    case.assertEqual((st, c.get("seat")), (200, 0), c)
    btoken = c["token"]
    # the first browser asking later gets the same seat and token
    st, c1, _ = b1.call("POST", "/api/tables/%s/claim" % nid)
    case.assertEqual((st, c1.get("token")), (200, btoken), c1)
    # ... and a stranger nothing
    m = Client(a1.srv)
    m.register("Mallory%d" % int(time.time() * 1000 % 100000))
    st, e, _ = m.call("POST", "/api/tables/%s/claim" % nid)
    case.assertEqual((st, e["error"]["code"]), (403, "bad_token"))
    info = wait_for(lambda: (lambda i: i if i["status"] == "playing" else None)(
        a1.call("GET", "/api/tables/" + nid)[1]), what="the rematch playing")
    case.assertEqual([s["reserve_ms"] for s in info["clock"]["seats"]], [60000, 60000])
    case.assertGreater(info["clock"]["deadline_ms"] - info["clock"]["turn_start_ms"], 60000,
                       "the first deadline is move_s plus the reserve")
    case.assertEqual(my_games(b1)[nid]["status"], "playing")
    case.assertTrue(my_games(b2)[nid]["your_turn"])
    accounts = db_rows("SELECT seat, account FROM seats WHERE game_id=%s ORDER BY seat", (nid,))
    case.assertEqual([int(a) for _, a in accounts], [2, 1])
    # played to the end from the second browsers: rated like the first game
    play_out(case, {0: b2, 1: a2}, nid, {0: btoken, 1: r["token"]})
    rated = wait_for(lambda: db_rows("SELECT account FROM ratings WHERE game_id=%s", (nid,)),
                     what="the rematch's ratings")
    case.assertEqual(sorted(int(a) for (a,) in rated), [1, 2])
    for cl in (a1, b2):
        st, p, _ = cl.call("GET", "/api/me")
        case.assertEqual(p["account"]["games"], 2, p)
    return nid


class RematchAccountsTest(ServerCase):
    def accounts(self, srv):
        a1, b1 = Client(srv), Client(srv)
        self.assertEqual(a1.register("Alice")[0], 201)
        self.assertEqual(b1.register("Bob")[0], 201)
        a2, b2 = Client(srv), Client(srv)
        self.assertEqual(a2.login("Alice")[0], 200)
        self.assertEqual(b2.login("bob")[0], 200)
        return a1, b1, a2, b2

    def rows(self, srv):
        def q(sql, args):
            con = connect_db(srv.db)
            try:
                return [tuple(r) for r in con.execute(sql.replace("%s", "?"), args)]
            finally:
                con.close()
        return q

    def test_a_rematch_keeps_the_clock_follows_the_accounts_and_is_rated(self):
        srv = self.start()
        a1, b1, a2, b2 = self.accounts(srv)
        check_rematch(self, a1, b1, a2, b2, self.rows(srv))

    def test_the_old_token_after_the_account_took_the_seat_elsewhere(self):
        # Bob's second browser accepted through the account; his first one
        # then asks with the old seat's token: the seat is his already
        srv = self.start()
        a1, b1, a2, b2 = self.accounts(srv)
        tid, tokens = first_game(self, a1, b1, tiles=SHORT)
        st, r, _ = a1.call("POST", "/api/tables/%s/rematch" % tid, {"token": tokens[0]})
        self.assertEqual(st, 200, r)
        nid = r["id"]
        st, c, _ = b2.call("POST", "/api/tables/%s/claim" % nid)
        self.assertEqual(st, 200, c)
        st, e, _ = b1.call("POST", "/api/tables/%s/rematch" % tid, {"token": tokens[1]})
        self.assertEqual((st, e["error"]["code"]), (409, "seat_taken"))
        st, c1, _ = b1.call("POST", "/api/tables/%s/claim" % nid)
        self.assertEqual((st, c1["token"]), (200, c["token"]))
        play_out(self, {0: b1, 1: a1}, nid, {0: c["token"], 1: r["token"]})
        # a custom pile is unrated, the rematch as its first game
        self.assertEqual(self.rows(srv)("SELECT count(*) FROM ratings", ()), [(0,)])

    def test_a_guest_rematch_seat_is_not_claimed_by_an_account(self):
        srv = self.start()
        a1 = Client(srv)
        a1.register("Alice")
        st, t, _ = a1.call("POST", "/api/tables", {"name": "x", "players": 2, "tiles": SHORT})
        tid = t["id"]
        g = srv.join(tid, "Guest")
        play_out(self, {0: a1, 1: a1}, tid, {0: t["token"], 1: g["token"]})
        st, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": g["token"]})
        self.assertEqual(st, 200, r)
        nid = r["id"]
        # Alice's seat is kept for her account; the guest's seat is the guest's
        self.assertIn(nid, my_games(a1))
        st, c, _ = a1.call("POST", "/api/tables/%s/claim" % nid)
        self.assertEqual((st, c["seat"]), (200, 1))
        self.assertNotEqual(c["token"], r["token"])
        self.assertEqual(srv.get("/api/tables/" + nid)[1]["status"], "playing")


if __name__ == "__main__":
    unittest.main()
