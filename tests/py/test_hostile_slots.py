"""Table slots come back (issue 21, "table slots never come back").

A table where a person plays against a bot starts at once; when the person
never moves and there is no clock, it used to hold its place in memory
for good: with --max-tables 60 one address filled the server in 0.1 s and
every other address then got 503 `busy` for tables and uploads. Now such a
table needs nothing in memory until its person comes back (it leaves when
room is needed, and loads when asked for), and one address may hold at
most --max-tables-share percent of --max-tables with tables that do need
their place (here: bot games pausing before their moves).

Run: CARC=build/test/carc python3 tests/py/test_hostile_slots.py
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase  # noqa: E402
from test_limits import Client  # noqa: E402

LIMITS = ["--max-tables", "60", "--rate-tables", "0", "--max-open-tables", "0"]


class SlotTest(ServerCase):

    def record(self, srv):
        """A finished game's record to upload."""
        made = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], bot_delay_ms=0,
                          tiles={"U": 2, "E": 1})
        self.wait_over(srv, made["id"])
        st, rec, _ = srv.get("/api/tables/%s/record" % made["id"])
        self.assertEqual(st, 200)
        return rec

    def test_idle_people_against_bots_do_not_fill_the_server(self):
        srv = self.start(extra=LIMITS + ["--max-tables-share", "0"])
        rec = self.record(srv)
        attacker = Client(srv.port, "127.0.0.2")
        refused = 0
        for _ in range(150):
            st, body, _, _ = attacker.request("POST", "/api/tables",
                                              {"seats": [{}, {"bot": "random"}], "name": "idle"})
            if st != 201:
                refused += 1
        attacker.close()
        self.assertEqual(refused, 0, "the idle tables were refused: they should not hold memory")
        # everyone else can still make tables and upload records
        other = Client(srv.port, "127.0.0.3")
        st, body, _, _ = other.request("POST", "/api/tables",
                                       {"seats": [{}, {"bot": "random"}], "name": "me"})
        self.assertEqual(st, 201, body)
        st, body, _, _ = other.request("POST", "/api/records", raw=json.dumps(rec))
        self.assertEqual(st, 201, body)
        # and an idle table comes back when its person does
        st, health, _ = srv.get("/api/health")
        self.assertLessEqual(health["tables"], 60)

    def test_one_address_holds_at_most_its_share(self):
        srv = self.start(extra=LIMITS + ["--max-tables-share", "10"])
        attacker = Client(srv.port, "127.0.0.2")
        codes = []
        for _ in range(12):
            # bot games pausing 60 s before each move: they need their place
            st, body, hd, _ = attacker.request("POST", "/api/tables",
                                               {"seats": [{"bot": "random"}, {"bot": "random"}],
                                                "bot_delay_ms": 60000})
            codes.append(st)
            if st == 429:
                self.assertEqual(body["error"]["code"], "rate_limited", body)
                self.assertIn("retry-after", hd)
        attacker.close()
        self.assertEqual(codes[:6], [201] * 6, codes)
        self.assertEqual(codes[6:], [429] * 6, codes)
        other = Client(srv.port, "127.0.0.3")
        st, body, _, _ = other.request("POST", "/api/tables",
                                       {"seats": [{"bot": "random"}, {"bot": "random"}],
                                        "bot_delay_ms": 60000})
        self.assertEqual(st, 201, body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
