"""Quick match against the real server (issue 22, item 2): accounts queued
with the same choice are seated at one new rated table, a window that
widens with waiting, one queue per person (a second join replaces the
first), leaving, entries that expire without a poll, guests refused, and
the limits: per address, per account, the queue's cap, malformed choices.

    CARC=build/release/carc python3 tests/py/test_quickmatch.py
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, connect_db  # noqa: E402
from test_accounts import Client  # noqa: E402

CHOICE = {"players": 2, "rules": "base", "clock": "rt-60"}


class QuickMatchCase(ServerCase):

    def start(self, db="carc.sqlite", extra=(), web=None):
        # the tests poll quicker than a page: no --match-poll-ms unless a test sets it
        extra = list(extra)
        if "--match-poll-ms" not in extra:
            extra += ["--match-poll-ms", "0"]
        return ServerCase.start(self, db, extra, web)

    def people(self, srv, *names):
        out = []
        for n in names:
            c = Client(srv)
            st, r, _ = c.register(n)
            self.assertEqual(st, 201, r)
            out.append(c)
        return out

    def join(self, c, choice=None, want=201):
        st, r, h = c.call("POST", "/api/match", choice or CHOICE)
        self.assertEqual(st, want, r)
        return r

    def poll(self, c):
        st, r, _ = c.call("GET", "/api/match")
        self.assertEqual(st, 200, r)
        return r

    def wait_matched(self, c, timeout=10):
        end = time.time() + timeout
        r = None
        while time.time() < end:
            r = self.poll(c)
            if r["state"] == "matched" and r["ready"]:
                return r
            time.sleep(0.02)
        self.fail("not matched in %d s: %r" % (timeout, r))

    def set_rating(self, srv, name, rating):
        db = connect_db(srv.db)
        db.execute("UPDATE accounts SET rating=%s WHERE name='%s'" % (rating, name))
        getattr(db, "commit", lambda: None)()  # sqlite3; psql commits each statement
        db.close()


class MatchTest(QuickMatchCase):

    def test_two_people_meet_at_one_rated_table_and_claim_their_seats(self):
        srv = self.start()
        a, b = self.people(srv, "anna", "bert")
        r = self.join(a)
        self.assertEqual(r["state"], "waiting")
        self.assertEqual((r["players"], r["rules"], r["clock"]), (2, "base", "rt-60"))
        self.join(b)
        ma, mb = self.wait_matched(a), self.wait_matched(b)
        self.assertEqual(ma["table"], mb["table"])
        self.assertEqual(sorted([ma["seat"], mb["seat"]]), [0, 1])
        tid = ma["table"]
        st, info, _ = srv.get("/api/tables/" + tid)
        self.assertEqual(st, 200, info)
        self.assertEqual(info["status"], "playing")
        self.assertEqual(sorted(s["name"] for s in info["seats"]), ["anna", "bert"])
        self.assertEqual(info["options"]["clock"]["mode"], "realtime")
        self.assertEqual(info["options"]["clock"]["move_s"], 60)
        # the seats belong to the accounts: each claims its own
        for c, m in ((a, ma), (b, mb)):
            st, cl, _ = c.call("POST", "/api/tables/%s/claim" % tid)
            self.assertEqual(st, 200, cl)
            self.assertEqual(cl["seat"], m["seat"])
            st, mine, _ = c.call("GET", "/api/me/games")
            self.assertIn(tid, [g["id"] for g in mine["games"]])

    def test_expansion_preset_and_three_players(self):
        srv = self.start()
        ppl = self.people(srv, "cara", "dirk", "emil")
        choice = {"players": 3, "rules": "ic-tb", "clock": "tb-1d"}
        for c in ppl[:2]:
            self.join(c, choice)
        time.sleep(0.5)
        self.assertEqual(self.poll(ppl[0])["state"], "waiting")  # two of three
        self.join(ppl[2], choice)
        ms = [self.wait_matched(c) for c in ppl]
        self.assertEqual(len({m["table"] for m in ms}), 1)
        st, info, _ = srv.get("/api/tables/" + ms[0]["table"])
        self.assertEqual(sorted(info["options"]["expansions"]),
                         ["inns-cathedrals", "traders-builders"])
        self.assertEqual(info["options"]["clock"]["mode"], "turn")

    def test_different_choices_do_not_meet(self):
        srv = self.start()
        a, b = self.people(srv, "fritz", "gina")
        self.join(a)
        self.join(b, dict(CHOICE, clock="rt-30"))
        time.sleep(1)
        self.assertEqual(self.poll(a)["state"], "waiting")
        self.assertEqual(self.poll(b)["state"], "waiting")

    def test_window_widens_with_waiting(self):
        # window = 50 + 50/s: 200 points apart meet after about 3 s, not at once
        srv = self.start(extra=["--match-window", "50", "--match-widen", "50",
                                "--match-window-max", "1000"])
        a, b = self.people(srv, "hanna", "igor")
        self.set_rating(srv, "igor", 1700)
        t0 = time.time()
        r = self.join(a)
        self.assertEqual(r["window"], 50)
        self.join(b)
        time.sleep(1.0)
        r = self.poll(a)
        self.assertEqual(r["state"], "waiting", r)
        self.assertGreater(r["window"], 50)
        m = self.wait_matched(a, timeout=10)
        waited = time.time() - t0
        self.assertGreaterEqual(waited, 2.5)
        self.assertEqual(self.wait_matched(b)["table"], m["table"])

    def test_far_apart_never_meet_within_the_widest_window(self):
        srv = self.start(extra=["--match-window", "50", "--match-widen", "100",
                                "--match-window-max", "150"])
        a, b = self.people(srv, "jana", "karl")
        self.set_rating(srv, "karl", 1900)
        self.join(a)
        self.join(b)
        time.sleep(2.5)
        self.assertEqual(self.poll(a)["state"], "waiting")
        self.assertEqual(self.poll(a)["window"], 150)

    def test_a_bot_game_is_offered_after_the_documented_time(self):
        srv = self.start(extra=["--match-bot-after", "1"])
        (a,) = self.people(srv, "lena")
        r = self.join(a)
        self.assertFalse(r["offer_bot"])
        self.assertEqual(r["bot_after_s"], 1)
        time.sleep(1.2)
        r = self.poll(a)
        self.assertTrue(r["offer_bot"])
        self.assertEqual(r["state"], "waiting")  # keeps waiting unless it leaves


class SpeedTest(QuickMatchCase):

    def test_from_the_second_join_to_a_stored_table(self):
        srv = self.start(extra=["--rate-logins", "0", "--auth-queue-per-addr", "0",
                                "--rate-match", "0", "--rate-match-account", "0"])
        times = []
        for i in range(8):
            a, b = self.people(srv, "sa%02d" % i, "sb%02d" % i)
            self.join(a)
            t0 = time.time()
            self.join(b)
            self.wait_matched(b)
            times.append((time.time() - t0) * 1000)
        times.sort()
        print("quick match: second join to the table stored: p50 %.1f ms, max %.1f ms (%d pairs)"
              % (times[len(times) // 2], times[-1], len(times)), file=sys.stderr)
        self.assertLess(times[-1], 3000)


class QueueTest(QuickMatchCase):

    def test_one_queue_per_person_a_second_join_replaces_the_first(self):
        srv = self.start()
        a, b = self.people(srv, "mara", "nils")
        self.join(a, dict(CHOICE, clock="rt-30"))
        self.join(a)  # the same person, another choice: replaces
        r = self.poll(a)
        self.assertEqual(r["clock"], "rt-60")
        db = connect_db(srv.db)
        self.assertEqual(db.execute("SELECT count(*) FROM match_queue").fetchall()[0][0], 1)
        db.close()
        # nils choosing rt-30 does not meet mara's replaced entry
        self.join(b, dict(CHOICE, clock="rt-30"))
        time.sleep(1)
        self.assertEqual(self.poll(b)["state"], "waiting")

    def test_leave_is_one_request(self):
        srv = self.start()
        a, b = self.people(srv, "olga", "paul")
        self.join(a)
        st, r, _ = a.call("POST", "/api/match/leave")
        self.assertEqual(st, 200, r)
        self.assertEqual(self.poll(a)["state"], "none")
        self.join(b)
        time.sleep(1)
        self.assertEqual(self.poll(b)["state"], "waiting")  # nobody to meet

    def test_an_entry_not_polled_expires_and_is_never_matched(self):
        srv = self.start(extra=["--match-ttl", "2"])
        a, b = self.people(srv, "quin", "rosa")
        self.join(a)
        time.sleep(2.5)  # anna stopped polling: her entry is dead
        self.join(b)
        time.sleep(1)
        self.assertEqual(self.poll(b)["state"], "waiting")
        self.assertEqual(self.poll(a)["state"], "none")

    def test_a_polled_entry_stays(self):
        srv = self.start(extra=["--match-ttl", "2"])
        a, b = self.people(srv, "sven", "tina")
        self.join(a)
        for _ in range(5):
            time.sleep(0.6)
            self.assertEqual(self.poll(a)["state"], "waiting")
        self.join(b)
        self.assertEqual(self.wait_matched(a)["table"], self.wait_matched(b)["table"])

    def test_guests_see_the_choices_but_may_not_join(self):
        srv = self.start()
        st, r, _ = srv.http("GET", "/api/match")
        self.assertEqual(st, 200, r)
        self.assertEqual(r["state"], "guest")
        self.assertEqual(r["choices"]["players"], [2, 3, 4])
        self.assertEqual([x["id"] for x in r["choices"]["rules"]], ["base", "ic", "ic-tb", "all"])
        self.assertIn("rt-60", [x["id"] for x in r["choices"]["clocks"]])
        st, r, _ = srv.http("POST", "/api/match", body=CHOICE)
        self.assertEqual(st, 401, r)
        self.assertEqual(r["error"]["code"], "not_logged_in")


class LimitTest(QuickMatchCase):

    def test_malformed_choices(self):
        srv = self.start()
        (a,) = self.people(srv, "ulla")
        for bad in ({"players": 1, "rules": "base", "clock": "rt-60"},
                    {"players": 5, "rules": "base", "clock": "rt-60"},
                    {"players": "2", "rules": "base", "clock": "rt-60"},
                    {"players": 2, "rules": "river", "clock": "rt-60"},
                    {"players": 2, "rules": "base", "clock": "rt-5"},
                    {"players": 2, "rules": "base", "clock": {"mode": "none"}},
                    {"players": 2, "rules": "base", "clock": "rt-60", "seed": 1},
                    [2, "base", "rt-60"],
                    {"players": 2, "rules": "b" * 5000, "clock": "rt-60"}):
            st, r, _ = a.call("POST", "/api/match", bad)
            self.assertIn(st, (400, 413), (bad, r))
        self.assertEqual(self.poll(a)["state"], "none")
        st, r, _ = a.call("DELETE", "/api/match")
        self.assertEqual(st, 405, r)

    def test_another_site_cannot_join_or_leave_for_a_person(self):
        srv = self.start()
        (a,) = self.people(srv, "dora")
        self.join(a)
        for path in ("/api/match", "/api/match/leave"):
            st, r, _ = srv.http("POST", path, body=CHOICE,
                                headers={"Cookie": "carc_session=" + a.session,
                                         "Origin": "https://evil.example"})
            self.assertEqual((st, r["error"]["code"]), (403, "bad_origin"), r)
        self.assertEqual(self.poll(a)["clock"], "rt-60")  # still queued, unchanged

    def test_per_address_limit(self):
        srv = self.start(extra=["--rate-match", "3", "--rate-match-account", "0"])
        (a,) = self.people(srv, "vera")
        for _ in range(3):
            self.join(a)
        st, r, h = a.call("POST", "/api/match", CHOICE)
        self.assertEqual(st, 429, r)
        self.assertIn("--rate-match", r["error"]["message"])
        self.assertTrue(int(h.get("retry-after")) >= 1)

    def test_per_account_limit_across_addresses_is_kept_in_the_store(self):
        srv = self.start(extra=["--rate-match", "0", "--rate-match-account", "2"])
        (a,) = self.people(srv, "walt")
        self.join(a)
        self.join(a)
        st, r, _ = a.call("POST", "/api/match", CHOICE)
        self.assertEqual(st, 429, r)
        self.assertIn("--rate-match-account", r["error"]["message"])
        self.assertGreaterEqual(r["error"]["retry_after_s"], 1)
        # another account from the same address may still join
        (b,) = self.people(srv, "xena")
        self.join(b)

    def test_polls_of_one_account_are_spaced(self):
        srv = self.start(extra=["--match-poll-ms", "500"])
        a, b = self.people(srv, "bodo", "cleo")
        self.join(a)
        self.assertEqual(self.poll(a)["state"], "waiting")
        st, r, h = a.call("GET", "/api/match")
        self.assertEqual(st, 429, r)
        self.assertIn("--match-poll-ms", r["error"]["message"])
        self.assertEqual(h.get("retry-after"), "1")
        st, r, _ = b.call("GET", "/api/match")  # another account is not held up
        self.assertEqual(st, 200, r)
        time.sleep(0.55)
        self.assertEqual(self.poll(a)["state"], "waiting")

    def test_the_queue_has_a_cap(self):
        srv = self.start(extra=["--match-max", "2"])
        ppl = self.people(srv, "yara", "zeno", "abel")
        self.join(ppl[0], dict(CHOICE, clock="rt-30"))
        self.join(ppl[1], dict(CHOICE, clock="rt-120"))
        st, r, _ = ppl[2].call("POST", "/api/match", CHOICE)
        self.assertEqual(st, 503, r)
        self.assertEqual(r["error"]["code"], "queue_full")
        # one already in may change its choice (it replaces, the queue does not grow)
        self.join(ppl[0], CHOICE)
        # and a place frees when someone leaves
        ppl[1].call("POST", "/api/match/leave")
        self.join(ppl[2], CHOICE)


if __name__ == "__main__":
    unittest.main()
