"""Hostile clients against friends and invites (issue 26, findings 8-10),
against the real server on loopback (docs/protocol.md section 9,
docs/server.md "Friends"):

- an account's id names it only to someone it is linked with (a friend, a
  request either way, a block of the asker's, an invite to the asker):
  `block {"id": N}` for N = 1, 2, ... told the name of every account,
  also of those `/api/player` hides behind 404;
- a full inbox (twice --max-pending requests coming in) drops its oldest
  request for the new one: strangers cannot keep a real friend's request
  out, an existing friend's invite goes through, and a blocked account's
  request is answered exactly as a stranger's (a 409 for strangers and a
  200 for it told the block);
- the invite endpoint says 404 for a table the asker may not see (a
  private table that has started), as every other endpoint does.

Also run on PostgreSQL (tests/pg/run.sh lists it).

Run: CARC=build/test/carc python3 tests/py/test_hostile_friends.py
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase  # noqa: E402
from test_friends import OPEN, Person, code  # noqa: E402


class IdsTest(ServerCase):
    def test_an_id_names_nobody_the_asker_is_not_linked_with(self):
        srv = self.start(extra=OPEN)
        alice, hidden, bob = Person(srv, "Alice"), Person(srv, "Hidden"), Person(srv, "Bob")
        # Hidden has played no game: its profile is hidden (404), like a missing name
        st, r, _ = srv.get("/api/player?name=Hidden")
        self.assertEqual(st, 404, r)
        # an id nobody holds
        missing = alice.do("block", id=hidden.id + 1000)
        self.assertEqual((missing[0], code(missing[1])), (404, "not_found"), missing)
        # Hidden's id, which Alice is not linked with: the same answer, for every verb
        for verb in ("block", "unblock", "request", "accept", "decline", "remove"):
            st, r = alice.do(verb, id=hidden.id)
            self.assertEqual((st, r), missing, (verb, r))
            self.assertNotIn("Hidden", json.dumps(r), verb)
        # and nothing was done
        self.assertEqual(alice.names("blocked") + alice.names("outgoing"), [])
        self.assertEqual(hidden.names("incoming"), [])
        # the ids of the lists work: a request in, accepted and blocked by id
        self.assertEqual(hidden.do("request", name="Alice")[0], 200)
        (req,) = alice.friends()["incoming"]
        self.assertEqual(req["id"], hidden.id)
        self.assertEqual(alice.do("accept", id=req["id"])[0], 200)
        st, r = alice.do("block", id=hidden.id)
        self.assertEqual((st, r["outcome"], r["account"]["name"]), (200, "done", "Hidden"), r)
        self.assertEqual(alice.do("unblock", id=hidden.id)[0], 200)
        # unblocked, nothing links them any more: the id says nothing again
        self.assertEqual(alice.do("block", id=hidden.id), missing)
        # an invite's sender, by the id its invite shows
        t = bob.create(seats=[{}, {}])
        self.assertEqual(bob.do("invite", table=t["id"], name="Alice")[0], 200)
        (inv,) = alice.friends()["invites"]
        st, r = alice.do("request", id=inv["from"]["id"])
        self.assertEqual((st, r["outcome"]), (200, "done"), r)
        # which links them both ways: Bob accepts her request by the id it shows
        self.assertEqual(bob.do("accept", id=bob.friends()["incoming"][0]["id"])[0], 200)
        # oneself is still malformed, before anything is read
        self.assertEqual(alice.do("block", id=alice.id)[0], 400)


class InboxTest(ServerCase):
    def test_a_full_inbox_takes_a_real_friends_request_and_hides_a_block(self):
        # --max-pending 2: an account holds 4 requests coming in
        srv = self.start(extra=OPEN + ["--max-pending", "2"])
        victim = Person(srv, "Victim")
        pal = Person(srv, "Pal")  # a friend already
        pal.do("request", name="Victim")
        self.assertEqual(victim.do("accept", id=pal.id)[0], 200)
        mallory = Person(srv, "Mallory")
        self.assertEqual(victim.do("block", name="Mallory")[0], 200)
        strangers = [Person(srv, "Stranger%d" % i) for i in range(5)]
        for s in strangers[:4]:
            st, r = s.do("request", name="Victim")
            self.assertEqual((st, r["outcome"]), (200, "done"), r)
        self.assertEqual(len(victim.friends()["incoming"]), 4)
        # the inbox is full of strangers: a real friend's request still goes in
        frank = Person(srv, "Frank")
        st, r = frank.do("request", name="Victim")
        self.assertEqual((st, r.get("outcome"), code(r)), (200, "done", None), r)
        incoming = victim.names("incoming")
        self.assertEqual(len(incoming), 4, incoming)
        self.assertEqual(incoming[0], "Frank")  # the newest first
        self.assertNotIn("Stranger0", incoming)  # the oldest went for it
        self.assertNotIn("Victim", strangers[0].names("outgoing"))
        self.assertEqual(victim.do("accept", name="Frank")[0], 200)
        self.assertIn("Frank", victim.names("friends"))
        # a blocked account is answered as a stranger whose request is queued:
        # the same status and body
        blocked = mallory.do("request", name="Victim")
        stranger = strangers[4].do("request", name="Victim")
        self.assertEqual(stranger[0], 200, stranger)
        self.assertEqual(blocked, stranger)
        self.assertEqual(mallory.names("outgoing"), ["Victim"])  # pending, as for anyone
        incoming = victim.names("incoming")
        self.assertNotIn("Mallory", incoming)  # never shown to her
        # his hidden request holds a place of the four like any other (so it
        # goes as the others' do, and his own list tells him nothing)
        self.assertEqual(sorted(incoming), ["Stranger2", "Stranger3", "Stranger4"])
        # an existing friend's invite goes through the full inbox
        t = pal.create(seats=[{}, {}])
        st, r = pal.do("invite", table=t["id"], name="Victim")
        self.assertEqual((st, r.get("outcome")), (200, "done"), r)
        (inv,) = victim.friends()["invites"]
        self.assertEqual((inv["table"], inv["from"]["name"]), (t["id"], "Pal"))
        # the oldest goes for the newest, hidden or not: Stranger2's,
        # Stranger3's, Mallory's, Stranger4's
        late = ["Late%d" % i for i in range(4)]
        for who in late:
            self.assertEqual(Person(srv, who).do("request", name="Victim"), stranger)
            if who == "Late1":
                self.assertEqual(mallory.names("outgoing"), ["Victim"])
        self.assertEqual(victim.names("incoming"), late[::-1])
        self.assertEqual(mallory.names("outgoing"), [])


class InviteTest(ServerCase):
    def test_a_started_private_table_is_not_found_for_an_invite(self):
        srv = self.start(extra=OPEN)
        alice, bob, carol, dave = (Person(srv, n) for n in ("Alice", "Bob", "Carol", "Dave"))
        missing = carol.do("invite", table="nosuchtable", name="Dave")
        self.assertEqual((missing[0], code(missing[1])), (404, "not_found"), missing)
        t = alice.create(seats=[{}, {}], private=True)
        # open, a private table is reached by its id: not a player, Carol is told so
        st, r = carol.do("invite", table=t["id"], name="Dave")
        self.assertEqual((st, code(r)), (403, "bad_token"), r)
        bob.join(t["id"])
        # started, it is hidden from whoever holds no seat: as if there were none
        self.assertEqual(srv.get("/api/tables/" + t["id"])[0], 404)
        self.assertEqual(carol.do("invite", table=t["id"], name="Dave"), missing)
        # its players are told what it is
        st, r = alice.do("invite", table=t["id"], name="Dave")
        self.assertEqual((st, code(r)), (409, "table_full"), r)


if __name__ == "__main__":
    unittest.main(verbosity=2)
