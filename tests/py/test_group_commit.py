"""Group commit on the storage thread (issue 20): the writes waiting in the
writer's queue are written in one transaction, each in a savepoint of its
own, and acknowledged only after the one COMMIT.

To make the writes of many tables wait together, the test holds the
database's write lock from outside for a moment (SQLite: a BEGIN IMMEDIATE
on a connection of its own; PostgreSQL: LOCK TABLE games IN EXCLUSIVE MODE,
which every write of a game waits for) while the moves, chat lines and
registrations are sent, then lets go: the writer finds them all queued.
/api/metrics tells how many transactions and jobs were written
(carc_store_commits_total, carc_store_jobs_total).

Runs on SQLite (tests/run.sh) and, with CARC_TEST_DB set, on PostgreSQL
(tests/pg/run.sh lists it). Run:
    CARC=build/test/carc python3 tests/py/test_group_commit.py
"""
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from carcserver import PSQL, ServerCase, first_legal  # noqa: E402

TABLES = 12
HOLD_S = 1.5
PW = "correct horse battery"


class Hold:
    """Holds the database's write lock from outside until release()."""

    def __init__(self, srv):
        self.srv = srv
        self.proc = self.conn = None
        if srv.db_arg.startswith("postgres"):
            # psql keeps the transaction open until its input ends
            self.proc = subprocess.Popen(
                [PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", srv.db_arg],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                text=True)
            self.proc.stdin.write("BEGIN;\nLOCK TABLE games IN EXCLUSIVE MODE;\n"
                                  "SELECT 1;\n")
            self.proc.stdin.flush()
            deadline = time.time() + 10
            while time.time() < deadline and not self._pg_locked():
                time.sleep(0.05)
            assert self._pg_locked(), "the lock was not taken"
        else:
            self.conn = sqlite3.connect(srv.db, timeout=10, isolation_level=None)
            self.conn.execute("BEGIN IMMEDIATE")

    def _pg_locked(self):
        out = subprocess.run(
            [PSQL, "-X", "-q", "-A", "-t", self.srv.db_arg, "-c",
             "select count(*) from pg_locks l join pg_class c on c.oid = l.relation"
             " where c.relname = 'games' and l.mode = 'ExclusiveLock' and l.granted"],
            capture_output=True, text=True, timeout=10).stdout.strip()
        return out == "1"

    def release(self):
        if self.conn:
            self.conn.execute("COMMIT")
            self.conn.close()
            self.conn = None
        if self.proc:
            self.proc.stdin.write("COMMIT;\n")
            self.proc.stdin.close()
            self.proc.wait(10)
            self.proc = None


def metric(srv, name):
    st, text, _ = srv.get("/api/metrics")
    assert st == 200, st
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    assert m, "no %s in /api/metrics" % name
    return int(m.group(1))


def counts(srv):
    return metric(srv, "carc_store_commits_total"), metric(srv, "carc_store_jobs_total")


def settled_counts(srv, timeout=5):
    """The counts once the writer's queue is empty (a table's status write
    follows the answer to the join that started it)."""
    deadline = time.time() + timeout
    while time.time() < deadline and metric(srv, "carc_store_queue") != 0:
        time.sleep(0.02)
    return counts(srv)


class GroupCommitCase(ServerCase):
    def tables(self, srv, n=TABLES):
        out = []
        for i in range(n):
            c = srv.create(players=2, name="a%d" % i)
            j = srv.join(c["id"], "b%d" % i)
            out.append((c["id"], [c["token"], j["token"]]))
        return out

    def send_moves(self, srv, tables, results):
        """Posts the next move of every table, each from a thread of its own;
        results[tid] = (status, reply). Returns the threads."""
        threads = []
        for tid, tokens in tables:
            g = srv.state(tid)["game"]
            mv = first_legal(g["next"])
            mv["turn"] = len(g["log"])
            tok = tokens[g["next"]["to_move"]]

            def post(tid=tid, mv=mv, tok=tok):
                st, r, _ = srv.post("/api/tables/%s/move" % tid, mv, token=tok, timeout=20)
                results[tid] = (st, r)
            t = threading.Thread(target=post)
            t.start()
            threads.append(t)
        return threads

    def register(self, srv, name, results, key):
        def post():
            st, r, _ = srv.post("/api/account/register", {"name": name, "password": PW},
                                timeout=20)
            results[key] = (st, r)
        t = threading.Thread(target=post)
        t.start()
        return t

    def turns(self, srv, tables):
        return [len(srv.state(tid)["game"]["log"]) for tid, _ in tables]

    def test_waiting_writes_share_one_commit_and_all_acknowledged_are_kept(self):
        srv = self.start()
        tables = self.tables(srv)
        socks = []
        for tid, tokens in tables:
            w = self.ws(srv, tid, token=tokens[0])
            w.recv_type("state")
            socks.append(w)
        c0, j0 = settled_counts(srv)
        hold = Hold(srv)
        results = {}
        try:
            threads = self.send_moves(srv, tables, results)
            for i, w in enumerate(socks):
                w.send({"type": "chat", "text": "line %d" % i, "ref": i})
            time.sleep(HOLD_S)
        finally:
            hold.release()
        for t in threads:
            t.join(20)
        for tid, _ in tables:
            self.assertEqual(results[tid][0], 200, results[tid])
        for i, w in enumerate(socks):
            m = w.recv_type("chat", timeout=10)
            self.assertEqual(m["text"], "line %d" % i)
        c1, j1 = counts(srv)
        jobs, commits = j1 - j0, c1 - c0
        self.assertGreaterEqual(jobs, 2 * TABLES)
        # the first job waited alone for the lock; the rest came as a group
        self.assertLessEqual(commits, jobs // 4, "%d commits for %d jobs" % (commits, jobs))
        srv.kill()
        srv2 = self.start()
        self.assertEqual(self.turns(srv2, tables), [1] * TABLES)
        for i, (tid, _) in enumerate(tables):
            st, lst, _ = srv2.get("/api/tables/%s/chat" % tid)
            self.assertEqual([x["text"] for x in lst["chat"]], ["line %d" % i], lst)

    def test_a_failing_write_in_a_group_does_not_fail_the_others(self):
        # two registrations of one new name in the same group: the second
        # fails in the database (a unique key: in PostgreSQL that aborts the
        # transaction, so only its savepoint's rollback saves the group)
        srv = self.start()
        tables = self.tables(srv)
        c0, j0 = settled_counts(srv)
        hold = Hold(srv)
        results = {}
        try:
            threads = self.send_moves(srv, tables[:TABLES // 2], results)
            threads.append(self.register(srv, "Twin", results, "r1"))
            threads.append(self.register(srv, "twin", results, "r2"))
            time.sleep(HOLD_S / 2)
            threads += self.send_moves(srv, tables[TABLES // 2:], results)
            time.sleep(HOLD_S / 2)
        finally:
            hold.release()
        for t in threads:
            t.join(20)
        for tid, _ in tables:
            self.assertEqual(results[tid][0], 200, results[tid])
        regs = sorted([results["r1"][0], results["r2"][0]])
        self.assertEqual(regs, [201, 409], (results["r1"], results["r2"]))
        loser = results["r1"] if results["r1"][0] == 409 else results["r2"]
        self.assertEqual(loser[1]["error"]["code"], "name_taken", loser)
        c1, j1 = counts(srv)
        jobs, commits = j1 - j0, c1 - c0
        self.assertGreaterEqual(jobs, TABLES + 2)
        self.assertLessEqual(commits, jobs // 3, "%d commits for %d jobs" % (commits, jobs))
        st, h, _ = srv.get("/api/health")
        self.assertEqual(st, 200, h)
        srv.kill()
        srv2 = self.start()
        self.assertEqual(self.turns(srv2, tables), [1] * TABLES)
        st, r, _ = srv2.post("/api/account/login", {"name": "TWIN", "password": PW})
        self.assertEqual(st, 200, r)

    def test_a_failed_group_commit_fails_every_write_of_the_group(self):
        fault = os.path.join(self.dir, "fault")
        os.environ["CARC_TEST_STORE_FAULT"] = fault
        try:
            srv = self.start()
        finally:
            del os.environ["CARC_TEST_STORE_FAULT"]
        tables = self.tables(srv)
        c0, j0 = settled_counts(srv)
        hold = Hold(srv)
        results = {}
        try:
            threads = self.send_moves(srv, tables, results)
            time.sleep(HOLD_S / 2)
            with open(fault, "w") as f:
                f.write("io")
            time.sleep(HOLD_S / 2)
        finally:
            hold.release()
        for t in threads:
            t.join(20)
        codes = [results[tid][0] for tid, _ in tables]
        if codes == [200] * TABLES:
            self.skipTest("this build has no fault injection")
        self.assertEqual(codes, [503] * TABLES, results)
        self.assertEqual(self.turns(srv, tables), [0] * TABLES)
        c1, j1 = counts(srv)
        self.assertEqual((c1, j1), (c0, j0), "nothing of a failed group counts as written")
        self.assertGreaterEqual(metric(srv, "carc_store_failed_writes_total"), TABLES)
        self.assertEqual(srv.get("/api/health")[0], 503)
        os.remove(fault)
        deadline = time.time() + 8
        while time.time() < deadline and srv.get("/api/health")[0] != 200:
            time.sleep(0.05)
        self.assertEqual(srv.get("/api/health")[0], 200)
        results = {}
        for t in self.send_moves(srv, tables, results):
            t.join(20)
        self.assertEqual([results[tid][0] for tid, _ in tables], [200] * TABLES, results)
        srv.kill()
        srv2 = self.start()
        self.assertEqual(self.turns(srv2, tables), [1] * TABLES)


if __name__ == "__main__":
    unittest.main()
