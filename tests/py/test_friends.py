"""Friends against the real server on loopback (docs/protocol.md "Friends";
docs/server.md "Friends"): requests, accepting, declining, removing, who
sees what, presence, invites to a table, blocks (no requests, no invites,
no chat lines from the blocked account) and every limit.
Run: CARC=build/release/carc python3 tests/py/test_friends.py
"""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, ServerCase, connect_db  # noqa: E402
from test_accounts import Client  # noqa: E402

# registrations are limited per address (--rate-logins): off here
OPEN = ["--rate-logins", "0"]


class Person(Client):
    """A logged-in browser of one account."""

    def __init__(self, srv, name):
        super().__init__(srv)
        st, r, _ = self.register(name)
        assert st == 201, (st, r)
        self.id, self.name = r["account"]["id"], name

    def friends(self):
        st, r, _ = self.call("GET", "/api/friends")
        assert st == 200, (st, r)
        return r

    def do(self, verb, **body):
        st, r, _ = self.call("POST", "/api/friends/" + verb, body)
        return st, r

    def names(self, which):
        return [p["name"] for p in self.friends()[which]]

    def cookie_header(self, extra=""):
        return {"Cookie": "carc_session=%s%s" % (self.session, extra)}

    def create(self, **opts):
        st, r, _ = self.call("POST", "/api/tables", dict({"name": self.name}, **opts))
        assert st == 201, (st, r)
        return r

    def join(self, tid):
        st, r, _ = self.call("POST", "/api/tables/%s/join" % tid, {"name": self.name})
        assert st == 200, (st, r)
        return r


def playing_friend(p, timeout=5):
    """p's one friend, once the store has the game they sit at as playing."""
    end = time.time() + timeout
    while True:
        (f,) = p.friends()["friends"]
        if f["playing"] or time.time() > end:
            return f
        time.sleep(0.1)


def code(r):
    return r.get("error", {}).get("code") if isinstance(r, dict) else None


class FriendsTest(ServerCase):
    def people(self, srv, *names):
        return [Person(srv, n) for n in names]

    def test_request_accept_remove_and_only_the_two_see_it(self):
        srv = self.start(extra=OPEN)
        a, b, c = self.people(srv, "Alice", "Bob", "Carol")
        st, r = a.do("request", name="bob")  # names in any case
        self.assertEqual((st, r["outcome"], r["account"]["id"]), (200, "done", b.id), r)
        self.assertEqual(a.names("outgoing"), ["Bob"])
        self.assertEqual(b.names("incoming"), ["Alice"])
        self.assertEqual(a.names("incoming") + b.names("outgoing"), [])
        # a third account sees nothing of it
        cf = c.friends()
        for k in ("friends", "incoming", "outgoing", "blocked", "invites"):
            self.assertEqual(cf[k], [], k)
        # asking again changes nothing
        self.assertEqual(a.do("request", id=b.id)[1]["outcome"], "already")
        # Carol cannot accept what was not sent to her
        st, r = c.do("accept", id=a.id)
        self.assertEqual((st, code(r)), (404, "not_found"), r)
        st, r = b.do("accept", id=a.id)
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        self.assertEqual(a.names("friends"), ["Bob"])
        self.assertEqual(b.names("friends"), ["Alice"])
        self.assertEqual(a.names("outgoing") + b.names("incoming"), [])
        self.assertEqual(c.names("friends"), [])
        self.assertEqual(a.do("request", name="Bob")[1]["outcome"], "already")
        # either ends it
        self.assertEqual(b.do("remove", id=a.id)[0], 200)
        self.assertEqual(a.names("friends") + b.names("friends"), [])
        self.assertEqual(b.do("remove", id=a.id)[0], 404)

    def test_decline_and_asking_back(self):
        srv = self.start(extra=OPEN)
        a, b = self.people(srv, "Alice", "Bob")
        a.do("request", name="Bob")
        self.assertEqual(b.do("decline", id=a.id)[0], 200)
        self.assertEqual(a.names("outgoing") + b.names("incoming"), [])
        self.assertEqual(b.do("decline", id=a.id)[0], 404)
        # a request to someone who asked already makes friends at once
        a.do("request", name="Bob")
        st, r = b.do("request", name="Alice")
        self.assertEqual((st, r["outcome"]), (200, "friends"), r)
        self.assertEqual(a.names("friends"), ["Bob"])
        # taking back one's own request
        c = Person(srv, "Carol")
        c.do("request", name="Alice")
        self.assertEqual(c.do("remove", id=a.id)[0], 200)
        self.assertEqual(a.names("incoming"), [])

    def test_bad_requests(self):
        srv = self.start(extra=OPEN)
        a, = self.people(srv, "Alice")
        for body, want in [({}, 400), ({"name": 5}, 400), ({"id": "1"}, 400),
                           ({"id": 0}, 400), ({"id": 2 ** 60}, 400),
                           ({"name": "Alice", "id": a.id}, 400),
                           ({"name": "Alice"}, 400),  # oneself
                           ({"name": "Nobody"}, 404), ({"name": "x" * 5000}, 404),
                           ({"id": 999999}, 404)]:
            st, r = a.do("request", **body)
            self.assertEqual(st, want, (body, r))
        st, r, _ = a.call("POST", "/api/friends/nonsense", {})
        self.assertEqual(st, 404)
        st, r, _ = a.call("GET", "/api/friends/request")
        self.assertEqual(st, 405)
        # no session: nothing
        st, r, _ = srv.get("/api/friends")
        self.assertEqual((st, code(r)), (401, "not_logged_in"))
        st, r, _ = srv.post("/api/friends/request", {"name": "Alice"})
        self.assertEqual(st, 401)
        st, r = a.do("dismiss", invite="7")
        self.assertEqual(st, 400)

    def test_presence_and_playing_across_the_window(self):
        srv = self.start(extra=OPEN + ["--presence-every", "1", "--online-window", "2"])
        a, b = self.people(srv, "Alice", "Bob")
        a.do("request", name="Bob")
        b.do("accept", id=a.id)
        (fa,) = b.friends()["friends"]
        self.assertTrue(fa["online"], fa)  # Alice asked for her list just now
        self.assertEqual(b.friends()["online_window_s"], 2)
        time.sleep(3.2)
        (fa,) = b.friends()["friends"]
        self.assertFalse(fa["online"], fa)
        self.assertFalse(fa["playing"])
        # a WebSocket of hers counts too (every message)
        t = a.create(seats=[{}, {}])
        w = self.ws(srv, t["id"], t["token"], headers=a.cookie_header())
        w.recv_type(("state",))
        time.sleep(1.1)
        w.send({"type": "ping"})
        w.recv_type(("pong",))
        time.sleep(0.3)
        (fa,) = b.friends()["friends"]
        self.assertTrue(fa["online"], fa)
        # playing: a public game is named (to watch), a private one is not
        b.join(t["id"])
        fa = playing_friend(b)  # the status follows the seat in a write of its own
        self.assertEqual((fa["playing"], fa["game"]), (True, t["id"]))
        srv2 = self.start(db="private.sqlite", extra=OPEN)
        c, d = self.people(srv2, "Carol", "Dave")
        c.do("request", name="Dave")
        d.do("accept", id=c.id)
        tp = c.create(seats=[{}, {}], private=True)
        d.join(tp["id"])
        fc = playing_friend(d)
        self.assertEqual((fc["playing"], fc["game"]), (True, None))

    def test_invite_shows_for_the_invitee_and_the_seat_is_taken_in_one_request(self):
        srv = self.start(extra=OPEN)
        a, b, c = self.people(srv, "Alice", "Bob", "Carol")
        t = a.create(seats=[{}, {}, {}])
        st, r = a.do("invite", table=t["id"], name="Bob")
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        (inv,) = b.friends()["invites"]
        self.assertEqual((inv["table"], inv["seat"], inv["from"]["name"]), (t["id"], 1, "Alice"))
        self.assertEqual(c.friends()["invites"], [])
        self.assertEqual(a.friends()["invites"], [])
        # only a player of the table invites; a table that exists; an open seat
        st, r = c.do("invite", table=t["id"], name="Bob")
        self.assertEqual((st, code(r)), (403, "bad_token"), r)
        st, r = a.do("invite", table="nosuchtable", name="Bob")
        self.assertEqual(st, 404, r)
        for bad in ["", "x" * 200, "a/b", 5]:
            st, r = a.do("invite", table=bad, name="Bob")
            self.assertEqual(st, 400, (bad, r))
        b.join(t["id"])
        self.assertEqual(b.friends()["invites"], [])  # seated: the invite is done
        st, r = a.do("invite", table=t["id"], name="Bob")
        self.assertEqual((st, code(r)), (409, "seat_taken"), r)
        # Carol is invited, then dismisses it
        a.do("invite", table=t["id"], name="Carol")
        (inv,) = c.friends()["invites"]
        self.assertEqual(b.do("dismiss", invite=inv["id"])[0], 404)  # not Bob's
        self.assertEqual(c.do("dismiss", invite=inv["id"])[0], 200)
        self.assertEqual(c.friends()["invites"], [])
        # a started table has no seat to invite to
        a.do("invite", table=t["id"], name="Carol")
        c.join(t["id"])
        d = Person(srv, "Dave")
        st, r = a.do("invite", table=t["id"], name="Dave")
        self.assertEqual((st, code(r)), (409, "table_full"), r)
        self.assertEqual(d.friends()["invites"], [])
        # the next invite clears those of a table that has started
        db = connect_db(srv.db)
        self.assertEqual(db.execute("SELECT count(*) FROM invites").fetchall()[0][0], 2)  # Bob, Carol
        t2 = a.create(seats=[{}, {}])
        self.assertEqual(a.do("invite", table=t2["id"], name="Dave")[0], 200)
        rows = db.execute("SELECT game_id FROM invites").fetchall()
        self.assertEqual([r[0] for r in rows], [t2["id"]])
        db.close()

    def test_a_block_stops_requests_and_invites_and_is_never_told(self):
        srv = self.start(extra=OPEN)
        a, b = self.people(srv, "Alice", "Bob")
        a.do("request", name="Bob")
        b.do("accept", id=a.id)
        st, r = a.do("block", name="Bob")
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        self.assertEqual(a.names("blocked"), ["Bob"])
        self.assertEqual(a.names("friends") + b.names("friends"), [])  # the friendship ended
        # Bob asks again: answered as any request, pending for him, never shown to her
        st, r = b.do("request", name="Alice")
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        self.assertEqual(b.names("outgoing"), ["Alice"])
        self.assertEqual(a.names("incoming"), [])
        # Bob invites her: answered as any invite, never shown to her
        t = b.create(seats=[{}, {}])
        st, r = b.do("invite", table=t["id"], name="Alice")
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        self.assertEqual(a.friends()["invites"], [])
        # nothing Bob is answered says "block"
        self.assertNotIn("block", json.dumps(b.friends()["outgoing"]))
        self.assertEqual(b.friends()["blocked"], [])
        # Alice may not ask nor invite the account she blocks
        st, r = a.do("request", name="Bob")
        self.assertEqual((st, code(r)), (409, "you_block"), r)
        ta = a.create(seats=[{}, {}])
        st, r = a.do("invite", table=ta["id"], name="Bob")
        self.assertEqual((st, code(r)), (409, "you_block"), r)
        self.assertEqual(a.do("block", name="Bob")[1]["outcome"], "already")
        # unblocked: his waiting request shows to her
        self.assertEqual(a.do("unblock", id=b.id)[0], 200)
        self.assertEqual(a.names("incoming"), ["Bob"])
        self.assertEqual(a.do("unblock", id=b.id)[0], 404)
        # a block removes invites between them both ways
        a.do("invite", table=ta["id"], name="Bob")
        self.assertEqual(len(b.friends()["invites"]), 1)
        a.do("block", id=b.id)
        self.assertEqual(b.friends()["invites"], [])

    def test_chat_lines_of_a_blocked_account_never_reach_the_blocker(self):
        srv = self.start(extra=OPEN + ["--chat-rate", "600", "--chat-burst", "30"])
        a, b = self.people(srv, "Alice", "Bob")
        t = a.create(seats=[{}, {}], spectator_chat=True)
        jb = b.join(t["id"])
        tid = t["id"]
        wa = self.ws(srv, tid, t["token"], headers=a.cookie_header())
        wb = self.ws(srv, tid, jb["token"], headers=b.cookie_header())
        guest = self.ws(srv, tid)
        for w in (wa, wb, guest):
            w.recv_type(("state",))
        a.do("block", name="Bob")
        wb.send({"type": "chat", "text": "from Bob"})
        wa.send({"type": "chat", "text": "from Alice"})
        # the guest and Bob get both lines in order, Alice only her own
        for w in (wb, guest):
            got = [w.recv_type(("chat",))["text"] for _ in range(2)]
            self.assertEqual(got, ["from Bob", "from Alice"])
        m = wa.recv_type(("chat",))
        self.assertEqual(m["text"], "from Alice")
        # a spectator's line of Bob's account too (the account of its session)
        spec = self.ws(srv, tid, headers=b.cookie_header())
        spec.recv_type(("state",))
        spec.send({"type": "chat", "text": "Bob watching", "name": "B"})
        self.assertEqual(guest.recv_type(("chat",))["text"], "Bob watching")
        wa.send({"type": "chat", "phrase": "gg"})
        self.assertEqual(wa.recv_type(("chat",)).get("phrase"), "gg")  # nothing of Bob's before it
        # the history: without his lines for her, with them for anyone else
        st, h, _ = a.call("GET", "/api/tables/%s/chat" % tid)
        self.assertEqual([l.get("text") for l in h["chat"]], ["from Alice", None])
        st, h, _ = srv.get("/api/tables/%s/chat" % tid)
        self.assertEqual([l.get("text") for l in h["chat"]],
                         ["from Bob", "from Alice", "Bob watching", None])


class LimitsTest(ServerCase):
    def people(self, srv, *names):
        return [Person(srv, n) for n in names]

    def test_an_online_window_shorter_than_the_presence_writes_is_refused(self):
        p = subprocess.run([CARC, "serve", "--port", "0", "--db", os.path.join(self.dir, "x"),
                            "--presence-every", "10", "--online-window", "5"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--online-window 5 is shorter than --presence-every 10", p.stderr)
        for bad in (["--presence-every", "0"], ["--max-friends", "-1"], ["--invite-rate", "x"]):
            p = subprocess.run([CARC, "serve", "--port", "0"] + bad, capture_output=True,
                               text=True, timeout=10)
            self.assertEqual(p.returncode, 2, bad)

    def test_friend_requests_an_hour(self):
        srv = self.start(extra=OPEN + ["--friend-rate", "2"])
        a, b, c, d = self.people(srv, "Alice", "Bob", "Carol", "Dave")
        self.assertEqual(a.do("request", name="Bob")[0], 200)
        self.assertEqual(a.do("request", name="Carol")[0], 200)
        a.do("remove", id=c.id)  # taking one back does not give it back
        st, r = a.do("request", name="Dave")
        self.assertEqual((st, code(r)), (429, "rate_limited"), r)
        self.assertIn("--friend-rate", r["error"]["message"])
        self.assertEqual(d.names("incoming"), [])

    def test_pending_requests_out_and_in(self):
        srv = self.start(extra=OPEN + ["--max-pending", "1"])
        a, b, c, d, e = self.people(srv, "Alice", "Bob", "Carol", "Dave", "Erin")
        self.assertEqual(a.do("request", name="Bob")[0], 200)
        st, r = a.do("request", name="Carol")
        self.assertEqual((st, code(r)), (409, "limit_reached"), r)
        # Bob holds at most twice that coming in: a new one takes the place
        # of the oldest (never refused: tests/py/test_hostile_friends.py)
        self.assertEqual(c.do("request", name="Bob")[0], 200)
        st, r = d.do("request", name="Bob")
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        self.assertEqual(sorted(b.names("incoming")), ["Carol", "Dave"])
        self.assertEqual(a.names("outgoing"), [])

    def test_friends_per_account(self):
        srv = self.start(extra=OPEN + ["--max-friends", "1"])
        a, b, c = self.people(srv, "Alice", "Bob", "Carol")
        a.do("request", name="Bob")
        c.do("request", name="Alice")
        self.assertEqual(b.do("accept", id=a.id)[0], 200)
        st, r = a.do("accept", id=c.id)
        self.assertEqual((st, code(r)), (409, "limit_reached"), r)
        st, r = a.do("request", name="Carol")  # she asked: would make friends
        self.assertEqual((st, code(r)), (409, "limit_reached"), r)
        self.assertEqual(a.names("friends"), ["Bob"])

    def test_blocks_per_account(self):
        srv = self.start(extra=OPEN + ["--max-blocks", "1"])
        a, b, c = self.people(srv, "Alice", "Bob", "Carol")
        self.assertEqual(a.do("block", name="Bob")[0], 200)
        st, r = a.do("block", name="Carol")
        self.assertEqual((st, code(r)), (409, "limit_reached"), r)
        self.assertEqual(a.names("blocked"), ["Bob"])

    def test_invites_per_table_and_an_hour(self):
        srv = self.start(extra=OPEN + ["--max-invites", "1", "--invite-rate", "2"])
        a, b, c, d = self.people(srv, "Alice", "Bob", "Carol", "Dave")
        t = a.create(seats=[{}, {}, {}])
        self.assertEqual(a.do("invite", table=t["id"], name="Bob")[0], 200)
        st, r = a.do("invite", table=t["id"], name="Carol")
        self.assertEqual((st, code(r)), (409, "limit_reached"), r)
        t2 = a.create(seats=[{}, {}])
        self.assertEqual(a.do("invite", table=t2["id"], name="Carol")[0], 200)
        t3 = a.create(seats=[{}, {}])
        st, r = a.do("invite", table=t3["id"], name="Dave")
        self.assertEqual((st, code(r)), (429, "rate_limited"), r)
        self.assertEqual(d.friends()["invites"], [])

    def test_social_requests_per_address(self):
        srv = self.start(extra=OPEN + ["--rate-social", "3"])
        a, b = self.people(srv, "Alice", "Bob")
        for _ in range(3):
            self.assertEqual(a.do("request", name="Bob")[0], 200)
        st, r, h = a.call("POST", "/api/friends/request", {"name": "Bob"})
        self.assertEqual((st, code(r)), (429, "rate_limited"), r)
        self.assertIn("--rate-social", r["error"]["message"])
        self.assertGreater(int(h.get("Retry-After", h.get("retry-after", "0"))), 0)
        # reading the lists is not a social write
        self.assertEqual(a.call("GET", "/api/friends")[0], 200)


if __name__ == "__main__":
    unittest.main(verbosity=2)
