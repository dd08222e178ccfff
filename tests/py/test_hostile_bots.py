"""One address must not starve everyone's bots (issue 21, the bot pool).

An attacker from 127.0.0.2 makes 24 bot-against-bot tables of the
strongest level (expert: mcts for 1 s a move); a person on 127.0.0.1 then
plays against the medium bot. Before the fair pool the person's bot waited
behind the queue of expert moves (12 s with 2 threads); now a person's move
goes first, stops a bot-only move if no worker is free, and an address
whose bots think more than --bot-cpu-per-addr a minute has its moves
played by greedy. Prints the person's bot's reply times (the table in
docs/server.md, "Bots").

Run: CARC=build/test/carc python3 tests/py/test_hostile_bots.py
"""
import os
import statistics
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import ServerCase, first_legal  # noqa: E402
from test_limits import Client  # noqa: E402

FLOOD_TABLES = 24
MOVES = 6


class BotFloodTest(ServerCase):

    def flood(self, srv, level):
        c = Client(srv.port, "127.0.0.2")
        made = []
        for _ in range(FLOOD_TABLES):
            st, body, _, _ = c.request("POST", "/api/tables",
                                       {"seats": [{"bot": level}, {"bot": level}],
                                        "bot_delay_ms": 0})
            self.assertEqual(st, 201, body)
            made.append(body["id"])
        c.close()
        return made

    def reply_times(self, srv):
        """A person (127.0.0.1) against the medium bot: seconds from each of
        the person's moves to the bot's answer."""
        made = srv.create(seats=[{}, {"bot": "medium"}], name="victim", bot_delay_ms=0)
        w = self.ws(srv, made["id"], made["token"])
        nxt = w.recv_type("state")["game"]["next"]
        waits = []
        while len(waits) < MOVES and not nxt["over"]:
            if nxt["to_move"] != 0:
                m = w.recv_type("move", timeout=60)
                nxt = m["next"]
                continue
            turn = nxt["turn"]
            w.send(dict(first_legal(nxt), type="move", turn=turn))
            m = w.recv_type("move", timeout=60)
            self.assertEqual(m["entry"]["turn"], turn)
            t0 = time.time()
            nxt = m["next"]
            while not nxt["over"] and nxt["to_move"] != 0:
                m = w.recv_type("move", timeout=60)
                nxt = m["next"]
            waits.append(time.time() - t0)
        return waits

    def metric(self, srv, name):
        st, text, _ = srv.get("/api/metrics")
        for line in text.splitlines() if isinstance(text, str) else []:
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    def test_a_flood_of_expert_bot_tables_does_not_starve_a_person_s_bot(self):
        srv = self.start(extra=["--bot-threads", "2", "--rate-tables", "0",
                                "--max-open-tables", "0", "--bot-delay", "0"])
        self.flood(srv, "expert")
        time.sleep(1.0)  # every worker busy with expert moves
        waits = self.reply_times(srv)
        med = statistics.median(waits)
        print("\n  a person's medium bot behind %d expert bot-only tables (2 threads): "
              "replies in %s s, median %.3f s; moves cut short %s, played by greedy over "
              "the budget %s" % (FLOOD_TABLES, " ".join("%.3f" % x for x in waits), med,
                                 self.metric(srv, "carc_bot_moves_cut_short_total"),
                                 self.metric(srv, "carc_bot_moves_over_budget_total")),
              file=sys.stderr)
        self.assertEqual(len(waits), MOVES)
        self.assertLess(med, 0.2, waits)

    def test_an_address_over_its_budget_has_greedy_play_its_moves(self):
        srv = self.start(extra=["--bot-threads", "2", "--rate-tables", "0",
                                "--max-open-tables", "0", "--bot-cpu-per-addr", "2"])
        tables = self.flood(srv, "expert")
        deadline = time.time() + 20
        over = 0
        while time.time() < deadline:
            over = self.metric(srv, "carc_bot_moves_over_budget_total") or 0
            if over >= 20:
                break
            time.sleep(0.2)
        self.assertGreaterEqual(over, 20, "no move was played by the fallback")
        # the attacker's tables go on (at greedy's speed), they are not stopped
        st, info, _ = srv.get("/api/tables/" + tables[0])
        self.assertEqual(st, 200)
        self.assertGreater(info["turn"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
