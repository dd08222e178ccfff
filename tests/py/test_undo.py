"""Training against bots: taking moves back after confirming them
(src/server/table/undo.c, docs/server.md "Training against bots").

At a table where one person plays and every other seat is a bot, without
a clock and in a game that would not be rated, the person may undo as many
of their own moves as they ask: the game goes back to their k-th latest
turn, the bots' moves after it are taken back too, the store drops the
moves, a bot thinking meanwhile is stopped and its answer discarded, and
the record holds only the moves that stand (it replays with `carc
replay`). Everything else is refused, and the requests are limited per
address and per table. A table made with "rated": false is such a table
for a logged-in person too: the game changes no rating, and its rematch
stays unrated.
"""
import http.client
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, HOST, ServerCase, connect_db, first_legal  # noqa: E402

MAX_TURNS = 200


class UndoCase(ServerCase):

    def bot_table(self, srv, level="random", seed=7, **extra):
        body = {"seats": [{}, {"bot": level}], "name": "me", "seed": seed}
        body.update(extra)
        c = srv.create(**body)
        return c["id"], c["token"]

    def my_turn(self, srv, tid, token, seat=0, timeout=15):
        """The state once seat is to move (the bots have played)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = srv.state(tid, token)
            nxt = s["game"]["next"]
            if nxt["over"] or nxt["to_move"] == seat:
                return s
            time.sleep(0.02)
        self.fail("seat %d never came to move" % seat)

    def play(self, srv, tid, token, n, seat=0):
        """Plays n moves of the seat (each after the bots' replies); returns
        the turn numbers the seat played."""
        turns = []
        for _ in range(n):
            s = self.my_turn(srv, tid, token, seat)
            nxt = s["game"]["next"]
            self.assertFalse(nxt["over"])
            st, r, _ = srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt), turn=nxt["turn"]),
                                token=token)
            self.assertEqual(st, 200, r)
            turns.append(nxt["turn"])
        return turns

    def play_out(self, srv, tid, token, seat=0):
        """Plays the seat's first legal moves until the game is over; returns
        the game's last `next` (with `final`)."""
        deadline = time.time() + 60
        while time.time() < deadline:
            nxt = self.my_turn(srv, tid, token, seat)["game"]["next"]
            if nxt["over"]:
                self.wait_over(srv, tid)
                return nxt
            st, r, _ = srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt), turn=nxt["turn"]),
                                token=token)
            self.assertEqual(st, 200, r)
        self.fail("game %s did not end" % tid)

    def register(self, srv, name):
        """A new account: the headers of its browser (the session cookie and
        the page's Origin)."""
        origin = {"Origin": "http://%s:%d" % (HOST, srv.port)}
        st, r, h = srv.post("/api/account/register", {"name": name, "password": "a long password 1"},
                            headers=origin)
        self.assertEqual(st, 201, r)
        return dict(origin, Cookie=h.get("Set-Cookie", h.get("set-cookie", "")).split(";")[0])

    def rating(self, srv, name):
        """An account's (rating, rated games) as its profile shows them."""
        st, p, _ = srv.get("/api/player?name=" + name)
        self.assertEqual(st, 200, p)
        return p["rating"], p["games"]

    def undo(self, srv, tid, token, moves=None, **kw):
        body = {} if moves is None else {"moves": moves}
        return srv.post("/api/tables/%s/undo" % tid, body, token=token, **kw)

    def stored_moves(self, srv, tid):
        con = connect_db(srv.db)
        try:
            return [r[0] for r in con.execute(
                "SELECT turn FROM moves WHERE game_id=? ORDER BY turn", (tid,))]
        finally:
            con.close()

    def replay(self, rec):
        path = os.path.join(self.dir, "rec-%s.json" % rec["table"])
        with open(path, "w") as f:
            json.dump(rec, f)
        p = subprocess.run([CARC, "replay", "--json", path], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return json.loads(p.stdout.strip().splitlines()[-1])


class UndoTest(UndoCase):

    def test_undo_one_and_several_moves(self):
        srv = self.start()
        tid, tok = self.bot_table(srv)
        self.assertEqual(srv.get("/api/tables/" + tid)[1]["undo_seat"], 0)
        mine = self.play(srv, tid, tok, 5)
        self.my_turn(srv, tid, tok)
        # one: back to my latest turn, the bot's move after it taken back
        st, r, _ = self.undo(srv, tid, tok)
        self.assertEqual(st, 200, r)
        self.assertEqual((r["undone"], r["turn"], r["undos"]), (1, mine[-1], 1))
        s = srv.state(tid, tok)
        self.assertEqual(s["game"]["next"]["turn"], mine[-1])
        self.assertEqual(s["game"]["next"]["to_move"], 0)
        self.assertEqual(len(s["game"]["log"]), mine[-1])
        self.assertEqual(s["table"]["undos"], 1)
        self.assertEqual(self.stored_moves(srv, tid), list(range(mine[-1])))
        # several: three more of mine (the bot's between them go too)
        st, r, _ = self.undo(srv, tid, tok, 3)
        self.assertEqual(st, 200, r)
        self.assertEqual((r["undone"], r["turn"], r["undos"]), (3, mine[1], 4))
        self.assertEqual(self.stored_moves(srv, tid), list(range(mine[1])))
        s = srv.state(tid, tok)
        self.assertEqual(len(s["game"]["log"]), mine[1])
        # the game goes on from there, the same tile in hand as the first time
        self.play(srv, tid, tok, 2)
        # a spectator's WebSocket hears of an undo and sees the new position
        w = self.ws(srv, tid)
        w.recv_type("state")
        self.my_turn(srv, tid, tok)
        st, r, _ = self.undo(srv, tid, tok, 1)
        self.assertEqual(st, 200, r)
        m = w.recv_type("undone")
        self.assertEqual(m["turn"], r["turn"])
        w.send({"type": "state"})
        s = w.recv_type("state")
        self.assertEqual(len(s["game"]["log"]), r["turn"])
        # after a restart the table is where the undos left it
        srv.kill()
        srv2 = self.start()
        s = srv2.state(tid, tok)
        self.assertEqual(len(s["game"]["log"]), r["turn"])
        self.assertEqual(s["table"]["undos"], 5)
        # played to its end: the record holds the moves that stand and replays
        nxt = self.play_out(srv2, tid, tok)
        rec = srv2.get("/api/tables/%s/record" % tid)[1]
        self.assertEqual(rec["undos"], 5)
        self.assertEqual(len(rec["turns"]), len(self.stored_moves(srv2, tid)))
        out = self.replay(rec)
        self.assertEqual(out["scores"], nxt["final"]["scores"])
        # over: no more undos
        st, r, _ = self.undo(srv2, tid, tok)
        self.assertEqual((st, r["error"]["code"]), (409, "game_over"))

    def test_undo_over_websocket(self):
        srv = self.start()
        tid, tok = self.bot_table(srv)
        mine = self.play(srv, tid, tok, 2)
        self.my_turn(srv, tid, tok)
        w = self.ws(srv, tid, tok)
        w.recv_type("state")
        w.send({"type": "undo", "moves": 2, "ref": 5})
        m = w.recv_type(("undone", "error"))
        self.assertEqual(m["type"], "undone", m)
        self.assertEqual((m["turn"], m["undone"]), (mine[0], 2))
        w.send({"type": "undo", "ref": 6})
        m = w.recv_type(("undone", "error"))
        self.assertEqual((m["type"], m["code"], m["ref"]), ("error", "nothing_to_undo", 6))

    def test_refused(self):
        srv = self.start()
        tid, tok = self.bot_table(srv)
        # nothing of mine played yet
        st, r, _ = self.undo(srv, tid, tok)
        self.assertEqual((st, r["error"]["code"]), (409, "nothing_to_undo"))
        self.play(srv, tid, tok, 1)
        self.my_turn(srv, tid, tok)  # the bot's reply stored (an undo meanwhile: stale_turn)
        st, r, _ = self.undo(srv, tid, tok, 2)
        self.assertEqual((st, r["error"]["code"]), (409, "nothing_to_undo"))
        # malformed and out of range (the most a request takes back is the
        # server's to say: GET /api/options, limits.undo_moves)
        most = srv.get("/api/options")[1]["limits"]["undo_moves"]
        for bad in (0, -1, most + 1, 2 ** 40, "1", 1.5, None, [1]):
            st, r, _ = srv.post("/api/tables/%s/undo" % tid, {"moves": bad}, token=tok)
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), bad)
        st, r, _ = srv.post("/api/tables/%s/undo" % tid, {"token": 5})
        self.assertEqual((st, r["error"]["code"]), (400, "malformed"))
        st, r, _ = srv.post("/api/tables/%s/undo" % tid, raw="[1]", token=tok)
        self.assertEqual((st, r["error"]["code"]), (400, "malformed"))
        # no token, a wrong one, GET
        st, r, _ = self.undo(srv, tid, None)
        self.assertEqual((st, r["error"]["code"]), (403, "bad_token"))
        st, r, _ = self.undo(srv, tid, "0" * 32)
        self.assertEqual((st, r["error"]["code"]), (403, "bad_token"))
        st, r, _ = srv.get("/api/tables/%s/undo" % tid)
        self.assertEqual(st, 405)
        # another person at the table
        c = srv.create(players=2, name="ann", seed=3)
        bob = srv.join(c["id"], "bob")
        self.assertNotIn("undo_seat", bob["table"])
        self.play(srv, c["id"], c["token"], 1)
        st, r, _ = self.undo(srv, c["id"], c["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "not_training"))
        # another person's seat given up to a bot is still theirs
        c3 = srv.create(seats=[{}, {}, {"bot": "random"}], name="ann", seed=4)
        j3 = srv.join(c3["id"], "bob")
        self.play(srv, c3["id"], c3["token"], 1)
        st, _, _ = srv.post("/api/tables/%s/resign" % c3["id"], {}, token=j3["token"])
        self.assertEqual(st, 200)
        st, r, _ = self.undo(srv, c3["id"], c3["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "not_training"))
        # a clock
        tc, tokc = self.bot_table(srv, clock={"mode": "realtime", "move_s": 600})
        self.assertNotIn("undo_seat", srv.get("/api/tables/" + tc)[1])
        self.play(srv, tc, tokc, 1)
        st, r, _ = self.undo(srv, tc, tokc)
        self.assertEqual((st, r["error"]["code"]), (409, "not_training"))
        # pass and play (every seat the creator's)
        pp = srv.create(players=2, name="ann", pass_and_play=True, seed=5)
        st, r, _ = self.undo(srv, pp["id"], pp["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "not_training"))
        # an uploaded record
        view = srv.post("/api/records", raw=json.dumps(srv.get("/api/tables/%s/record" % tid)[1]))
        self.assertIn(view[0], (200, 201), view[1])
        st, r, _ = self.undo(srv, view[1]["id"], tok)
        self.assertEqual((st, r["error"]["code"]), (409, "read_only"))

    def test_refused_in_a_rated_game(self):
        srv = self.start()
        hdrs = self.register(srv, "Trainee")
        st, c, _ = srv.post("/api/tables", {"seats": [{}, {"bot": "medium"}], "seed": 9, "name": "Trainee"},
                            headers=hdrs)
        self.assertEqual(st, 201, c)
        self.assertNotIn("undo_seat", c["table"])
        self.play(srv, c["id"], c["token"], 1)
        st, r, _ = self.undo(srv, c["id"], c["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "not_training"))
        self.assertIn("rated", r["error"]["message"])
        # the same person as a guest may
        tid, tok = self.bot_table(srv, level="medium")
        self.play(srv, tid, tok, 1)
        self.my_turn(srv, tid, tok)
        st, r, _ = self.undo(srv, tid, tok)
        self.assertEqual(st, 200, r)

    def test_an_unrated_table_lets_an_account_train(self):
        # "rated": false (the lobby's "Rated game" unticked): a logged-in
        # person against a bot of a fixed rating on the standard pile, a
        # game that would be rated, may take moves back; the game counts
        # for nobody, and its rematch is unrated too
        srv = self.start()
        hdrs = self.register(srv, "Trainee")
        body = {"seats": [{}, {"bot": "medium"}], "seed": 9, "name": "Trainee"}
        # a wrong type is refused, naming the option
        for bad in ("no", 1, None, "false", 0, [], {}):
            st, r, _ = srv.post("/api/tables", dict(body, rated=bad), headers=hdrs)
            self.assertEqual((st, r["error"]["code"]), (400, "bad_option"), bad)
            self.assertIn("'rated' must be true or false", r["error"]["message"])
        # "rated": true is the default: not in the options, no undos
        st, rated, _ = srv.post("/api/tables", dict(body, rated=True), headers=hdrs)
        self.assertEqual(st, 201, rated)
        self.assertNotIn("rated", rated["table"]["options"])
        self.assertNotIn("undo_seat", rated["table"])
        self.play(srv, rated["id"], rated["token"], 1)
        st, r, _ = self.undo(srv, rated["id"], rated["token"])
        self.assertEqual((st, r["error"]["code"]), (409, "not_training"))
        self.assertIn('"rated": false', r["error"]["message"])
        # unrated: the options say so, and the person may undo
        st, c, _ = srv.post("/api/tables", dict(body, rated=False), headers=hdrs)
        self.assertEqual(st, 201, c)
        tid, tok = c["id"], c["token"]
        self.assertIs(c["table"]["options"]["rated"], False)
        self.assertTrue(c["table"]["seats"][0].get("account"))
        self.assertEqual(c["table"]["undo_seat"], 0)
        mine = self.play(srv, tid, tok, 3)
        self.my_turn(srv, tid, tok)
        st, r, _ = self.undo(srv, tid, tok)
        self.assertEqual(st, 200, r)
        self.assertEqual((r["undone"], r["turn"]), (1, mine[-1]))
        # kept with the table: after a restart too
        srv.kill()
        srv = self.start()
        hdrs["Origin"] = "http://%s:%d" % (HOST, srv.port)
        info = srv.get("/api/tables/" + tid)[1]
        self.assertIs(info["options"]["rated"], False)
        self.assertEqual(info["undo_seat"], 0)
        # played to its end: the account's rating and its rated games unchanged
        self.play_out(srv, tid, tok)
        self.assertEqual(self.rating(srv, "Trainee"), (1500, 0))
        self.assertIn("table=%s event=unrated why=unrated_table" % tid, srv.read_log())
        # the control: the rated table's game, played to its end, counts
        self.play_out(srv, rated["id"], rated["token"])
        r1, n1 = self.rating(srv, "Trainee")
        self.assertEqual(n1, 1)
        self.assertNotEqual(r1, 1500)
        # the finished list says so too
        over = srv.get("/api/tables?status=over")[1]
        over = over["tables"] if isinstance(over, dict) else over
        self.assertIs([g for g in over if g["id"] == tid][0]["options"]["rated"], False)
        # the rematch stays unrated, and the person trains there too
        st, rm, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": tok}, headers=hdrs)
        self.assertEqual(st, 200, rm)
        self.assertIs(rm["table"]["options"]["rated"], False)
        self.assertEqual(rm["table"]["undo_seat"], rm["seat"])
        self.play(srv, rm["id"], rm["token"], 1, seat=rm["seat"])
        self.my_turn(srv, rm["id"], rm["token"], seat=rm["seat"])
        st, r, _ = self.undo(srv, rm["id"], rm["token"])
        self.assertEqual(st, 200, r)

    def test_bots_do_not_play_on_a_taken_back_position(self):
        # a bot that thinks until the watchdog stops it (2 s); the person
        # takes their move back while it thinks and plays again at once.
        # The answer of the bot that thought about the old position must be
        # dropped: the bot's next move is thought afresh (2 s after the
        # move again), not the old answer 1 s later
        srv = self.start(extra=["--bot-level", "slow=mcts:iter=1000000000", "--bot-max-time", "2",
                                "--bot-threads", "1"])
        tid, tok = self.bot_table(srv, level="slow")
        mine = self.play(srv, tid, tok, 1)
        time.sleep(1.0)  # the bot is thinking about turn mine[0] + 1
        st, r, _ = self.undo(srv, tid, tok)
        self.assertEqual(st, 200, r)
        self.assertEqual(r["turn"], mine[0])
        s = srv.state(tid, tok)
        nxt = s["game"]["next"]
        self.assertEqual((nxt["turn"], nxt["to_move"]), (mine[0], 0))
        # another placement than the first time (the last one listed)
        pl = nxt["legal"]["placements"][-1]
        move = {"x": pl["x"], "y": pl["y"], "rot": pl["rot"], "meeple": None, "turn": nxt["turn"]}
        t0 = time.time()
        st, m, _ = srv.post("/api/tables/%s/move" % tid, move, token=tok)
        self.assertEqual(st, 200, m)
        s = self.my_turn(srv, tid, tok, timeout=10)
        took = time.time() - t0
        self.assertGreaterEqual(took, 1.6, "the bot answered %.2f s after the move: the answer "
                                "about the position taken back was played" % took)
        log = s["game"]["log"]
        self.assertEqual(len(log), mine[0] + 2)
        self.assertEqual((log[mine[0]]["x"], log[mine[0]]["y"]), (pl["x"], pl["y"]))
        self.assertEqual(self.stored_moves(srv, tid), list(range(mine[0] + 2)))
        self.assertNotIn("gave an illegal move", srv.read_log())

    def test_limits(self):
        srv = self.start(extra=["--rate-undos", "3", "--undo-table-rate", "0"])
        tid, tok = self.bot_table(srv)
        self.play(srv, tid, tok, 6)
        for _ in range(3):
            self.my_turn(srv, tid, tok)
            st, r, _ = self.undo(srv, tid, tok)
            self.assertEqual(st, 200, r)
        self.my_turn(srv, tid, tok)
        st, r, h = self.undo(srv, tid, tok)
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertIn("--rate-undos", r["error"]["message"])
        self.assertTrue(int(h.get("Retry-After") or h.get("retry-after")) >= 1)
        # per table: the same table from other addresses
        srv2 = self.start(db="b.sqlite", extra=["--rate-undos", "0", "--undo-table-rate", "2"])
        tid, tok = self.bot_table(srv2)
        self.play(srv2, tid, tok, 6)
        codes = []
        for i in range(3):
            self.my_turn(srv2, tid, tok)
            conn = http.client.HTTPConnection(HOST, srv2.port, timeout=10,
                                              source_address=("127.0.0.%d" % (i + 2), 0))
            conn.request("POST", "/api/tables/%s/undo" % tid, body=b'{"moves":1}',
                         headers={"Content-Type": "application/json",
                                  "Authorization": "Bearer " + tok})
            resp = conn.getresponse()
            body = json.loads(resp.read())
            conn.close()
            codes.append(resp.status if resp.status == 200 else body["error"]["code"])
        self.assertEqual(codes, [200, 200, "rate_limited"])
        self.assertIn("--undo-table-rate", body["error"]["message"])
        # one request takes back at most a whole game's decisions: the
        # engine's capacity (carc_limit), as GET /api/options tells it
        most = srv2.get("/api/options")[1]["limits"]["undo_moves"]
        self.assertGreaterEqual(most, 125)
        st, r, _ = self.undo(srv2, tid, tok, most + 1)
        self.assertEqual((st, r["error"]["code"]), (400, "malformed"))
        self.assertIn("from 1 to %d" % most, r["error"]["message"])
        st, r, _ = self.undo(srv2, tid, tok, most)
        self.assertEqual((st, r["error"]["code"]), (409, "nothing_to_undo"))


if __name__ == "__main__":
    unittest.main()
