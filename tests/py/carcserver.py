"""Helpers for the server tests: start `carc serve` on a free loopback port
with a database in a temporary folder, a minimal WebSocket client (RFC 6455
handshake and framing, standard library only) and a small HTTP client.

Every wait is bounded by a timeout; servers are always killed by the test's
tearDown (Server.stop / Server.kill).
"""
import base64
import hashlib
import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import shutil
import tempfile
import time
import unittest

HOST = "127.0.0.1"
CARC = os.environ.get("CARC", "build/release/carc")
# CARC_TEST_DB=postgresql://USER@HOST:PORT/DB: the servers keep their games
# in PostgreSQL (DB is only where new databases are made from): one
# database per test database path, created at the first start, so that a
# restart on the same path finds its games (tests/pg/run.sh sets this)
PG_ADMIN = os.environ.get("CARC_TEST_DB") or None
PSQL = shutil.which("psql") or "/usr/lib/postgresql/15/bin/psql"


def psql(url, sql):
    """Runs SQL with psql on `url`; returns its output (unaligned rows)."""
    p = subprocess.run([PSQL, "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", url,
                        "-c", sql],
                       capture_output=True, text=True, timeout=30)
    if p.returncode:
        raise RuntimeError("psql: %s" % p.stderr.strip())
    return p.stdout


def pg_url_for(db):
    """The PostgreSQL database standing for the SQLite path `db` (made if
    missing), as a URL for --db."""
    name = "carc_" + hashlib.sha1(os.path.abspath(db).encode()).hexdigest()[:20]
    base, _, _ = PG_ADMIN.rpartition("/")
    if not psql(PG_ADMIN, "select 1 from pg_database where datname='%s'" % name).strip():
        psql(PG_ADMIN, "create database %s" % name)
    return base + "/" + name


def pg_drop(db):
    name = "carc_" + hashlib.sha1(os.path.abspath(db).encode()).hexdigest()[:20]
    try:
        psql(PG_ADMIN, "drop database if exists %s with (force)" % name)
    except RuntimeError:
        pass


class Server:
    """A `carc serve` process. `db` is kept so a second Server can reopen it."""

    def __init__(self, db, extra=(), web=None, log_path=None):
        self.db = db
        self.log_path = log_path or (db + ".log")
        self.db_arg = pg_url_for(db) if PG_ADMIN and not db.startswith("postgres") else db
        args = [CARC, "serve", "--host", HOST, "--port", "0", "--db", self.db_arg,
                "--bot-delay", "0"]
        args += ["--web", web or os.path.join(os.path.dirname(db), "no-web")]
        args += list(extra)
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log,
                                     stdin=subprocess.DEVNULL)
        self.port = None
        deadline = time.time() + 10
        line = b""
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            m = re.search(rb"listening on http://[0-9.]+:(\d+)/", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.kill()
            raise RuntimeError("server did not start: %r\n%s" % (line, self.read_log()))

    def read_log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def kill(self):
        """SIGKILL: no chance to clean up (the crash test)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self._reap()

    def stop(self):
        """SIGTERM, then SIGKILL after 5 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._reap()

    def _reap(self):
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()

    # --- HTTP ---------------------------------------------------------------------

    def http(self, method, path, body=None, token=None, raw=None, headers=None, timeout=10):
        """Returns (status, parsed JSON or text, response headers)."""
        conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        hdrs = dict(headers or {})
        data = None
        if raw is not None:
            data = raw if isinstance(raw, bytes) else raw.encode()
        elif body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        if token:
            hdrs["Authorization"] = "Bearer " + token
        conn.request(method, path, body=data, headers=hdrs)
        r = conn.getresponse()
        text = r.read().decode(errors="replace")
        conn.close()
        try:
            val = json.loads(text)
        except ValueError:
            val = text
        return r.status, val, dict(r.getheaders())

    def get(self, path, **kw):
        return self.http("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.http("POST", path, body=body, **kw)

    def create(self, **options):
        st, r, _ = self.post("/api/tables", options)
        if st != 201:
            raise AssertionError("create failed: %s %s" % (st, r))
        return r

    def join(self, tid, name, seat=None):
        body = {"name": name}
        if seat is not None:
            body["seat"] = seat
        st, r, _ = self.post("/api/tables/%s/join" % tid, body)
        if st != 200:
            raise AssertionError("join failed: %s %s" % (st, r))
        return r

    def state(self, tid, token=None):
        st, r, _ = self.get("/api/tables/%s/state" % tid, token=token)
        if st != 200:
            raise AssertionError("state failed: %s %s" % (st, r))
        return r

    def raw(self, data, timeout=5, shut=False):
        """Sends raw bytes on a fresh connection and returns what comes back
        until the server closes it or `timeout` passes (b"" when nothing
        came). `shut`: half-close the sending side after the data."""
        sock = socket.create_connection((HOST, self.port), timeout=timeout)
        out = b""
        try:
            sock.sendall(data)
            if shut:
                sock.shutdown(socket.SHUT_WR)
            deadline = time.time() + timeout
            while time.time() < deadline:
                sock.settimeout(max(0.01, deadline - time.time()))
                try:
                    chunk = sock.recv(65536)
                except (socket.timeout, ConnectionResetError):
                    break
                if not chunk:
                    break
                out += chunk
        finally:
            sock.close()
        return out

    def ws(self, tid, token=None, **kw):
        """A WebSocket to the table; the token goes in a header of the
        handshake (the server refuses one in the URL)."""
        headers = dict(kw.pop("headers", None) or {})
        if token:
            headers["Authorization"] = "Bearer " + token
        return WebSocket(self.port, "/ws/%s" % tid, headers=headers, **kw)


class WSClosed(Exception):
    pass


class WebSocket:
    """A blocking WebSocket client for tests: text messages as JSON."""

    def __init__(self, port, path, timeout=10, rcvbuf=None, headers=None, src=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if src:
            self.sock.bind((src, 0))  # a loopback address of its own (per-address limits)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((HOST, port))
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join("%s: %s\r\n" % kv for kv in (headers or {}).items())
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n%s\r\n" % (path, HOST, port, key, extra))
        self.sock.sendall(req.encode())
        buf = b""
        deadline = time.time() + timeout
        while b"\r\n\r\n" not in buf:
            if time.time() > deadline:
                raise TimeoutError("handshake")
            chunk = self.sock.recv(4096)
            if not chunk:
                raise WSClosed("closed during handshake")
            buf += chunk
        head, self.buf = buf.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise WSClosed("handshake refused: %r" % head[:80])
        want = base64.b64encode(hashlib.sha1(
            (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        if want not in head:
            raise AssertionError("bad Sec-WebSocket-Accept")
        self.closed = False

    def send_frame(self, payload, opcode=1, fin=True):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 65536 else \
            _mask_fast(payload, mask)
        self.sock.sendall(head + mask + body)

    def send(self, obj):
        text = obj if isinstance(obj, str) else json.dumps(obj)
        self.send_frame(text.encode())

    def _read(self, n, deadline):
        while len(self.buf) < n:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no message in time")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                self.closed = True
                raise WSClosed("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv_text(self, timeout=10):
        deadline = time.time() + timeout
        parts = []
        while True:
            b0, b1 = self._read(2, deadline)
            fin, op, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2, deadline))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8, deadline))[0]
            if b1 & 0x80:
                raise AssertionError("server frames must not be masked")
            data = self._read(n, deadline)
            if op == 8:
                self.closed = True
                raise WSClosed("close frame %r" % data[:2])
            if op == 9:
                self.send_frame(data, opcode=10)
                continue
            if op == 10:
                continue
            parts.append(data)
            if fin:
                return b"".join(parts).decode()

    def recv(self, timeout=10):
        return json.loads(self.recv_text(timeout))

    def recv_type(self, types, timeout=10):
        """The next message of one of `types`, skipping others (e.g. "table")."""
        if isinstance(types, str):
            types = (types,)
        deadline = time.time() + timeout
        while True:
            m = self.recv(max(0.01, deadline - time.time()))
            if m.get("type") in types:
                return m

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def _mask_fast(payload, mask):
    n = len(payload)
    k = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    return (int.from_bytes(payload, "big") ^ k).to_bytes(n, "big")


def first_legal(nxt, rng=None):
    """A legal move from a turn description ("next"): random when rng is given."""
    legal = nxt["legal"]
    if legal["discard"]:
        return {"discard": True}
    pl = legal["placements"]
    p = rng.choice(pl) if rng else pl[0]
    move = {"x": p["x"], "y": p["y"], "rot": p["rot"], "meeple": None}
    if p.get("abbot_recall") and rng and rng.random() < 0.3:
        move["abbot_recalled"] = True
    elif p["meeples"] and rng and rng.random() < 0.5:
        move["meeple"] = rng.choice(p["meeples"])
    elif p["meeples"] and not rng:
        move["meeple"] = p["meeples"][0]
    return move


def illegal_move(state_game):
    """A placement that breaks a rule: on the start tile's square."""
    return {"x": 0, "y": 0, "rot": 0, "meeple": None}


_SCHEMA = []


def schema_version():
    """The schema version this build writes, from the server's start line
    ("... schema N)"): tests never hard-code it (each migration changes it)."""
    if not _SCHEMA:
        d = tempfile.mkdtemp(prefix="carc-schema-")
        try:
            p = subprocess.Popen([CARC, "serve", "--host", HOST, "--port", "0", "--db",
                                  os.path.join(d, "s.sqlite"), "--web", d],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 stdin=subprocess.DEVNULL)
            try:
                line = p.stdout.readline().decode()
            finally:
                p.kill()
                p.wait(10)
                p.stdout.close()
            m = re.search(r"schema (\d+)", line)
            assert m, "no schema in the start line: %r" % line
            _SCHEMA.append(int(m.group(1)))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return _SCHEMA[0]


class ServerCase(unittest.TestCase):
    """A test case with a temporary folder, servers started in it (killed at
    tearDown) and WebSocket clients (closed at tearDown)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carc-server-test-")
        self.servers = []
        self.sockets = []

    def tearDown(self):
        for w in self.sockets:
            w.close()
        for s in self.servers:
            s.kill()
        if PG_ADMIN:
            for db in sorted(set(s.db for s in self.servers)):
                pg_drop(db)
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, db="carc.sqlite", extra=(), web=None):
        s = Server(os.path.join(self.dir, db), extra=extra, web=web)
        self.servers.append(s)
        return s

    def ws(self, srv, tid, token=None, **kw):
        w = srv.ws(tid, token, **kw)
        self.sockets.append(w)
        return w

    def wait_over(self, srv, tid, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, info, _ = srv.get("/api/tables/" + tid)
            if st == 200 and info["status"] == "over":
                return info
            time.sleep(0.05)
        self.fail("game %s did not end in %d s" % (tid, timeout))


def connect_db(path):
    """The database of the server started on `path`, for reading: its SQLite
    file, or under CARC_TEST_DB (tests/pg/run.sh) its PostgreSQL database
    through test_server's _PgCon (numbers back as int or float)."""
    if not PG_ADMIN:
        import sqlite3
        return sqlite3.connect(path)
    from test_server import _PgCon, _PgRows

    import re

    def num(v):
        return float(v) if isinstance(v, str) and re.fullmatch(r"-?\d+\.\d+(e[-+]?\d+)?", v) else v

    class Rows(_PgRows):
        def __iter__(self):
            return iter(self.rows)

    class Con(_PgCon):
        def execute(self, sql, args=()):
            rows = _PgCon.execute(self, sql, args).fetchall()
            return Rows([tuple(num(v) for v in r) for r in rows])

        def commit(self):
            pass  # psql commits every statement
    return Con(pg_url_for(path))
