"""The server against hostile players (issue 21, second round), each found
by a tester over loopback and each a test that failed before its fix:

1. ratings farmed: games on a custom pile, a friend resigning at turn 0,
   a seat that never moves and lets the takeover bot win for it; now only
   real games are rated (docs/server.md, "Ratings"): the standard pile,
   and --rated-min-moves own moves (not the takeover bot's) on every seat;
2. spectators filling a game's chat so the players hear chat_full;
3. spoofable names (format characters, confusable account names, a guest
   taking an account's name at the same table);
4. rematches past --max-open-tables.

And what a finished table's description says about its rating (issue
29: a quick match ended "unrated" with no word why): "rating" is
{"rated": true}, or false with why, the same after a restart.

    CARC=build/test/carc python3 tests/py/test_hostile_play.py
"""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, first_legal  # noqa: E402

PW = "correct horse"


def session_of(headers):
    sc = headers.get("set-cookie") or ""
    first = sc.split(";")[0].strip()
    if not first.startswith("carc_session="):
        return None
    return first.split("=", 1)[1]


class Client:
    """One browser: a server and its session cookie."""

    def __init__(self, srv):
        self.srv, self.session = srv, None

    def call(self, method, path, body=None, token=None):
        if method == "POST" and body is None:
            body = {}
        # a browser: its cookie goes with the page's Origin (cross-site checks)
        hdrs = ({"Cookie": "carc_session=" + self.session,
                 "Origin": "http://127.0.0.1:%d" % self.srv.port} if self.session else {})
        st, r, h = self.srv.http(method, path, body=body, token=token, headers=hdrs)
        v = session_of(h)
        if v is not None:
            self.session = v or None
        return st, r, h

    def register(self, name):
        st, r, _ = self.call("POST", "/api/account/register", {"name": name, "password": PW})
        return st, r


class HostileCase(ServerCase):
    def player(self, srv, name):
        st, p, _ = srv.get("/api/player?name=" + name)
        self.assertEqual(st, 200, p)
        return p

    def move(self, srv, tid, token):
        """One legal move for the seat of `token` when it is to move: True, or
        False when it is not its turn."""
        st = srv.state(tid)
        nxt = st["game"]["next"]
        if nxt["over"] or st["table"]["status"] != "playing":
            return False
        code, r, _ = srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt),
                              turn=nxt["turn"]), token=token)
        self.assertIn(code, (200, 409), r)
        return code == 200

    def play_out(self, srv, tid, tokens, timeout=60, moves=None):
        """Moves for the seats in tokens (seat -> token) until the end, or
        until each seat made `moves` moves."""
        made = {s: 0 for s in tokens}
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = srv.state(tid)
            nxt = st["game"]["next"]
            if nxt["over"] or st["table"]["status"] == "over":
                return self.wait_over(srv, tid)
            if moves is not None and all(n >= moves for n in made.values()):
                return made
            seat = nxt["to_move"]
            if seat in tokens and st["table"]["status"] == "playing":
                code, r, _ = srv.post("/api/tables/%s/move" % tid, dict(first_legal(nxt),
                                      turn=nxt["turn"]), token=tokens[seat])
                self.assertIn(code, (200, 409), r)
                made[seat] += code == 200
            else:
                time.sleep(0.02)
        self.fail("game %s did not get there in %d s" % (tid, timeout))


# ---- 1. ratings only for real games --------------------------------------------------------


class RatingsTest(HostileCase):
    def test_a_custom_pile_is_never_rated(self):
        """Three 0:0 draws on a one-tile pile against the strongest bot took
        a new account from 1500 to 2600.8. With no minimum of moves the
        pile alone keeps them unrated."""
        srv = self.start(extra=["--rated-min-moves", "0"])
        a = Client(srv)
        a.register("Farmer")
        for _ in range(3):
            st, t, _ = a.call("POST", "/api/tables", {"name": "x", "tiles": {"E": 1},
                              "seats": [{}, {"bot": "expert"}], "bot_delay_ms": 0})
            self.assertEqual(st, 201, t)
            self.play_out(srv, t["id"], {0: t["token"]})
        p = self.player(srv, "Farmer")
        self.assertEqual((p["rating"], p["games"]), (1500, 0), p)
        self.assertIn("event=unrated why=custom_pile", srv.read_log())
        self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"],
                         {"rated": False, "why": "custom_pile"})

    def test_a_friend_resigning_at_turn_0_gives_nothing(self):
        """Before: +162 for the winner of a game its partner resigned at once."""
        srv = self.start()
        a, b = Client(srv), Client(srv)
        a.register("Winner")
        b.register("Friend")
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, j, _ = b.call("POST", "/api/tables/%s/join" % t["id"], {"name": "x"})
        self.assertEqual(st, 200, j)
        st, r, _ = b.call("POST", "/api/tables/%s/resign" % t["id"], {}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.wait_over(srv, t["id"])
        for name in ("Winner", "Friend"):
            p = self.player(srv, name)
            self.assertEqual((p["rating"], p["games"]), (1500, 0), p)
        self.assertIn("event=unrated why=few_moves", srv.read_log())
        # the table says why (the default minimum, 10)
        self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"],
                         {"rated": False, "why": "few_moves", "min_moves": 10,
                          "own_moves": [0, 0]})

    def test_resigning_after_the_minimum_is_rated(self):
        """The control: once both seats made --rated-min-moves of their own,
        a resignation is a rated loss for the resigner (two fresh accounts:
        with every account established, else their results move nobody:
        test_hostile_match.py)."""
        srv = self.start(extra=["--rated-min-moves", "3", "--established-games", "0",
                                "--established-opponents", "0"])
        a, b = Client(srv), Client(srv)
        a.register("Stayer")
        b.register("Leaver")
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "players": 2})
        st, j, _ = b.call("POST", "/api/tables/%s/join" % t["id"], {"name": "x"})
        tokens = {0: t["token"], 1: j["token"]}
        self.play_out(srv, t["id"], tokens, moves=3)
        st, r, _ = b.call("POST", "/api/tables/%s/resign" % t["id"], {}, token=j["token"])
        self.assertEqual(st, 200, r)
        self.wait_over(srv, t["id"])
        w, l = self.player(srv, "Stayer"), self.player(srv, "Leaver")
        self.assertEqual((w["games"], l["games"]), (1, 1))
        self.assertGreater(w["rating"], 1500)
        self.assertLess(l["rating"], 1500)
        self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"], {"rated": True})

    def idle_table(self, a, max_timeouts=1):
        st, t, _ = a.call("POST", "/api/tables", {
            "name": "x", "seats": [{}, {"bot": "random"}], "bot_delay_ms": 0,
            "clock": {"mode": "realtime", "move_s": 1, "reserve_s": 0,
                      "max_timeouts": max_timeouts, "takeover": "medium"}})
        self.assertEqual(st, 201, t)
        return t

    def test_a_seat_that_never_moves_wins_nothing(self):
        """Before: a player who never moved got a rated win from its takeover
        bot (1532). Its takeover moves are marked in the log, also after a
        restart (the mark is stored with the move)."""
        srv = self.start()
        a = Client(srv)
        a.register("Sleeper")
        t = self.idle_table(a)
        self.wait_over(srv, t["id"], timeout=60)
        p = self.player(srv, "Sleeper")
        self.assertEqual((p["rating"], p["games"]), (1500, 0), p)
        rating = srv.get("/api/tables/" + t["id"])[1]["rating"]
        self.assertEqual(rating["why"], "few_moves", rating)
        self.assertEqual(rating["own_moves"][0], 0, rating)
        srv.stop()
        srv = self.start()
        # the description says the same, from the marks the store kept
        self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"], rating)
        log = srv.state(t["id"])["game"]["log"]
        mine = [e for e in log if e["player"] == 0]
        self.assertTrue(mine)
        self.assertTrue(all(e.get("takeover") is True for e in mine), mine[:3])
        self.assertFalse(any("takeover" in e for e in log if e["player"] == 1))

    def test_takeover_moves_are_not_own_moves(self):
        """Four own moves, then the clock gives the seat to the bot, which
        plays some thirty more: with a minimum of 6 the game is unrated."""
        srv = self.start(extra=["--rated-min-moves", "6"])
        # the minimum is told to clients (the quick match's page states it)
        self.assertEqual(srv.get("/api/options")[1]["rated_min_moves"], 6)
        a = Client(srv)
        a.register("Quitter")
        t = self.idle_table(a)
        made = self.play_out(srv, t["id"], {0: t["token"]}, moves=4)
        self.assertEqual(made, {0: 4})
        self.wait_over(srv, t["id"], timeout=60)
        log = srv.state(t["id"])["game"]["log"]
        self.assertGreater(len([e for e in log if e["player"] == 0]), 20)
        self.assertEqual(len([e for e in log if e["player"] == 0 and "takeover" not in e]), 4)
        p = self.player(srv, "Quitter")
        self.assertEqual((p["rating"], p["games"]), (1500, 0), p)
        # the table says why: 4 own moves of 6; the bot's seat made all of its own
        rating = srv.get("/api/tables/" + t["id"])[1]["rating"]
        self.assertEqual((rating["rated"], rating["why"], rating["min_moves"]),
                         (False, "few_moves", 6), rating)
        self.assertEqual(rating["own_moves"],
                         [4, len([e for e in log if e["player"] == 1])], rating)

    def test_a_real_game_is_rated(self):
        """The control: the standard pile, every move the player's own."""
        srv = self.start()
        a = Client(srv)
        a.register("Player")
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "seats": [{}, {"bot": "random"}],
                                                  "bot_delay_ms": 0})
        self.play_out(srv, t["id"], {0: t["token"]})
        p = self.player(srv, "Player")
        self.assertEqual(p["games"], 1, p)
        self.assertNotEqual(p["rating"], 1500)
        self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"], {"rated": True})


class RatingOutcomeTest(HostileCase):
    """A finished table's description says whether the game was rated and
    why not (docs/protocol.md "Table description", "rating"), from the one
    function the game's end asks (moves.c rating_outcome): the same after a
    restart, which rebuilds the table from the store. Short piles, rated
    here (--rate-custom-piles) with a minimum of 2 own moves."""

    EXTRA = ["--rated-min-moves", "2", "--rate-custom-piles"]

    def game(self, client, tiles, **opts):
        body = dict({"name": "x", "seats": [{}, {"bot": "random"}], "bot_delay_ms": 0,
                     "tiles": tiles}, **opts)
        st, t, _ = client.call("POST", "/api/tables", body)
        self.assertEqual(st, 201, t)
        return t

    def test_the_description_says_why(self):
        srv = self.start(extra=self.EXTRA)
        a = Client(srv)
        a.register("Counted")
        four = self.game(a, {"E": 2, "U": 2})   # two moves each: rated
        two = self.game(a, {"E": 2})            # one each: too few
        tut = self.game(a, {"E": 2, "U": 2}, tutorial=True)
        unr = self.game(a, {"E": 2, "U": 2}, rated=False)
        guest = self.game(Client(srv), {"E": 2, "U": 2})
        # before the end: no word on ratings
        self.assertNotIn("rating", srv.get("/api/tables/" + four["id"])[1])
        for t in (four, two, tut, unr, guest):
            self.play_out(srv, t["id"], {0: t["token"]})
        got = {k: srv.get("/api/tables/" + t["id"])[1]["rating"]
               for k, t in (("four", four), ("two", two), ("tut", tut), ("unr", unr),
                            ("guest", guest))}
        self.assertEqual(got["four"], {"rated": True})
        self.assertEqual(got["two"], {"rated": False, "why": "few_moves", "min_moves": 2,
                                      "own_moves": [1, 1]})
        self.assertEqual(got["tut"], {"rated": False, "why": "tutorial"})
        self.assertEqual(got["unr"], {"rated": False, "why": "unrated_table"})
        self.assertEqual(got["guest"], {"rated": False, "why": "guest"})
        # what the description says is what happened: one rated game
        self.assertEqual(self.player(srv, "Counted")["games"], 1)
        # the WebSocket's table description says it too
        w = self.ws(srv, two["id"])
        self.assertEqual(w.recv_type(("state",))["table"]["rating"], got["two"])
        # a restart rebuilds each table from the store: the same words
        srv.stop()
        srv = self.start(extra=self.EXTRA)
        for k, t in (("four", four), ("two", two), ("tut", tut), ("unr", unr),
                     ("guest", guest)):
            self.assertEqual(srv.get("/api/tables/" + t["id"])[1]["rating"], got[k], k)


# ---- 2. spectators have a chat budget of their own ------------------------------------------


class SpectatorChatTest(HostileCase):
    def flood(self, srv, conns=61, lines=5):
        """A started two-player table with spectator_chat; `conns` spectator
        connections from one address send `lines` lines each. Returns the
        table, a player's WebSocket and the chat stored after the flood."""
        c = srv.create(name="Alice", seats=[{}, {}], spectator_chat=True)
        tid = c["id"]
        srv.join(tid, "Bob")
        socks = [self.ws(srv, tid) for _ in range(conns)]
        for w in socks:
            for _ in range(10):
                if w.recv(timeout=10).get("type") == "state":
                    break
        for i in range(lines):
            for k, w in enumerate(socks):
                w.send({"type": "chat", "text": "spam %d %d" % (k, i), "name": "x"})
        # until what is stored stops growing (bounded)
        last = -1
        for _ in range(50):
            time.sleep(0.2)
            n = len(self.stored(srv, tid))
            if n == last:
                break
            last = n
        pw = self.ws(srv, tid, c["token"])
        for _ in range(10):
            if pw.recv(timeout=10).get("type") == "state":
                break
        return tid, pw

    def stored(self, srv, tid):
        st, r, _ = srv.get("/api/tables/%s/chat" % tid)
        self.assertEqual(st, 200, r)
        return r["chat"]

    def say(self, pw, text):
        pw.send({"type": "chat", "text": text, "ref": 99})
        for _ in range(400):
            m = pw.recv(timeout=10)
            if m.get("type") == "error" and m.get("ref") == 99:
                return m
            if m.get("type") == "chat" and m.get("text") == text:
                return m
        raise AssertionError("no answer to the player's line")

    def test_one_address_of_many_spectators_is_one_rate(self):
        """Before: 61 connections of one address stored 300 lines in 0.2 s
        and the players got chat_full. Now one address is one rate at the
        table (--chat-spectator-rate, --chat-burst in a row)."""
        srv = self.start(extra=["--chat-max", "100", "--max-conns-per-addr", "80"])
        tid, pw = self.flood(srv)
        spect = [m for m in self.stored(srv, tid) if m["seat"] is None]
        self.assertLessEqual(len(spect), 5 + 1, len(spect))  # the burst (+1 refilled)
        m = self.say(pw, "can I still talk?")
        self.assertEqual(m.get("type"), "chat", m)

    def test_spectators_fill_only_their_share(self):
        """Without the rate, spectators stop at --chat-spectator-share of
        --chat-max (chat_full); the players still write."""
        srv = self.start(extra=["--chat-max", "40", "--chat-spectator-share", "50",
                                "--chat-spectator-rate", "0", "--chat-rate", "0",
                                "--max-conns-per-addr", "80"])
        tid, pw = self.flood(srv, conns=30, lines=2)
        spect = [m for m in self.stored(srv, tid) if m["seat"] is None]
        self.assertEqual(len(spect), 20)
        for i in range(20):
            m = self.say(pw, "player line %d" % i)
            self.assertEqual(m.get("type"), "chat", m)
        m = self.say(pw, "one too many")
        self.assertEqual(m.get("code"), "chat_full", m)


# ---- 3. names that pass for other names ------------------------------------------------------


BAD = ["\u202eevil", "line\u2028two", "nel\u0085x", "zero\u200bwidth", "\ufeffbom",
       "iso\u2066late", "wj\u2060x", "soft\u00adhyphen"]


class NamesTest(HostileCase):
    def test_seat_names_refuse_format_and_separator_characters(self):
        srv = self.start()
        for bad in BAD:
            st, r, _ = srv.post("/api/tables", {"name": bad, "players": 2})
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), repr(bad))
            c = srv.create(name="Host", players=2)
            st, r, _ = srv.post("/api/tables/%s/join" % c["id"], {"name": bad})
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), repr(bad))
        # what is allowed stays allowed: accents, CJK, emoji, inner spaces
        c = srv.create(name="Björn 北 \U0001F600", players=2)
        self.assertEqual(srv.join(c["id"], "Zoë")["table"]["seats"][1]["name"], "Zoë")

    def test_spectator_names_refuse_them_too(self):
        srv = self.start()
        c = srv.create(name="Host", seats=[{}, {}], spectator_chat=True)
        srv.join(c["id"], "Guest")
        w = self.ws(srv, c["id"])
        for bad in BAD:
            w.send({"type": "chat", "text": "hi", "name": bad, "ref": 5})
            for _ in range(20):
                m = w.recv(timeout=10)
                if m.get("ref") == 5:
                    break
            self.assertEqual((m["type"], m.get("code")), ("error", "malformed"), repr(bad))

    def test_a_guest_cannot_take_an_accounts_name_at_its_table(self):
        srv = self.start()
        a = Client(srv)
        a.register("Alice01")
        st, t, _ = a.call("POST", "/api/tables", {"name": "x", "players": 3})
        self.assertEqual(st, 201, t)
        for name in ("Alice01", "alice01", "ALICE01"):
            st, r, _ = srv.post("/api/tables/%s/join" % t["id"], {"name": name})
            self.assertEqual((st, r["error"]["code"]), (409, "name_taken"), r)
            self.assertIn("account", r["error"]["message"])
        j = srv.join(t["id"], "Alice02")
        seats = j["table"]["seats"]
        self.assertIs(seats[0].get("account"), True)
        self.assertNotIn("account", seats[1])


# ---- 4. rematches count against --max-open-tables -------------------------------------------


class OpenTablesTest(HostileCase):
    def test_rematches_are_open_tables_of_their_address(self):
        """Before: with a cap of 3 one address held 7 open tables, all
        rematches (each keeps the other player's seat: open until claimed)."""
        srv = self.start(extra=["--max-open-tables", "3"])
        finished = []
        for _ in range(4):
            c = srv.create(name="A", players=2, tiles={"E": 2})
            tokens = {0: c["token"], 1: srv.join(c["id"], "B")["token"]}
            self.play_out(srv, c["id"], tokens)
            finished.append((c["id"], tokens[0]))
        codes = []
        for tid, tok in finished:
            st, r, h = srv.post("/api/tables/%s/rematch" % tid, {"token": tok})
            codes.append(st)
            if st == 429:
                self.assertEqual(r["error"]["code"], "rate_limited", r)
                self.assertIn("--max-open-tables", r["error"]["message"])
                self.assertGreater(int(h.get("retry-after", "0")), 0)
        self.assertEqual(codes, [200, 200, 200, 429])
        st, lst, _ = srv.get("/api/tables?status=open")
        self.assertEqual(len(lst["tables"]), 3, lst)
        # and a new table too, as before
        st, r, _ = srv.post("/api/tables", {"name": "A", "players": 2})
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))


if __name__ == "__main__":
    unittest.main()
