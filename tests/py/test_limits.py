"""Abuse limits of `carc serve` and the request-level defects of issue 11
(4: one address fills the server, 5: seeds that do not load back, 6: private
tables listed, 7: unbounded uploads replayed at start, 9: out-of-range turns).

Run: CARC=build/test/carc python3 tests/py/test_limits.py

Clients take different source addresses on loopback (127.0.0.2, ...) to be
different addresses to the server. Every flood runs a few client threads for
a bounded time while a separate process asks /api/health and measures how
long the answers take; the figures are printed, one line per flood, and only
a generous bound is asserted (the machine is shared).
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import CARC, HOST, Server, ServerCase, WSClosed, first_legal  # noqa: E402

FLOOD_S = 2.5
HEALTH_MAX_MS = 500  # asserted; the printed p50/p99 are what to read


class Client:
    """A keep-alive HTTP client from one source address."""

    def __init__(self, port, src="127.0.0.1", timeout=10):
        self.port, self.src, self.timeout = port, src, timeout
        self.conn = None

    def request(self, method, path, body=None, token=None, raw=None):
        hdrs = {}
        data = None
        if raw is not None:
            data = raw if isinstance(raw, bytes) else raw.encode()
        elif body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        if token:
            hdrs["Authorization"] = "Bearer " + token
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout,
                                                       source_address=(self.src, 0))
            try:
                self.conn.request(method, path, body=data, headers=hdrs)
                r = self.conn.getresponse()
                text = r.read()
                hd = {k.lower(): v for k, v in r.getheaders()}
                if hd.get("connection", "").lower() == "close":
                    self.close()
                try:
                    val = json.loads(text)
                except ValueError:
                    val = text
                return r.status, val, hd, len(text)
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def __del__(self):
        self.close()

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


HEALTH_SCRIPT = r"""
import http.client, json, sys, time
port, seconds = int(sys.argv[1]), float(sys.argv[2])
lat, errors = [], 0
conn = None
end = time.time() + seconds
while time.time() < end:
    t0 = time.perf_counter()
    try:
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/health")
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            errors += 1
    except Exception:
        errors += 1
        conn = None
    lat.append((time.perf_counter() - t0) * 1000)
    time.sleep(0.01)
print(json.dumps({"lat": lat, "errors": errors}))
"""


class HealthProbe:
    """A normal client in a process of its own (so the flood's threads do not
    slow it down in this interpreter): /api/health every 10 ms."""

    def __init__(self, port, seconds):
        self.proc = subprocess.Popen([sys.executable, "-c", HEALTH_SCRIPT, str(port), str(seconds)],
                                     stdout=subprocess.PIPE)

    def result(self):
        out, _ = self.proc.communicate(timeout=30)
        r = json.loads(out)
        lat = sorted(r["lat"])
        if not lat:
            return {"n": 0, "p50": 0, "p99": 0, "max": 0, "errors": r["errors"]}

        def pct(p):
            return lat[min(len(lat) - 1, int(p * len(lat)))]
        return {"n": len(lat), "p50": pct(0.5), "p99": pct(0.99), "max": lat[-1],
                "errors": r["errors"]}


def flood(port, work, threads=4, seconds=FLOOD_S, srcs=("127.0.0.2",)):
    """Runs work(client, i) -> status in `threads` threads for `seconds`, with a
    health probe. Returns the statuses with their times, and the probe's figures."""
    results, lock = [], threading.Lock()
    probe = HealthProbe(port, seconds + 0.3)
    time.sleep(0.1)  # the probe's first request before the flood
    t0 = time.time()
    end = t0 + seconds

    def run(k):
        c = Client(port, srcs[k % len(srcs)], timeout=5)
        i = 0
        mine = []
        while time.time() < end and i < 200000:
            try:
                st = work(c, i)
            except (OSError, http.client.HTTPException, WSClosed):
                st = -1
            mine.append((time.time() - t0, st))
            i += 1
        c.close()
        with lock:
            results.extend(mine)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(seconds + 20)
    return sorted(results), probe.result()


def report(name, results, health, accepted_ok=lambda st: st != 429):
    """Prints the flood's line and returns (accepted, refused)."""
    acc = [t for t, st in results if accepted_ok(st)]
    ref = [t for t, st in results if st == 429]
    first = ref[0] if ref else None
    before = [t for t in acc if first is None or t <= first]
    span = max(first if first is not None else (results[-1][0] if results else 0), 1e-3)
    after = (results[-1][0] - first) if first is not None and results else 0
    acc_rate = len(before) / span
    ref_rate = len(ref) / after if after > 0 else 0
    print("flood %s: %d accepted then 429%s; %s accepted/s before the limit, %s refused/s; "
          "health p50 %.1f ms p99 %.1f ms max %.1f ms (%d probes, %d errors)"
          % (name, len(acc), "" if ref else " (never)",
             format(int(acc_rate), ","), format(int(ref_rate), ","),
             health["p50"], health["p99"], health["max"], health["n"], health["errors"]),
          file=sys.stderr, flush=True)
    return len(acc), len(ref)


def sanitizer_clean(testcase, srv):
    log = srv.read_log()
    for word in ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehavior"):
        testcase.assertNotIn(word, log)


def tiny_record(srv):
    """The record of a finished two-bot game on a short pile."""
    c = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], tiles={"U": 2, "E": 1})
    deadline = time.time() + 10
    while time.time() < deadline:
        st, info, _ = srv.get("/api/tables/" + c["id"])
        if info.get("status") == "over":
            break
        time.sleep(0.05)
    st, rec, _ = srv.get("/api/tables/%s/record" % c["id"])
    assert st == 200, rec
    return rec


class LimitsTest(ServerCase):

    def tearDown(self):
        for s in self.servers:
            if s.proc.poll() is None:
                s.stop()
            sanitizer_clean(self, s)
        super().tearDown()

    # ---- defect 5: seeds ---------------------------------------------------------

    def test_seeds_accepted_load_back_and_bad_ones_are_refused(self):
        srv = self.start()
        good = [0, 2 ** 53, 2 ** 63 - 1, "0", "9007199254740992", "9223372036854775808",
                "18446744073709551615", "00042"]
        bad = [-1, "-1", 1.5, "1.5", "abc", "", " 5", "+5", "18446744073709551616",
               "99999999999999999999", True, None, [1], {"a": 1}]
        opened, over = {}, {}
        for seed in good:
            c = srv.create(name="a", seed=seed)
            opened[c["id"]] = seed
            c = srv.create(seats=[{"bot": "random"}, {"bot": "random"}], tiles={"U": 2},
                           seed=seed)
            over[c["id"]] = seed
        for seed in bad:
            st, r, _ = srv.post("/api/tables", {"name": "a", "seed": seed})
            self.assertEqual((st, r["error"]["code"]), (400, "bad_option"), seed)
            self.assertIn("seed", r["error"]["message"])
        # 2^64 - 1 as a JSON integer is more than JSON readers hold: refused as such
        st, r, _ = srv.http("POST", "/api/tables", raw='{"name":"a","seed":18446744073709551615}')
        self.assertEqual((st, r["error"]["code"]), (400, "malformed"))
        self.assertIn("integer", r["error"]["message"])
        for tid in over:
            self.wait_over(srv, tid, timeout=10)

        def check(server):
            for tid, seed in opened.items():
                st, info, _ = server.get("/api/tables/" + tid)
                self.assertEqual(st, 200, (tid, seed))
                self.assertEqual(info["status"], "open")
            for tid, seed in over.items():
                st, info, _ = server.get("/api/tables/" + tid)
                self.assertEqual(st, 200, (tid, seed))
                self.assertEqual(int(info["options"]["seed"]), int(seed), seed)
                st, rec, _ = server.get("/api/tables/%s/record" % tid)
                self.assertEqual(int(rec["seed"]), int(seed), seed)
        check(srv)
        srv.kill()
        srv2 = self.start()
        check(srv2)  # every seed accepted is a seed that loads
        self.assertNotIn("cannot be loaded", srv2.read_log())

    # ---- defect 9: turns ---------------------------------------------------------

    def test_a_turn_out_of_range_is_malformed_over_http_and_websocket(self):
        srv = self.start()
        c = srv.create(players=2, name="a")
        tid, ta = c["id"], c["token"]
        srv.join(tid, "b")
        nxt = srv.state(tid, ta)["game"]["next"]
        move = first_legal(nxt)
        path = "/api/tables/%s/move" % tid
        # the ranges are the engine's capacities, as GET /api/options tells them
        limits = srv.get("/api/options")[1]["limits"]
        for key in ("turn", "step"):
            most = limits[key]
            self.assertGreaterEqual(most, 125, key)  # every tile of every set, one step each
            for v in (4294967296, 2 ** 32 + 1, 2 ** 63 - 1, -1, -4294967296, 1.5, "0", None,
                      True, most + 1, 10 ** 6):
                st, r, _ = srv.post(path, dict(move, **{key: v}), token=ta)
                self.assertEqual((st, r["error"]["code"]), (400, "malformed"), (key, v))
                self.assertIn("%s must be an integer from 0 to %d" % (key, most),
                              r["error"]["message"])
            for v in (5, most):
                st, r, _ = srv.post(path, dict(move, **{key: v}), token=ta)
                self.assertEqual((st, r["error"]["code"]), (409, "stale_turn"), (key, v))
        self.assertEqual(srv.state(tid, ta)["game"]["next"]["turn"], 0)
        w = self.ws(srv, tid, ta)
        w.recv_type("state")
        for k, (key, v) in enumerate([("turn", 4294967296), ("turn", -1), ("turn", 2 ** 63 - 1),
                                      ("turn", 1.5), ("turn", "0"), ("step", -1),
                                      ("step", limits["step"] + 1), ("step", "0")]):
            w.send(dict(move, type="move", ref=k, **{key: v}))
            e = w.recv_type("error")
            self.assertEqual((e["code"], e["ref"]), ("malformed", k), (key, v))
            self.assertIn(key, e["message"])
        for key in ("turn", "step"):
            w.send(dict(move, type="move", ref=key, **{key: 3}))
            e = w.recv_type("error")
            self.assertEqual((e["code"], e["ref"], e["turn"], e["step"]), ("stale_turn", key, 0, 0))
        self.assertEqual(srv.state(tid, ta)["game"]["next"]["turn"], 0)
        st, r, _ = srv.post(path, dict(move, turn=0), token=ta)
        self.assertEqual(st, 200, r)

    # ---- defect 6: private tables ------------------------------------------------

    def test_private_tables_are_in_no_list(self):
        srv = self.start()
        pub_open = srv.create(players=2)["id"]
        priv_open = srv.create(players=2, private=True)["id"]
        pub_play = srv.create(players=2, name="a")["id"]
        srv.join(pub_play, "b")
        priv_play = srv.create(players=2, private=True, name="a")["id"]
        srv.join(priv_play, "b")
        for status in ("open", "playing", "all", None):
            q = "/api/tables" + ("?status=" + status if status else "")
            st, r, _ = srv.get(q)
            self.assertEqual(st, 200)
            ids = [t["id"] for t in r["tables"]]
            self.assertNotIn(priv_open, ids, status)
            self.assertNotIn(priv_play, ids, status)
            self.assertIn(pub_open if status in ("open", None, "all") else pub_play, ids)
        # reached by its id (the invite link)
        self.assertEqual(srv.get("/api/tables/" + priv_open)[0], 200)
        self.assertEqual(srv.join(priv_open, "x")["seat"], 0)

    # ---- defect 4 and the table flood --------------------------------------------

    def test_one_address_cannot_fill_the_server_and_the_list_stays_small(self):
        srv = self.start()  # the default limits

        def create(c, i):
            return c.request("POST", "/api/tables", {"name": "spam"})[0]

        results, health = flood(srv.port, create)
        acc, ref = report("create", results, health, accepted_ok=lambda st: st == 201)
        self.assertGreater(ref, 0)
        self.assertLessEqual(acc, 50)  # --max-open-tables (and --rate-tables 60 a minute)
        self.assertGreater(acc, 10)
        self.assertEqual({st for _, st in results} - {201, 429}, set())
        self.assertLess(health["max"], HEALTH_MAX_MS, health)
        self.assertEqual(health["errors"], 0)
        c = Client(srv.port, "127.0.0.2")
        st, r, hd, _ = c.request("POST", "/api/tables", {"name": "spam"})
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertGreaterEqual(int(hd["retry-after"]), 1)
        self.assertRegex(r["error"]["message"], r"--max-open-tables|--rate-tables|--rate-requests")
        # a second address is not held up by the first
        others = []
        for src in ("127.0.0.3", "127.0.0.4"):
            c2 = Client(srv.port, src)
            for _ in range(20):
                st, r, _, _ = c2.request("POST", "/api/tables", {"players": 2})
                self.assertEqual(st, 201, r)
                others.append(r["id"])
        # the list is paged: at most 50 by default, newest first, pages disjoint
        total = acc + len(others)
        st, r, _, size = Client(srv.port).request("GET", "/api/tables?status=open")
        self.assertEqual(st, 200)
        self.assertEqual(len(r["tables"]), 50)
        self.assertTrue(r["more"])
        self.assertLess(size, 100000)
        seen, before = [], None
        for _ in range(20):
            q = "/api/tables?status=all&limit=17" + ("&before=" + before if before else "")
            st, r, _, _ = Client(srv.port).request("GET", q)
            self.assertEqual(st, 200, r)
            self.assertLessEqual(len(r["tables"]), 17)
            seen += [(t["created_ms"], t["id"]) for t in r["tables"]]
            if not r["more"]:
                self.assertNotIn("next_before", r)
                break
            before = r["next_before"]
        self.assertEqual(len(seen), total)
        self.assertEqual(len(set(seen)), total)
        self.assertEqual(seen, sorted(seen, reverse=True))
        for q in ("limit=0", "limit=51", "limit=x", "before=abc", "before=12", "before=-1-ab",
                  "before=1-XYZ"):
            st, r, _, _ = Client(srv.port).request("GET", "/api/tables?status=open&" + q)
            self.assertEqual((st, r["error"]["code"]), (400, "malformed"), q)
        # after a restart the server is not full either
        srv.kill()
        srv2 = self.start()
        st, r, _, _ = Client(srv2.port, "127.0.0.5").request("POST", "/api/tables", {})
        self.assertEqual(st, 201, r)
        # (the open tables are loaded when asked for: only the new one is held)
        self.assertEqual(srv2.get("/api/health")[1]["tables"], 1)

    def test_rate_of_table_creation_per_minute(self):
        srv = self.start(extra=("--rate-tables", "5", "--max-open-tables", "0"))
        c = Client(srv.port, "127.0.0.2")
        sts = [c.request("POST", "/api/tables", {})[0] for _ in range(8)]
        self.assertEqual(sts, [201] * 5 + [429] * 3)
        st, r, hd, _ = c.request("POST", "/api/tables", {})
        self.assertIn("--rate-tables", r["error"]["message"])
        self.assertTrue(1 <= int(hd["retry-after"]) <= 12, hd)  # one comes back every 12 s
        self.assertEqual(Client(srv.port, "127.0.0.3").request("POST", "/api/tables", {})[0], 201)

    # ---- open tables expire ------------------------------------------------------

    def test_open_tables_expire_and_their_clients_are_told(self):
        srv = self.start(extra=("--open-expiry", "2"))
        lonely = srv.create(players=2, name="a")
        tid = lonely["id"]
        playing = srv.create(players=2, name="a")["id"]
        srv.join(playing, "b")
        w = self.ws(srv, tid, lonely["token"])
        w.recv_type("state")
        m = w.recv_type("expired", timeout=6)
        self.assertEqual(m["table"], tid)
        self.assertIn("--open-expiry", m["message"])
        with self.assertRaises(WSClosed):
            for _ in range(10):
                w.recv(timeout=3)
        self.assertEqual(srv.get("/api/tables/" + tid)[0], 404)
        self.assertEqual(srv.get("/api/tables/" + playing)[0], 200)  # started: stays
        self.assertNotIn(tid, [t["id"] for t in srv.get("/api/tables?status=all")[1]["tables"]])
        self.assertIn("event=expired", srv.read_log())
        # the deletion is a write of the storage thread: wait for it before
        # the kill (a kill before it leaves the table to the next start)
        def settle(server):
            deadline = time.time() + 5
            while server.get("/api/health")[1]["writes_queued"] and time.time() < deadline:
                time.sleep(0.02)
        settle(srv)
        srv.kill()
        # gone from the store too; an open table that expired while the server
        # was down goes at start, by its stored time
        srv2 = self.start()
        self.assertEqual(srv2.get("/api/tables/" + tid)[0], 404)
        old = srv2.create(players=2)["id"]
        srv2.kill()
        time.sleep(1.2)
        srv3 = self.start(extra=("--open-expiry", "1"))
        self.assertEqual(srv3.get("/api/tables/" + old)[0], 404)
        self.assertEqual(srv3.get("/api/tables/" + playing)[0], 200)
        settle(srv3)  # its deletion at start, as above
        srv3.kill()
        srv4 = self.start()
        self.assertEqual(srv4.get("/api/tables/" + old)[0], 404)
        # the human-only game is loaded when asked for, not at the start
        self.assertEqual(srv4.get("/api/health")[1]["tables"], 0)
        self.assertEqual(srv4.get("/api/tables/" + playing)[0], 200)
        self.assertEqual(srv4.get("/api/health")[1]["tables"], 1)

    # ---- defect 7: uploads -------------------------------------------------------

    def test_uploads_are_capped_and_not_replayed_at_start(self):
        srv = self.start(extra=("--max-uploads", "30"))
        rec = tiny_record(srv)
        rec["padding"] = "x" * 600000  # a large record, as the were
        body = json.dumps(rec)
        ids = []
        for k in range(30):  # 10 from each of three addresses (20 an hour each may)
            st, r, _, _ = Client(srv.port, "127.0.0.%d" % (2 + k % 3)).request(
                "POST", "/api/records", raw=body)
            self.assertEqual(st, 201, r)
            ids.append(r["id"])
        c = Client(srv.port, "127.0.0.9")
        st, r, hd, _ = c.request("POST", "/api/records", raw=body)
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertIn("--max-uploads", r["error"]["message"])
        self.assertGreaterEqual(int(hd["retry-after"]), 1)
        srv.kill()
        t0 = time.time()
        srv2 = self.start(extra=("--max-uploads", "30"))
        took = time.time() - t0
        print("start with 30 uploads of %d KB: listening after %.0f ms"
              % (len(body) // 1024, took * 1000), file=sys.stderr, flush=True)
        self.assertEqual(srv2.get("/api/health")[1]["tables"], 0)  # none replayed
        self.assertLess(took, 3.0)
        st, s, _ = srv2.get("/api/tables/%s/state" % ids[7])  # opened when asked for
        self.assertEqual(st, 200)
        self.assertEqual(s["table"]["status"], "view")
        self.assertEqual(srv2.get("/api/health")[1]["tables"], 1)
        c = Client(srv2.port, "127.0.0.9")
        st, r, _, _ = c.request("POST", "/api/records", raw=body)  # still counted
        self.assertEqual(st, 429, r)
        self.assertIn("--max-uploads", r["error"]["message"])

    def test_upload_rate_and_total_bytes(self):
        srv = self.start(extra=("--rate-uploads", "3", "--max-upload-bytes", "200000"))
        rec = tiny_record(srv)
        small = json.dumps(rec)
        c = Client(srv.port, "127.0.0.2")
        sts = [c.request("POST", "/api/records", raw=small)[0] for _ in range(4)]
        self.assertEqual(sts, [201, 201, 201, 429])
        st, r, hd, _ = c.request("POST", "/api/records", raw=small)
        self.assertIn("--rate-uploads", r["error"]["message"])
        self.assertGreater(int(hd["retry-after"]), 60)  # one comes back every 20 minutes
        # a bad record does not use up the total
        c3 = Client(srv.port, "127.0.0.3")
        self.assertEqual(c3.request("POST", "/api/records", raw="{}")[0], 422)
        rec["padding"] = "y" * (200000 - 2 * len(small))  # over the total with the three
        st, r, _, _ = c3.request("POST", "/api/records", raw=json.dumps(rec))
        self.assertEqual(st, 429, r)
        self.assertEqual(r["error"]["code"], "rate_limited")
        self.assertIn("--max-upload-bytes", r["error"]["message"])
        self.assertEqual(c3.request("POST", "/api/records", raw=small)[0], 201)

    # ---- the other floods --------------------------------------------------------

    def test_flood_of_moves(self):
        srv = self.start(extra=("--rate-requests", "600"))
        c = srv.create(players=2, name="a")
        tid, ta = c["id"], c["token"]
        tb = srv.join(tid, "b")["token"]
        nxt = srv.state(tid, ta)["game"]["next"]
        move = first_legal(nxt)
        path = "/api/tables/%s/move" % tid

        def wrong_seat(cl, i):  # every move is checked and refused: not_your_turn
            return cl.request("POST", path, dict(move, turn=0), token=tb)[0]

        results, health = flood(srv.port, wrong_seat)
        acc, ref = report("moves", results, health)
        self.assertGreater(ref, 0)
        self.assertLessEqual(acc, 600 + 4 * 40)  # the bucket and what refills in the flood
        self.assertEqual({st for _, st in results} - {409, 429}, set())
        self.assertLess(health["max"], HEALTH_MAX_MS, health)
        # the players from another address play on
        st, r, _ = srv.post(path, dict(move, turn=0), token=ta)
        self.assertEqual(st, 200, r)

    def test_flood_of_uploads(self):
        srv = self.start()  # the default limits: 20 an hour per address
        body = json.dumps(tiny_record(srv))

        def upload(cl, i):
            return cl.request("POST", "/api/records", raw=body)[0]

        results, health = flood(srv.port, upload)
        acc, ref = report("uploads", results, health, accepted_ok=lambda st: st == 201)
        self.assertEqual(acc, 20)
        self.assertGreater(ref, 0)
        self.assertEqual({st for _, st in results} - {201, 429}, set())
        self.assertLess(health["max"], HEALTH_MAX_MS, health)

    def test_flood_of_list_polling(self):
        # a budget small enough that the flood meets it also on a slow build
        # (ASan on a busy machine answers a 50-table page a few hundred times
        # a second); the 300 tables come from six other addresses
        srv = self.start(extra=("--rate-requests", "120", "--rate-tables", "0",
                                "--max-open-tables", "0"))
        for k in range(6):
            c = Client(srv.port, "127.0.0.%d" % (3 + k))
            for _ in range(50):
                self.assertEqual(c.request("POST", "/api/tables", {"players": 2})[0], 201)
        sizes = []

        def poll(cl, i):
            st, r, hd, n = cl.request("GET", "/api/tables?status=all")
            sizes.append(n)
            return st

        results, health = flood(srv.port, poll)
        acc, ref = report("list", results, health)
        print("flood list: largest answer %d bytes" % max(sizes), file=sys.stderr)
        self.assertGreater(ref, 0)
        self.assertLess(max(sizes), 100000)
        self.assertLess(health["max"], HEALTH_MAX_MS, health)

    def test_flood_of_websocket_messages(self):
        srv = self.start(extra=("--rate-requests", "600"))
        tid = srv.create(players=2)["id"]
        counts = {"pong": 0, "rate_limited": 0, "other": 0, "closed": 0}
        lock = threading.Lock()
        socks = [self.ws(srv, tid) for _ in range(4)]
        for w in socks:
            w.recv_type("state")
        stop = time.time() + FLOOD_S
        sent = [0] * len(socks)
        first_refusal = [None]
        t0 = time.time()

        def reader(w):
            while time.time() < stop + 1.5:
                try:
                    m = w.recv(timeout=0.5)
                except TimeoutError:
                    continue
                except (WSClosed, OSError, ValueError):
                    with lock:
                        counts["closed"] += 1
                    return
                with lock:
                    if m.get("type") == "pong":
                        counts["pong"] += 1
                    elif m.get("code") == "rate_limited":
                        counts["rate_limited"] += 1
                        if first_refusal[0] is None:
                            first_refusal[0] = time.time() - t0
                        assert m["retry_after_s"] >= 1, m
                        assert "--rate-requests" in m["message"], m
                    elif m.get("type") != "table":
                        counts["other"] += 1

        def writer(k, w):
            while time.time() < stop and sent[k] < 100000:
                try:
                    w.send({"type": "ping"})
                except OSError:
                    return
                sent[k] += 1

        probe = HealthProbe(srv.port, FLOOD_S + 0.3)
        time.sleep(0.1)
        ts = [threading.Thread(target=reader, args=(w,)) for w in socks]
        ts += [threading.Thread(target=writer, args=(k, w)) for k, w in enumerate(socks)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(FLOOD_S + 10)
        health = probe.result()
        fr = first_refusal[0] or FLOOD_S
        after = FLOOD_S - fr
        print("flood websocket: %d accepted then 429 (pong); %s accepted/s before the limit, "
              "%s refused/s; health p50 %.1f ms p99 %.1f ms max %.1f ms (%d probes, %d errors)"
              % (counts["pong"], format(int(counts["pong"] / max(fr, 1e-3)), ","),
                 format(int(counts["rate_limited"] / after) if after > 0 else 0, ","),
                 health["p50"], health["p99"], health["max"], health["n"], health["errors"]),
              file=sys.stderr, flush=True)
        self.assertGreater(counts["rate_limited"], 0)
        self.assertLessEqual(counts["pong"], 600 + 4 * 40)
        self.assertEqual(counts["other"], 0)
        # a client that goes on sending when told is disconnected
        self.assertEqual(counts["closed"], len(socks))
        self.assertLess(health["max"], HEALTH_MAX_MS, health)
        # other addresses are served (health is never limited)
        self.assertEqual(srv.get("/api/health")[0], 200)

    # ---- addresses ---------------------------------------------------------------

    def test_requests_are_counted_per_address_and_health_never(self):
        srv = self.start(extra=("--rate-requests", "20"))
        a, b = Client(srv.port, "127.0.0.2"), Client(srv.port, "127.0.0.3")
        sts = [a.request("GET", "/api/options")[0] for _ in range(25)]
        self.assertEqual(sts, [200] * 20 + [429] * 5)
        st, r, hd, _ = a.request("GET", "/api/tiles")
        self.assertEqual((st, r["error"]["code"]), (429, "rate_limited"))
        self.assertIn("--rate-requests", r["error"]["message"])
        self.assertIn("retry-after", hd)
        self.assertEqual(b.request("GET", "/api/options")[0], 200)
        for _ in range(30):
            self.assertEqual(a.request("GET", "/api/health")[0], 200)
        self.assertIn("limit=rate-requests addr=127.0.0.2 refused", srv.read_log())

    def test_a_small_address_table_counts_the_overflow_together(self):
        # 4 slots: more addresses than that, all of them being limited, share one count
        srv = self.start(extra=("--rate-requests", "10", "--limit-addresses", "4"))
        ok = 0
        for k in range(2, 40):
            c = Client(srv.port, "127.0.0.%d" % k)
            for _ in range(12):
                ok += c.request("GET", "/api/options")[0] == 200
            c.close()
        self.assertLess(ok, 38 * 10)  # the overflow held some back
        self.assertGreaterEqual(ok, 40)
        self.assertIn("overflow", srv.read_log())

    def test_ipv6_counts_by_prefix(self):
        # only ::1 is on loopback here: it shows the key, its /64 (::/64)
        db = os.path.join(self.dir, "v6.sqlite")
        log = open(db + ".log", "ab")
        p = subprocess.Popen([CARC, "serve", "--host", "::1", "--port", "0", "--db", db,
                              "--web", self.dir, "--rate-requests", "3"],
                             stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
        try:
            port = None
            deadline = time.time() + 10
            while time.time() < deadline and port is None:
                line = p.stdout.readline()
                if not line:
                    break
                m = re.search(rb"listening on http://\S*:(\d+)/", line)
                if m:
                    port = int(m.group(1))
            if port is None:
                self.skipTest("the server does not listen on ::1 here")
            sts = []
            for _ in range(5):
                c = http.client.HTTPConnection("::1", port, timeout=5)
                c.request("GET", "/api/options")
                sts.append(c.getresponse().status)
                c.close()
            self.assertEqual(sts, [200, 200, 200, 429, 429])
        finally:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
            p.stdout.close()
            log.close()
        with open(db + ".log", "rb") as f:
            text = f.read().decode(errors="replace")
        self.assertIn("addr=::/64 refused", text)

    def test_options_are_checked(self):
        for opt in ("--rate-requests", "--rate-tables", "--max-open-tables", "--open-expiry",
                    "--rate-uploads", "--max-uploads", "--max-upload-bytes",
                    "--limit-addresses", "--list-max"):
            p = subprocess.run([CARC, "serve", opt, "-3"], capture_output=True, timeout=10)
            self.assertEqual(p.returncode, 2, opt)
            self.assertIn(opt, p.stderr.decode())
        p = subprocess.run([CARC, "serve", "--help"], capture_output=True, timeout=10)
        for opt in ("--rate-requests", "--rate-tables", "--max-open-tables", "--open-expiry",
                    "--rate-uploads", "--max-uploads", "--max-upload-bytes",
                    "--limit-addresses", "--list-max"):
            self.assertIn(opt, p.stdout.decode())


if __name__ == "__main__":
    unittest.main(verbosity=2)
