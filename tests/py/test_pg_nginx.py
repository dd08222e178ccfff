"""The shipped nginx site (docs/nginx/) in front of three `carc serve`
processes on PostgreSQL, when a process freezes or the database restarts.

Uses test_pg's PostgreSQL, nginx (the shipped files, only ports, addresses
and paths substituted) and processes. Every wait is bounded.

- a frozen process (SIGSTOP for 10 s): every API GET through nginx is
  answered by another process within 2 s, and a WebSocket client that keeps
  the web client's heartbeat (web/js/api.js, LIVE) is on another process
  within 5 s;
- a database restart (pg_ctl restart -m fast) while requests flow: no 502
  once one process is healthy again;
- the Host header keeps its port: a browser's WebSocket handshake on a
  port other than 443 passes the server's own-origin check.
"""
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from carcserver import HOST, WebSocket, WSClosed  # noqa: E402
from test_pg import ClusterCase, Postgres, http_json, pg_bin  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule

WEB_API = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web", "js",
                       "api.js")


def live_rules():
    """The web client's heartbeat (web/js/api.js, `export const LIVE`), in s."""
    with open(WEB_API) as f:
        text = f.read()
    m = re.search(r"export const LIVE = \{([^}]*)\}", text)
    assert m, "no LIVE in web/js/api.js"
    return dict((k, int(v) / 1000.0) for k, v in re.findall(r"(\w+): (\d+)", m.group(1)))


class HeartbeatClient:
    """A WebSocket client that keeps the web client's rules (Live in
    web/js/api.js): a ping every pingMs; a ping unanswered (by any message)
    for answerMs, or a handshake not done in pingMs + answerMs, gives the
    socket up; the new one is made retryMs later."""

    def __init__(self, port, tid, token):
        self.port, self.tid, self.token = port, tid, token
        live = live_rules()
        self.ping_s, self.answer_s, self.retry_s = live["pingMs"], live["answerMs"], live["retryMs"]
        self.w = None

    def connect(self):
        if self.w:
            self.w.close()
        # the whole handshake, the first state included, within pingMs + answerMs
        self.w = WebSocket(self.port, "/ws/%s" % self.tid, timeout=self.ping_s + self.answer_s,
                           headers={"Authorization": "Bearer " + self.token})
        state = self.w.recv_type("state", timeout=self.ping_s + self.answer_s)
        self.sent = time.time()
        self.waiting = None   # when the oldest unanswered ping went
        return state

    def run_until_new_connection(self, limit_s):
        """Keeps the heartbeat until the connection is given up or lost and
        made again (a state on the new one). Returns the seconds that took."""
        t0 = time.time()
        while time.time() - t0 < limit_s + 5:
            try:
                now = time.time()
                if now - self.sent >= self.ping_s:
                    self.w.send({"type": "ping"})
                    self.sent = now
                    if self.waiting is None:
                        self.waiting = now
                if self.waiting is not None and now - self.waiting >= self.answer_s:
                    return self.reconnect(t0, limit_s)
                wake = self.sent + self.ping_s
                if self.waiting is not None:
                    wake = min(wake, self.waiting + self.answer_s)
                self.w.recv(timeout=max(0.01, wake - now))
                self.waiting = None
            except TimeoutError:
                continue
            except (WSClosed, OSError):
                return self.reconnect(t0, limit_s)
        raise AssertionError("the connection was never lost")

    def reconnect(self, t0, limit_s):
        first = True   # at once after a connection was given up, then retryMs apart
        while time.time() - t0 < limit_s + 5:
            if not first:
                time.sleep(self.retry_s)
            first = False
            try:
                self.connect()
                return time.time() - t0
            except (WSClosed, OSError, TimeoutError):
                continue
        raise AssertionError("no new connection")


def tls_handshake(port, path, origin, timeout=5):
    """A WebSocket handshake over TLS with a browser's Origin: the status line."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    sock = ctx.wrap_socket(socket.create_connection((HOST, port), timeout=timeout))
    try:
        sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n" % (path, port, origin))
                     .encode())
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
        return head.split(b"\r\n", 1)[0].decode(errors="replace")
    finally:
        sock.close()


class NginxSiteTest(ClusterCase):

    def test_a_frozen_process_is_given_up_on(self):
        procs = self.start(3)
        front = self.with_nginx(procs)
        st, made = http_json(front, "POST", "/api/tables", {"players": 2, "name": "alice"})
        self.assertEqual(st, 201, made)
        tid = made["id"]
        client = HeartbeatClient(front, tid, made["token"])
        client.connect()
        held = [p for p in procs if self.metric(p.port, "carc_connections") > 0]
        self.assertEqual(len(held), 1)
        frozen = held[0]
        others = [p for p in procs if p is not frozen]
        answers = []   # (seconds, status, path) of every GET during the freeze
        stop = threading.Event()

        def gets():
            paths = ["/api/tables/%s" % tid, "/api/health", "/api/tables/%s/state" % tid,
                     "/api/options"]
            k = 0
            while not stop.is_set() and k < 20000:
                path = paths[k % len(paths)]
                k += 1
                t = time.time()
                try:
                    st, _ = http_json(front, "GET", path, timeout=15)
                except OSError as e:
                    st = repr(e)
                answers.append((time.time() - t, st, path))
                time.sleep(0.01)  # under --rate-requests (3000 a minute from nginx's address)

        os.kill(frozen.proc.pid, signal.SIGSTOP)
        t_stop = time.time()
        th = threading.Thread(target=gets)
        th.start()
        try:
            took = client.run_until_new_connection(5)
            # the new connection is on another process
            on_others = sum(self.metric(p.port, "carc_connections") for p in others)
            time.sleep(max(0, t_stop + 10 - time.time()))
        finally:
            stop.set()
            th.join(20)
            os.kill(frozen.proc.pid, signal.SIGCONT)
        slow = [a for a in answers if a[0] >= 2 or a[1] != 200]
        print("test_pg_nginx: frozen 10 s: %d GETs, slowest %.2f s, %d over 2 s or not 200; "
              "the WebSocket client on another process after %.2f s"
              % (len(answers), max(a[0] for a in answers), len(slow), took), file=sys.stderr)
        self.assertGreater(len(answers), 20)
        self.assertEqual(slow[:5], [], "%d slow or not 200" % len(slow))
        self.assertLessEqual(took, 5.0)
        self.assertEqual(on_others, 1)
        # the frozen process, back, serves again
        st, _ = http_json(frozen.port, "GET", "/api/health", timeout=10)
        self.assertEqual(st, 200)

    def test_b_no_502_after_a_database_restart(self):
        if os.environ.get("CARC_TEST_DB") and not pg_bin("pg_ctl"):
            self.skipTest("pg_ctl is not installed")
        # a PostgreSQL of the test's own: it is restarted
        root = tempfile.mkdtemp(prefix="carc-pg-restart-")
        own = Postgres(root)
        run_as = ["runuser", "-u", own.user, "--"] if own.user else []
        try:
            self.url = own.url
            procs = self.start(3)
            front = self.with_nginx(procs)
            st, made = http_json(front, "POST", "/api/tables", {"players": 2, "name": "a"})
            self.assertEqual(st, 201, made)
            tid = made["id"]
            answers = []   # (start, status, method path)
            stop = threading.Event()

            def flow(reqs):
                k = 0
                while not stop.is_set() and k < 5000:
                    method, path, body = reqs[k % len(reqs)]
                    k += 1
                    t = time.time()
                    try:
                        st, _ = http_json(front, method, path, body, timeout=15)
                    except OSError as e:
                        st = repr(e)
                    answers.append((t, st, method + " " + path))
                    time.sleep(0.01)

            threads = [threading.Thread(target=flow, args=(r,)) for r in (
                [("GET", "/api/health", None), ("GET", "/api/tables/%s" % tid, None)],
                [("POST", "/api/tables", {"players": 2, "name": "b", "private": True}),
                 ("GET", "/api/tables/%s/state" % tid, None)])]
            for th in threads:
                th.start()
            try:
                time.sleep(1)
                t_restart = time.time()
                p = subprocess.run(run_as + [pg_bin("pg_ctl"), "-D", own.data, "-m", "fast",
                                             "-w", "-t", "30", "-l",
                                             os.path.join(own.data, "restarted.log"), "restart"],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                # when the first process takes writes again
                t_healthy = None
                deadline = time.time() + 20
                while t_healthy is None and time.time() < deadline:
                    for s in procs:
                        if http_json(s.port, "GET", "/api/health", timeout=5)[0] == 200:
                            t_healthy = time.time()
                            break
                    else:
                        time.sleep(0.05)
                self.assertIsNotNone(t_healthy, self.logs())
                time.sleep(4)
            finally:
                stop.set()
                for th in threads:
                    th.join(20)
            during = [a for a in answers if t_restart <= a[0] < t_healthy]
            after = [a for a in answers if a[0] >= t_healthy]
            bad_after = [a for a in after if a[1] == 502 or not isinstance(a[1], int)]
            print("test_pg_nginx: database restart: first process healthy %.2f s after; "
                  "%d requests during (%s), %d after, %d of them 502 or no answer"
                  % (t_healthy - t_restart, len(during),
                     ", ".join("%s x%d" % (s, sum(1 for a in during if str(a[1]) == s))
                               for s in sorted(set(str(a[1]) for a in during))),
                     len(after), len(bad_after)), file=sys.stderr)
            self.assertGreater(len(after), 20)
            self.assertEqual(bad_after[:5], [])
        finally:
            for s in self.servers:
                s.kill()
            self.servers = []
            subprocess.run(run_as + [pg_bin("pg_ctl"), "-D", own.data, "-m", "immediate",
                                     "stop"], capture_output=True, timeout=60)
            own.stop()
            import shutil
            shutil.rmtree(root, ignore_errors=True)

    def test_c_a_browser_handshake_on_another_port(self):
        # no --allow-origin: the page's origin is the Host nginx passes on
        a, b = self.start(2)
        front = self.with_nginx([a, b])
        st, made = http_json(front, "POST", "/api/tables", {"players": 2, "name": "a"})
        self.assertEqual(st, 201, made)
        w = WebSocket(front, "/ws/%s" % made["id"],
                      headers={"Origin": "http://127.0.0.1:%d" % front})
        self.sockets.append(w)
        self.assertEqual(w.recv_type("state")["type"], "state")
        line = tls_handshake(self.nginx.tls_port, "/ws/%s" % made["id"],
                             "https://127.0.0.1:%d" % self.nginx.tls_port)
        self.assertTrue(line.startswith("HTTP/1.1 101"), line)
        # another site's page is still refused
        line = tls_handshake(self.nginx.tls_port, "/ws/%s" % made["id"], "https://evil.example")
        self.assertTrue(line.startswith("HTTP/1.1 403"), line)


if __name__ == "__main__":
    unittest.main(verbosity=2)
