"""Chat, rematch and pass-and-play against the real server on loopback
(docs/protocol.md "Chat", "Rematch", "Pass-and-play"; docs/server.md "Chat
and rematch"). Run: CARC=build/test/carc python3 tests/py/test_chat.py
"""
import os
import tempfile
import subprocess
import shutil
import re
import sqlite3
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, ServerCase, first_legal  # noqa: E402
from carcserver import connect_db  # noqa: E402


def schema_version():
    """The schema version this carc writes, from its start line ("schema N"):
    a server of its own on a scratch database, stopped at once."""
    d = tempfile.mkdtemp(prefix="carc-schema-")
    p = subprocess.Popen([CARC, "serve", "--host", "127.0.0.1", "--port", "0", "--db",
                          os.path.join(d, "s.sqlite"), "--web", d],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = p.stdout.readline().decode()
    finally:
        p.kill()
        p.wait(10)
        p.stdout.close()
        shutil.rmtree(d, ignore_errors=True)
    return int(re.search(r"schema (\d+)", line).group(1))

MAX_TURNS = 40  # the games here have a few tiles; every loop is bounded
SHORT = {"U": 2, "E": 1}  # a pile of three tiles: a game of three turns


def recv_until(w, pred, timeout=10, limit=50):
    """Messages from w until pred(msg) holds: that message (bounded)."""
    deadline = time.time() + timeout
    for _ in range(limit):
        left = deadline - time.time()
        if left <= 0:
            break
        m = w.recv(timeout=left)
        if pred(m):
            return m
    raise AssertionError("no such message within %ss" % timeout)


def chat_of(m):
    return m.get("type") == "chat"


def err_of(m):
    return m.get("type") == "error"


class ChatBase(ServerCase):
    def two_humans(self, srv, **opts):
        """A started table of Alice (seat 0) and Bob (seat 1)."""
        c = srv.create(name="Alice", seats=[{}, {}], **opts)
        j = srv.join(c["id"], "Bob")
        return c["id"], c["token"], j["token"]

    def ws_ready(self, srv, tid, token=None):
        w = self.ws(srv, tid, token)
        recv_until(w, lambda m: m.get("type") == "state")
        return w

    def play_out(self, srv, tid, tokens):
        """Plays the game to its end with HTTP moves (tokens by seat)."""
        for _ in range(MAX_TURNS):
            st = srv.state(tid)
            nxt = st["game"]["next"]
            if nxt.get("over"):
                return
            p = nxt["to_move"]
            if p not in tokens:  # a bot's turn
                time.sleep(0.05)
                continue
            code, r, _ = srv.post("/api/tables/%s/move" % tid,
                                  dict(first_legal(nxt), turn=nxt["turn"]), token=tokens[p])
            self.assertIn(code, (200, 409), r)
        self.fail("the game did not end")


class ChatTest(ChatBase):
    def test_markup_is_stored_and_sent_as_plain_text_and_lengths_are_code_points(self):
        srv = self.start(extra=["--chat-len", "20"])
        tid, ta, tb = self.two_humans(srv)
        wa, wb = self.ws_ready(srv, tid, ta), self.ws_ready(srv, tid, tb)
        html = "<b>hi</b>&amp;<img src=x onerror=alert(1)>"[:20]
        wa.send({"type": "chat", "text": html, "ref": 1})
        got_b = recv_until(wb, chat_of)
        got_a = recv_until(wa, chat_of)
        for m in (got_a, got_b):
            self.assertEqual(m["text"], html)
            self.assertEqual((m["seat"], m["name"], m["n"]), (0, "Alice", 0))
        # 20 code points of 4 bytes each are one line of 20 characters
        wb.send({"type": "chat", "text": "\U0001F600" * 20})
        self.assertEqual(recv_until(wa, chat_of)["text"], "\U0001F600" * 20)
        wb.send({"type": "chat", "text": "\u00e9" * 21, "ref": 7})
        e = recv_until(wb, err_of)
        self.assertEqual((e["code"], e["ref"]), ("too_large", 7))
        for bad in ["bell\u0007", "line\nbreak", "\u202eevil", "   ", "", "nul\u0000"]:
            wb.send({"type": "chat", "text": bad})
            self.assertEqual(recv_until(wb, err_of)["code"], "malformed", repr(bad))
        for bad in [{"text": 5}, {"phrase": "nope"}, {}, {"text": "x", "phrase": "gg"}]:
            wb.send(dict(bad, type="chat"))
            self.assertEqual(recv_until(wb, err_of)["code"], "malformed", bad)
        wb.send({"type": "chat", "phrase": "gg"})
        m = recv_until(wa, chat_of)
        self.assertEqual((m["phrase"], m["seat"], "text" in m), ("gg", 1, False))
        code, lst, _ = srv.get("/api/tables/%s/chat" % tid)
        self.assertEqual(code, 200)
        self.assertEqual([x.get("text") or x.get("phrase") for x in lst["chat"]],
                         [html, "\U0001F600" * 20, "gg"])
        self.assertIn("thanks", lst["phrases"])
        self.assertEqual(lst["len"], 20)

    def test_chat_rate_limit_per_connection_and_per_seat(self):
        srv = self.start(extra=["--chat-rate", "6", "--chat-burst", "3"])
        tid, ta, _ = self.two_humans(srv)
        wa = self.ws_ready(srv, tid, ta)
        oks, refused = 0, None
        for i in range(5):
            wa.send({"type": "chat", "text": "line %d" % i, "ref": i})
            m = recv_until(wa, lambda x: chat_of(x) or err_of(x))
            if chat_of(m):
                oks += 1
            else:
                refused = refused or m
        self.assertEqual(oks, 3, "the burst, then the rate")
        self.assertEqual(refused["code"], "rate_limited")
        self.assertGreaterEqual(refused["retry_after_s"], 1)
        self.assertLessEqual(refused["retry_after_s"], 10)
        # a second connection of the same seat shares the seat's allowance
        wa2 = self.ws_ready(srv, tid, ta)
        wa2.send({"type": "chat", "text": "again"})
        self.assertEqual(recv_until(wa2, lambda x: chat_of(x) or err_of(x))["code"],
                         "rate_limited")
        # the other messages are not limited by the chat's limit
        wa2.send({"type": "ping", "ref": 1})
        recv_until(wa2, lambda x: x.get("type") == "pong")
        code, lst, _ = srv.get("/api/tables/%s/chat" % tid)
        self.assertEqual(len(lst["chat"]), 3)

    def test_spectators_read_always_and_write_only_when_the_table_lets_them(self):
        srv = self.start()
        tid, ta, _ = self.two_humans(srv)
        wa, spec = self.ws_ready(srv, tid, ta), self.ws_ready(srv, tid)
        spec.send({"type": "chat", "text": "hello from the rail"})
        self.assertEqual(recv_until(spec, err_of)["code"], "chat_off")
        wa.send({"type": "chat", "text": "players only"})
        self.assertEqual(recv_until(spec, chat_of)["text"], "players only")
        self.assertFalse(srv.get("/api/tables/%s/chat" % tid)[1]["spectator_chat"])

        tid2, ta2, _ = self.two_humans(srv, spectator_chat=True)
        self.assertTrue(srv.get("/api/tables/" + tid2)[1]["options"]["spectator_chat"])
        wa2, spec2 = self.ws_ready(srv, tid2, ta2), self.ws_ready(srv, tid2)
        spec2.send({"type": "chat", "text": "hi all", "name": "Carol"})
        m = recv_until(wa2, chat_of)
        self.assertEqual((m["seat"], m["name"], m["text"]), (None, "Carol", "hi all"))
        spec2.send({"type": "chat", "text": "x", "name": "C" * 41})
        self.assertEqual(recv_until(spec2, err_of)["code"], "malformed")

    def test_chat_is_stored_bounded_and_listed_after_a_restart(self):
        srv = self.start(extra=["--chat-max", "4", "--chat-rate", "0"])
        tid, ta, tb = self.two_humans(srv)
        wa = self.ws_ready(srv, tid, ta)
        lines = ["one", "<two>", "three & four", "f\u00fcnf"]
        for s in lines:
            wa.send({"type": "chat", "text": s})
            recv_until(wa, chat_of)
        wa.send({"type": "chat", "text": "too many"})
        self.assertEqual(recv_until(wa, err_of)["code"], "chat_full")
        wa.close()
        srv.stop()
        srv2 = self.start(extra=["--chat-max", "4"])
        code, lst, _ = srv2.get("/api/tables/%s/chat" % tid)
        self.assertEqual(code, 200)
        self.assertEqual([x["text"] for x in lst["chat"]], lines)
        self.assertEqual([x["n"] for x in lst["chat"]], [0, 1, 2, 3])
        wb = self.ws_ready(srv2, tid, tb)
        wb.send({"type": "chat", "text": "still full"})
        self.assertEqual(recv_until(wb, err_of)["code"], "chat_full")
        # the line is a row of the migration's own table in the database
        db = connect_db(os.path.join(self.dir, "carc.sqlite"))
        n = db.execute("SELECT count(*) FROM chat WHERE game_id=?", (tid,)).fetchone()[0]
        version = db.execute("pragma user_version").fetchone()[0]
        db.close()
        self.assertEqual(version, schema_version())
        self.assertEqual(n, 4)
        self.assertEqual(srv2.post("/api/tables/%s/chat" % tid, {})[0], 405)
        self.assertEqual(srv2.get("/api/tables/ffffffffffffffff/chat")[0], 404)
        # with room again the numbers go on after the stored ones
        wb.close()
        srv2.stop()
        srv3 = self.start(extra=["--chat-max", "10"])
        wb = self.ws_ready(srv3, tid, tb)
        wb.send({"type": "chat", "text": "five"})
        m = recv_until(wb, chat_of)
        self.assertEqual((m["n"], m["name"]), (4, "Bob"))


class RematchTest(ChatBase):
    def finished(self, srv, bot=True):
        """A finished 3-seat game: Alice 0, Bob 1 and a bot 2 (or Carl)."""
        third = {"bot": "random"} if bot else {}
        c = srv.create(name="Alice", seats=[{"colour": "red"}, {"colour": "blue"},
                                            dict(third, colour="green")],
                       tiles=SHORT, bot_delay_ms=0)
        tid, tokens = c["id"], {0: c["token"]}
        tokens[1] = srv.join(tid, "Bob")["token"]
        if not bot:
            tokens[2] = srv.join(tid, "Carl")["token"]
        self.play_out(srv, tid, tokens)
        return tid, tokens

    def test_two_players_clicking_at_once_make_exactly_one_table_with_seats_rotated(self):
        srv = self.start()
        tid, tokens = self.finished(srv)
        results = {}

        def ask(seat):
            results[seat] = srv.post("/api/tables/%s/rematch" % tid, {"token": tokens[seat]})

        threads = [threading.Thread(target=ask, args=(s,)) for s in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(15)
        self.assertEqual(sorted(results), [0, 1])
        for s in (0, 1):
            self.assertEqual(results[s][0], 200, results[s][1])
        new = {results[s][1]["id"] for s in (0, 1)}
        self.assertEqual(len(new), 1, "one rematch")
        nid = new.pop()
        # seats rotated: old seat i+1 is new seat i, names and colours kept
        self.assertEqual(results[1][1]["seat"], 0)
        self.assertEqual(results[0][1]["seat"], 2)
        info = srv.get("/api/tables/" + nid)[1]
        self.assertEqual([(s["name"], s["colour"], s["kind"]) for s in info["seats"]],
                         [("Bob", "blue", "human"), (info["seats"][1]["name"], "green", "bot"),
                          ("Alice", "red", "human")])
        self.assertEqual(info["status"], "playing", "the bot accepted at once")
        self.assertEqual(srv.get("/api/tables/" + tid)[1]["rematch"], nid)
        old_opts = srv.get("/api/tables/" + tid)[1]["options"]
        self.assertEqual(info["options"]["tiles"], old_opts["tiles"])
        # the fresh tokens hold the new seats; the old ones nothing there
        self.assertEqual(srv.state(nid, results[1][1]["token"])["you"], {"seat": 0})
        self.assertIsNone(srv.state(nid, tokens[1])["you"])
        # exactly one new game in the database, linked from the old one
        db = connect_db(os.path.join(self.dir, "carc.sqlite"))
        rows = db.execute("SELECT id FROM games WHERE id <> ?", (tid,)).fetchall()
        link = db.execute("SELECT rematch FROM games WHERE id=?", (tid,)).fetchone()[0]
        db.close()
        self.assertEqual(rows, [(nid,)])
        self.assertEqual(link, nid)
        # asking again: the seat is taken
        code, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": tokens[0]})
        self.assertEqual((code, r["error"]["code"]), (409, "seat_taken"))

    def test_the_invitation_reaches_the_others_and_is_accepted_with_the_old_seat(self):
        srv = self.start()
        tid, tokens = self.finished(srv, bot=False)
        wb, wc = self.ws_ready(srv, tid, tokens[1]), self.ws_ready(srv, tid, tokens[2])
        code, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": tokens[0]})
        self.assertEqual(code, 200, r)
        nid = r["id"]
        inv = recv_until(wb, lambda m: m.get("type") == "rematch")
        self.assertEqual((inv["table"], inv["rematch"]), (tid, nid))
        self.assertEqual([(s["from"], s["taken"]) for s in inv["seats"]],
                         [(1, False), (2, False), (0, True)])
        self.assertEqual(srv.get("/api/tables/" + nid)[1]["status"], "open")
        # a plain join cannot take a seat kept for a player
        code, e, _ = srv.post("/api/tables/%s/join" % nid, {"name": "Mallory", "seat": 0})
        self.assertEqual((code, e["error"]["code"]), (409, "seat_taken"))
        code, e, _ = srv.post("/api/tables/%s/join" % nid, {"name": "Mallory"})
        self.assertEqual(code, 409)
        # the server restarts before the others accept: the seats stay kept
        for w in (wb, wc):
            w.close()
        srv.stop()
        srv = self.start()
        wb = self.ws_ready(srv, tid, tokens[1])
        self.assertEqual(srv.get("/api/tables/" + tid)[1]["rematch"], nid)
        wb.send({"type": "rematch", "ref": "r1"})
        seat = recv_until(wb, lambda m: m.get("type") == "rematch_seat")
        self.assertEqual((seat["rematch"], seat["seat"], seat["ref"]), (nid, 0, "r1"))
        self.assertEqual(srv.state(nid, seat["token"])["you"], {"seat": 0})
        code, r, _ = srv.post("/api/tables/%s/rematch" % tid, {}, token=tokens[2])
        self.assertEqual((code, r["seat"]), (200, 1))
        self.assertEqual(srv.get("/api/tables/" + nid)[1]["status"], "playing")

    def test_a_stranger_cannot_take_a_rematch_seat(self):
        srv = self.start()
        tid, tokens = self.finished(srv)
        other = srv.create(name="Eve", seats=[{}, {"bot": "random"}])
        for tok in [other["token"], "0" * 32, "", "r:" + "0" * 62]:
            code, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": tok})
            self.assertEqual((code, r["error"]["code"]), (403, "bad_token"), tok)
        # a rematch exists: still nothing for a stranger, nor for a game not over
        code, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": tokens[0]})
        self.assertEqual(code, 200)
        code, r, _ = srv.post("/api/tables/%s/rematch" % tid, {"token": other["token"]})
        self.assertEqual((code, r["error"]["code"]), (403, "bad_token"))
        code, r, _ = srv.post("/api/tables/%s/rematch" % other["id"], {"token": other["token"]})
        self.assertEqual((code, r["error"]["code"]), (409, "not_over"))
        self.assertEqual(srv.get("/api/tables/%s/rematch" % tid)[0], 405)


class PassAndPlayTest(ChatBase):
    def test_creation_gives_every_human_seat_its_token(self):
        srv = self.start()
        c = srv.create(name="Ann", pass_and_play=True,
                       seats=[{}, {"name": "Ben"}, {"bot": "random"}, {}], tiles=SHORT)
        self.assertEqual(c["table"]["status"], "playing")
        toks = {x["seat"]: x["token"] for x in c["tokens"]}
        self.assertEqual(sorted(toks), [0, 1, 3])
        self.assertEqual(len(set(toks.values())), 3)
        self.assertEqual((c["seat"], c["token"]), (0, toks[0]))
        for s, tok in toks.items():
            self.assertEqual(srv.state(c["id"], tok)["you"], {"seat": s})
        names = [s["name"] for s in c["table"]["seats"]]
        self.assertEqual((names[0], names[1], names[3]), ("Ann", "Ben", "Player 4"))
        self.assertTrue(c["table"]["options"]["pass_and_play"])
        # its rematch: this browser takes every seat with the tokens it holds
        self.play_out(srv, c["id"], toks)
        got = [srv.post("/api/tables/%s/rematch" % c["id"], {"token": toks[s]}) for s in (0, 1, 3)]
        self.assertEqual([g[0] for g in got], [200] * 3, got)
        self.assertEqual(len({g[1]["id"] for g in got}), 1)
        self.assertEqual([g[1]["seat"] for g in got], [3, 0, 2])
        info = srv.get("/api/tables/" + got[0][1]["id"])[1]
        self.assertEqual(info["status"], "playing")
        self.assertTrue(info["options"]["pass_and_play"])
        self.assertEqual([s["name"] for s in info["seats"]][0:1] + [info["seats"][3]["name"]],
                         ["Ben", "Ann"])
        # a table without the option gives one token only
        c2 = srv.create(name="Ann", seats=[{}, {}])
        self.assertNotIn("tokens", c2)
        code, e, _ = srv.post("/api/tables", {"pass_and_play": "yes"})
        self.assertEqual((code, e["error"]["code"]), (400, "bad_option"))

    def test_a_persons_name_is_checked_as_every_seat_name(self):
        # issue 22: a name the join refuses (a bidi override, a zero-width
        # space, a BOM, a cut UTF-8 sequence) left its seat open and the
        # table waiting for nobody; now the table is refused
        srv = self.start()
        before = len(srv.get("/api/tables")[1]["tables"])
        for bad in ["B\u202eb", "x\u200by", "\ufeffAnn", "a" * 64, "", "\u00e4" * 32]:
            code, e, _ = srv.post("/api/tables", {"name": "Ann", "pass_and_play": True,
                                                  "seats": [{}, {"name": bad}], "tiles": SHORT})
            self.assertEqual((code, e["error"]["code"]), (400, "bad_option"), repr(bad))
            self.assertIn("seats[1].name", e["error"]["message"])
        self.assertEqual(len(srv.get("/api/tables")[1]["tables"]), before, "nothing was made")
        # 63 bytes of UTF-8 and the other scripts are names like any other
        for good in ["\u00e4" * 31 + "x", "Björn Ø", "\u738b\u82b3", "Zoë-Léa"]:
            c = srv.create(name="Ann", pass_and_play=True, seats=[{}, {"name": good}], tiles=SHORT)
            self.assertEqual(c["table"]["status"], "playing", repr(good))
            self.assertEqual(c["table"]["seats"][1]["name"], good)


if __name__ == "__main__":
    unittest.main()
