"""Several `carc serve` processes on one PostgreSQL database behind nginx.

Runs as a user would set it up, all on loopback and in a temporary folder:
PostgreSQL (initdb + postgres from Debian's postgresql package, run as the
`postgres` user when the test runs as root: PostgreSQL refuses root) on a
free 127.0.0.1 port, three server processes on it, and nginx (Debian's
nginx, started with a configuration in the folder, no system service)
spreading HTTP and WebSocket over them, as docs/deploy.md sets it up.

CARC_TEST_DB=postgresql://USER@HOST:PORT/DB uses that PostgreSQL instead
of starting one (tests/pg/run.sh). Without the PostgreSQL binaries (or
nginx for the tests through it) the tests are skipped with the reason
printed; tests/pg/run.sh installs both when missing.
"""
import glob
import http.client
import json
import os
import pwd
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import carcserver  # noqa: E402
from carcserver import CARC, HOST, Server, WebSocket, WSClosed, first_legal, psql  # noqa: E402

MAX_TURNS = 200


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def pg_bin(name):
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/" + name))
    return found[-1] if found else shutil.which(name)


class Postgres:
    """A PostgreSQL server in a temporary folder (initdb + postgres)."""

    def __init__(self, root):
        self.root = root
        self.data = os.path.join(root, "pgdata")
        self.port = free_port()
        # PostgreSQL refuses to run as root: then it runs as `postgres`
        # (made by Debian's package), which must reach the folder
        self.user = None
        if os.geteuid() == 0:
            self.user = "postgres"
            pw = pwd.getpwnam(self.user)
            os.chmod(root, 0o755)
            os.makedirs(self.data, mode=0o700)
            os.chown(self.data, pw.pw_uid, pw.pw_gid)
        run_as = ["runuser", "-u", self.user, "--"] if self.user else []
        p = subprocess.run(run_as + [pg_bin("initdb"), "-D", self.data, "-A", "trust", "-U",
                                     "postgres", "-E", "UTF8", "--locale=C", "--no-sync"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode:
            raise RuntimeError("initdb: " + p.stderr)
        self.log = open(os.path.join(root, "postgres.log"), "ab")
        # fsync off: a test's database need not survive a power cut (the
        # commits still go through PostgreSQL's WAL and locks as in production)
        self.proc = subprocess.Popen(
            run_as + [pg_bin("postgres"), "-D", self.data, "-k", self.data, "-p", str(self.port),
                      "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                      "-c", "max_connections=200"],
            stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        self.url = "postgresql://postgres@127.0.0.1:%d/postgres" % self.port
        deadline = time.time() + 20
        while True:
            try:
                psql(self.url, "select 1")
                break
            except RuntimeError:
                if time.time() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("postgres did not start")
                time.sleep(0.1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


# The site as shipped (docs/nginx/carc.conf and the server's part of it,
# docs/nginx/carc-proxy.conf), loaded with only ports, addresses and paths
# substituted: the upstream's servers become the test's processes (one line
# per process, with the shipped line's parameters), 80 and 443 free
# loopback ports, [::] ::1, the certificate a self-signed one for
# 127.0.0.1, the include the folder's copy. Besides the shipped TLS server
# the test adds one plain-HTTP server (`port`: what most tests talk to)
# whose body is only the shipped include, so it serves exactly the shipped
# locations without a certificate on the client's side.
SITE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "nginx")

NGINX_MAIN = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
{user}
events {{ worker_connections 1024; }}
http {{
    access_log {dir}/nginx-access.log;
    client_body_temp_path {dir}/nginx-body;
    proxy_temp_path {dir}/nginx-proxy;
    fastcgi_temp_path {dir}/nginx-fastcgi;
    uwsgi_temp_path {dir}/nginx-uwsgi;
    scgi_temp_path {dir}/nginx-scgi;
    include {dir}/carc.conf;
    server {{
        listen 127.0.0.1:{port};
        include {dir}/carc-proxy.conf;
    }}
}}
"""


def site_conf(ports, tls_port, folder):
    """docs/nginx/carc.conf with the test's ports, addresses and paths."""
    with open(os.path.join(SITE_DIR, "carc.conf")) as f:
        text = f.read()
    lines = re.findall(r"^( *server 127\.0\.0\.1:)808\d( [^\n]*)$", text, re.M)
    assert lines, "no upstream server lines in carc.conf"
    first = re.search(r"^ *server 127\.0\.0\.1:808\d[^\n]*\n(?: *server 127\.0\.0\.1:808\d"
                      r"[^\n]*\n)*", text, re.M)
    text = text[:first.start()] + "".join("%s%d%s\n" % (lines[0][0], p, lines[0][1])
                                          for p in ports) + text[first.end():]
    subs = [(r"listen 80;", "listen 127.0.0.1:%d;" % free_port()),
            (r"listen \[::\]:80;", "listen [::1]:%d;" % free_port()),
            (r"listen 443 ssl;", "listen 127.0.0.1:%d ssl;" % tls_port),
            (r"listen \[::\]:443 ssl;", "listen [::1]:%d ssl;" % tls_port),
            (r"/etc/letsencrypt/live/carc\.example\.org/fullchain\.pem",
             os.path.join(folder, "cert.pem")),
            (r"/etc/letsencrypt/live/carc\.example\.org/privkey\.pem",
             os.path.join(folder, "key.pem")),
            (r"include /etc/nginx/snippets/carc-proxy\.conf;",
             "include %s;" % os.path.join(folder, "carc-proxy.conf"))]
    for pat, rep in subs:
        text, n = re.subn(pat, lambda _m: rep, text)
        assert n == 1, "carc.conf: %s is not there once" % pat
    return text


class Nginx:
    def __init__(self, root, ports, tls=False):
        self.dir = os.path.join(root, "nginx")
        os.makedirs(self.dir)
        self.port = free_port()
        # the shipped site always has its TLS server: a self-signed
        # certificate for 127.0.0.1 (the site's comes from certbot)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", os.path.join(self.dir, "key.pem"),
                        "-out", os.path.join(self.dir, "cert.pem"), "-days", "1",
                        "-subj", "/CN=127.0.0.1"], check=True, capture_output=True, timeout=60)
        self.tls_port = free_port()
        shutil.copy(os.path.join(SITE_DIR, "carc-proxy.conf"), self.dir)
        with open(os.path.join(self.dir, "carc.conf"), "w") as f:
            f.write(site_conf(ports, self.tls_port, self.dir))
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_MAIN.format(dir=self.dir, port=self.port,
                                      user="user root;" if os.geteuid() == 0 else ""))
        self.proc = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-p", self.dir,
                                      "-c", conf, "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     stdin=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("nginx did not start: " + self.error_log())

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "nginx-error.log")) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            # fast shutdown: a graceful one (SIGQUIT) waits for open WebSockets
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


PG = None          # the Postgres this module started (or None: CARC_TEST_DB)
PG_URL = None      # where new databases are made
ROOT = None
SKIP = None


def setUpModule():
    global PG, PG_URL, ROOT, SKIP
    PG_URL = os.environ.get("CARC_TEST_DB")
    if PG_URL:
        return
    if not pg_bin("initdb") or not pg_bin("postgres"):
        SKIP = "PostgreSQL is not installed (apt-get install postgresql; tests/pg/run.sh does)"
        print("test_pg: skipped: " + SKIP, file=sys.stderr)
        return
    ROOT = tempfile.mkdtemp(prefix="carc-pg-")
    PG = Postgres(ROOT)
    PG_URL = PG.url


def tearDownModule():
    if PG:
        PG.stop()
    if ROOT:
        shutil.rmtree(ROOT, ignore_errors=True)


def http_json(port, method, path, body=None, token=None, timeout=10):
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    hdrs = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    if token:
        hdrs["Authorization"] = "Bearer " + token
    conn.request(method, path, body=data, headers=hdrs)
    r = conn.getresponse()
    text = r.read().decode(errors="replace")
    conn.close()
    try:
        return r.status, json.loads(text)
    except ValueError:
        return r.status, text


class ClusterCase(unittest.TestCase):
    def setUp(self):
        if SKIP:
            self.skipTest(SKIP)
        self.dir = tempfile.mkdtemp(prefix="carc-pg-test-")
        self.db = os.path.join(self.dir, "carc.sqlite")  # names the database (pg_url_for)
        saved = carcserver.PG_ADMIN
        carcserver.PG_ADMIN = PG_URL
        try:
            self.url = carcserver.pg_url_for(self.db)
        finally:
            carcserver.PG_ADMIN = saved
        self.servers = []
        self.sockets = []
        self.nginx = None

    def tearDown(self):
        for w in self.sockets:
            w.close()
        for s in self.servers:
            s.kill()
        if self.nginx:
            self.nginx.stop()
        # under the sanitizers: no report in any server's log
        bad = [l for l in self.logs().splitlines()
               if "Sanitizer" in l or "runtime error:" in l]
        saved = carcserver.PG_ADMIN
        carcserver.PG_ADMIN = PG_URL
        carcserver.pg_drop(self.db)
        carcserver.PG_ADMIN = saved
        shutil.rmtree(self.dir, ignore_errors=True)
        self.assertEqual(bad, [], "a sanitizer report in a server's log")

    def start(self, n=1, extra=()):
        out = []
        for _ in range(n):
            k = len(self.servers)
            s = Server(self.url, extra=["--bot-threads", "1"] + list(extra),
                       web=os.path.join(self.dir, "no-web"),
                       log_path=os.path.join(self.dir, "server-%d.log" % k))
            s.db = self.db
            self.servers.append(s)
            out.append(s)
        return out

    def with_nginx(self, servers, tls=False):
        if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
            self.skipTest("nginx is not installed (apt-get install nginx-light; "
                          "tests/pg/run.sh does)")
        if not shutil.which("openssl"):
            self.skipTest("openssl is not installed (for a test certificate)")
        self.nginx = Nginx(self.dir, [s.port for s in servers], tls=tls)
        return self.nginx.port

    def ws(self, port, tid, token=None, timeout=10):
        headers = {"Authorization": "Bearer " + token} if token else {}
        w = WebSocket(port, "/ws/%s" % tid, headers=headers, timeout=timeout)
        self.sockets.append(w)
        return w

    def logs(self):
        return "\n".join(s.read_log()[-20000:] for s in self.servers)

    def metric(self, port, name):
        st, text = http_json(port, "GET", "/api/metrics")
        self.assertEqual(st, 200, text)
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        self.fail("no metric %s in %s" % (name, text))


class PgClusterTest(ClusterCase):

    def test_two_players_on_two_processes_play_to_the_end(self):
        a, b, c = self.start(3)
        front = self.with_nginx([a, b, c])
        # made on one process, joined on another, watched through nginx
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"players": 2, "name": "alice", "seed": 7})
        self.assertEqual(st, 201, made)
        tid, ta = made["id"], made["token"]
        st, joined = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
        self.assertEqual(st, 200, joined)
        tb = joined["token"]
        wa, wb = self.ws(a.port, tid, ta), self.ws(b.port, tid, tb)
        spec = self.ws(front, tid)
        sa = wa.recv_type("state")
        sb = wb.recv_type("state")
        spec.recv_type("state")
        self.assertEqual(sa["table"]["status"], "playing")
        self.assertEqual(sb["table"]["status"], "playing")
        self.assertEqual([s["name"] for s in sb["table"]["seats"]], ["alice", "bob"])
        nxt = sa["game"]["next"]
        rng = random.Random(3)
        socks = [wa, wb]
        log = []
        for turn in range(MAX_TURNS):
            if nxt["over"]:
                break
            move = dict(first_legal(nxt, rng), type="move", turn=turn, ref=turn)
            socks[nxt["to_move"]].send(move)
            msgs = [w.recv_type(("move", "error")) for w in (wa, wb, spec)]
            for m in msgs:
                self.assertEqual(m["type"], "move", (m, self.logs()))
                self.assertEqual(m["entry"]["turn"], turn)
            self.assertEqual(msgs[0]["entry"], msgs[1]["entry"])
            self.assertEqual(msgs[0]["next"], msgs[1]["next"])
            log.append(msgs[0]["entry"])
            nxt = msgs[0]["next"]
        self.assertTrue(nxt["over"], "the game did not end")
        final = nxt["final"]["scores"]
        # every process tells the same story; the record from the third replays
        for s in (a, b, c):
            st, state = http_json(s.port, "GET", "/api/tables/%s/state" % tid)
            self.assertEqual(st, 200)
            self.assertEqual(state["table"]["status"], "over")
            self.assertEqual(state["game"]["log"], log)
        st, rec = http_json(c.port, "GET", "/api/tables/%s/record" % tid)
        self.assertEqual(st, 200)
        path = os.path.join(self.dir, "record.json")
        with open(path, "w") as f:
            json.dump(rec, f)
        p = subprocess.run([CARC, "replay", "--json", path], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout.strip().splitlines()[-1])["scores"], final)
        # the moves are in the database once each, in order
        rows = psql(self.url, "select turn from moves where game_id='%s' order by turn" % tid)
        self.assertEqual([int(r) for r in rows.split()], list(range(len(log))))
        # the record uploaded to one process is shown by another; the lobby
        # of every process lists the finished game
        conn = http.client.HTTPConnection(HOST, a.port, timeout=10)
        conn.request("POST", "/api/records", body=json.dumps(rec),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        up = json.loads(r.read())
        conn.close()
        self.assertEqual(r.status, 201, up)
        st, view = http_json(c.port, "GET", "/api/tables/%s/state" % up["id"])
        self.assertEqual((st, view["table"]["status"]), (200, "view"))
        self.assertEqual(view["game"]["log"], log)
        for s in (a, b, c):
            st, lst = http_json(s.port, "GET", "/api/tables?status=over")
            self.assertIn(tid, [x["id"] for x in lst["tables"]])

    def test_tables_made_on_one_process_are_in_every_lobby(self):
        a, b, c = self.start(3)
        st, made = http_json(a.port, "POST", "/api/tables", {"players": 3, "name": "host"})
        tid = made["id"]
        for s in (b, c):
            deadline = time.time() + 3
            while time.time() < deadline:
                st, lst = http_json(s.port, "GET", "/api/tables?status=open")
                if tid in [x["id"] for x in lst["tables"]]:
                    break
                time.sleep(0.05)
            self.assertIn(tid, [x["id"] for x in lst["tables"]])
        # seats taken on two other processes: every lobby shows the started game
        http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "b"})
        http_json(c.port, "POST", "/api/tables/%s/join" % tid, {"name": "c"})
        for s in (a, b, c):
            deadline = time.time() + 3
            while time.time() < deadline:
                st, info = http_json(s.port, "GET", "/api/tables/" + tid)
                if info["status"] == "playing":
                    break
                time.sleep(0.05)
            self.assertEqual(info["status"], "playing")
            self.assertEqual([x["name"] for x in info["seats"]], ["host", "b", "c"])
        # the same seat asked for on two processes: one gets it
        st, made = http_json(a.port, "POST", "/api/tables", {"players": 2, "name": "host"})
        tid = made["id"]
        time.sleep(0.2)
        res = [None, None]

        def join(i, port):
            res[i] = http_json(port, "POST", "/api/tables/%s/join" % tid,
                               {"name": "p%d" % i, "seat": 1})
        th = [threading.Thread(target=join, args=(0, b.port)),
              threading.Thread(target=join, args=(1, c.port))]
        for t in th:
            t.start()
        for t in th:
            t.join(10)
        codes = sorted(r[0] for r in res)
        self.assertEqual(codes, [200, 409], res)
        refused = [r for r in res if r[0] == 409][0]
        # refused by the store (the seat was not open any more), or by the
        # process that had heard of it already (the table is full then)
        self.assertIn(refused[1]["error"]["code"], ("seat_taken", "table_full"), refused)
        st, info = http_json(a.port, "GET", "/api/tables/" + tid)
        winner = [r for r in res if r[0] == 200][0][1]
        self.assertEqual(info["seats"][1]["name"], winner["table"]["seats"][1]["name"])

    def test_the_same_turn_offered_to_two_processes_is_accepted_once(self):
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"players": 2, "name": "alice", "seed": 11})
        tid, ta = made["id"], made["token"]
        st, joined = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
        tb = joined["token"]
        watch_a, watch_b = self.ws(a.port, tid), self.ws(b.port, tid)
        nxt = watch_a.recv_type("state")["game"]["next"]
        watch_b.recv_type("state")
        tokens = [ta, tb]
        rng = random.Random(1)
        outcomes = {"accepted_a": 0, "accepted_b": 0}
        for turn in range(8):
            # the same seat sends a move for the same turn to both processes
            # at once (two different placements when there are two)
            moves = [dict(first_legal(nxt, rng), turn=turn), dict(first_legal(nxt, rng), turn=turn)]
            results = [None, None]
            go = threading.Event()

            def send(i, port):
                go.wait(5)
                results[i] = http_json(port, "POST", "/api/tables/%s/move" % tid, moves[i],
                                       token=tokens[nxt["to_move"]])
            th = [threading.Thread(target=send, args=(0, a.port)),
                  threading.Thread(target=send, args=(1, b.port))]
            for t in th:
                t.start()
            go.set()
            for t in th:
                t.join(15)
            ok = [r for r in results if r and r[0] == 200]
            refused = [r for r in results if r and r[0] != 200]
            self.assertEqual(len(ok), 1, (results, self.logs()))
            self.assertEqual(len(refused), 1, results)
            self.assertEqual(refused[0][0], 409, refused)
            self.assertEqual(refused[0][1]["error"]["code"], "stale_turn", refused)
            outcomes["accepted_a" if results[0][0] == 200 else "accepted_b"] += 1
            # both processes announce that one move, and no other
            got = [w.recv_type(("move",)) for w in (watch_a, watch_b)]
            for g in got:
                self.assertEqual(g["entry"]["turn"], turn)
                self.assertEqual(g["entry"], ok[0][1]["entry"])
            nxt = got[0]["next"]
        rows = psql(self.url, "select count(*), max(turn) from moves where game_id='%s'" % tid)
        self.assertEqual(rows.strip().split("\x1f"), ["8", "7"])
        for s in (a, b):
            st, state = http_json(s.port, "GET", "/api/tables/%s/state" % tid)
            self.assertEqual(len(state["game"]["log"]), 8)
        conflicts = self.logs().count("event=conflict")
        print("test_pg: same turn to two processes, 8 times: %s; %d refused by the store's "
              "turn check (the others by the process's own state)" % (outcomes, conflicts),
              file=sys.stderr)

    def test_kill_the_bot_process_another_takes_over(self):
        procs = self.start(3, extra=["--bot-delay", "150"])
        front = self.with_nginx(procs)
        st, made = http_json(front, "POST", "/api/tables",
                             {"seats": [{}, {"bot": "random"}], "name": "alice", "seed": 5,
                              "bot_delay_ms": 150,
                              "tiles": {"U": 8, "E": 8, "V": 8}})
        self.assertEqual(st, 201, made)
        tid, ta = made["id"], made["token"]
        w = self.ws(front, tid, ta)
        state = w.recv_type("state")
        nxt = state["game"]["next"]
        rng = random.Random(9)
        seen = []          # every move announced to alice: acknowledged
        killed = None
        takeover_s = None
        reconnects = 0
        deadline = time.time() + 40
        while not nxt["over"] and time.time() < deadline:
            try:
                if nxt["to_move"] == 0:
                    w.send(dict(first_legal(nxt, rng), type="move", turn=nxt["turn"]))
                m = w.recv_type(("move", "error"), timeout=8)
                if m["type"] == "error":
                    # a move sent to a process that died, or one that came
                    # second: the state says where the game is
                    self.assertIn(m["error"]["code"], ("stale_turn", "storage"), m)
                    raise WSClosed("resync")
                self.assertEqual(m["entry"]["turn"], len(seen), m)
                seen.append(m["entry"])
                nxt = m["next"]
                if killed and takeover_s is None and m["entry"]["player"] == 1:
                    takeover_s = time.time() - killed
                if killed is None and len(seen) >= 4 and nxt["to_move"] == 1:
                    # the bot is to move: kill -9 the process that plays it
                    held = [p for p in procs if self.metric(p.port, "carc_bot_tables_held") > 0]
                    self.assertEqual(len(held), 1, [self.metric(p.port, "carc_bot_tables_held")
                                                    for p in procs])
                    held[0].kill()
                    killed = time.time()
                    dead_port = held[0].port
            except (WSClosed, OSError, TimeoutError) as e:
                # the client reconnects through nginx, as the web client does
                reconnects += 1
                self.assertLess(reconnects, 20, "too many reconnects: %s\n%s" % (e, self.logs()))
                try:
                    w.close()
                except OSError:
                    pass
                time.sleep(0.2)
                try:
                    w = self.ws(front, tid, ta)
                    state = w.recv_type("state")
                except (WSClosed, OSError, TimeoutError):
                    continue
                log = state["game"]["log"]
                # nothing acknowledged is lost
                self.assertEqual(log[:len(seen)], seen, self.logs())
                seen = list(log)
                nxt = state["game"]["next"]
                if killed and takeover_s is None and log and log[-1]["player"] == 1 and \
                        len(log) > 0:
                    takeover_s = time.time() - killed
        self.assertIsNotNone(killed, "the game ended before the kill")
        self.assertTrue(nxt["over"], "the game did not finish after the kill\n" + self.logs())
        self.assertIsNotNone(takeover_s)
        self.assertLess(takeover_s, 6, "the bots were taken over after %.1f s" % takeover_s)
        alive = [p for p in procs if p.port != dead_port]
        for p in alive:
            st, final = http_json(p.port, "GET", "/api/tables/%s/state" % tid)
            self.assertEqual(final["table"]["status"], "over")
            self.assertEqual(final["game"]["log"][:len(seen)], seen)
        rows = psql(self.url, "select count(*) from moves where game_id='%s'" % tid)
        self.assertEqual(int(rows.split()[0]), len(final["game"]["log"]))
        print("test_pg: bots taken over %.2f s after kill -9 of their process "
              "(bot pause 150 ms, poll %d ms); %d reconnects" % (takeover_s, 1000, reconnects),
              file=sys.stderr)
    def test_bots_played_by_a_process_without_the_players(self):
        a, b = self.start(2, extra=["--bot-delay", "20"])
        # made on a (which takes the bot's lock at once: the bot moves first),
        # played by alice on b
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"seats": [{"bot": "random"}, {}], "name": "alice", "seed": 21,
                              "bot_delay_ms": 20, "tiles": {"U": 6, "E": 6}})
        self.assertEqual(st, 201, made)
        tid, ta = made["id"], made["token"]
        deadline = time.time() + 5
        while self.metric(a.port, "carc_bot_tables_held") != 1 and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.metric(a.port, "carc_bot_tables_held"), 1)
        w = self.ws(b.port, tid, ta)
        nxt = w.recv_type("state")["game"]["next"]
        moves = 0
        deadline = time.time() + 20
        while not nxt["over"] and time.time() < deadline:
            if nxt["to_move"] == 1:
                w.send(dict(first_legal(nxt), type="move", turn=nxt["turn"]))
            m = w.recv_type(("move", "error"), timeout=5)
            self.assertEqual(m["type"], "move", (m, self.logs()))
            nxt = m["next"]
            moves += 1
        self.assertTrue(nxt["over"], self.logs())
        self.assertEqual(self.metric(b.port, "carc_bot_tables_held"), 0)

    def test_orphaned_bots_are_found_by_the_poll(self):
        # nobody arrives anywhere after the kill: only the poll for tables
        # without a bot player can take the bots over
        a, b = self.start(2, extra=["--bot-delay", "20"])
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"seats": [{"bot": "random"}, {}], "name": "alice", "seed": 8,
                              "bot_delay_ms": 20})
        tid, ta = made["id"], made["token"]
        w = self.ws(b.port, tid, ta)
        nxt = w.recv_type("state")["game"]["next"]
        for _ in range(20):
            if nxt["to_move"] == 0 and nxt["turn"] >= 4:
                break
            if nxt["to_move"] == 1:
                w.send(dict(first_legal(nxt), type="move", turn=nxt["turn"]))
            nxt = w.recv_type(("move",), timeout=5)["next"]
        if nxt["to_move"] == 1:
            w.send(dict(first_legal(nxt), type="move", turn=nxt["turn"]))
            nxt = w.recv_type(("move",), timeout=5)["next"]
        # alice to move: kill -9 the bots' process, then alice moves on b
        self.assertEqual(self.metric(a.port, "carc_bot_tables_held"), 1)
        a.kill()
        t0 = time.time()
        w.send(dict(first_legal(nxt), type="move", turn=nxt["turn"]))
        m = w.recv_type(("move",), timeout=5)
        while m["entry"]["player"] != 0:
            m = w.recv_type(("move",), timeout=5)
        took = time.time() - t0
        self.assertLess(took, 3.5, "the bot moved %.1f s after the kill" % took)
        self.assertEqual(self.metric(b.port, "carc_bot_tables_held"), 1)
        print("test_pg: orphaned bots found by the poll %.2f s after kill -9" % took,
              file=sys.stderr)

    def test_a_process_restarted_under_load_loses_no_move(self):
        a, b = self.start(2, extra=["--bot-delay", "10"])
        games = []
        for i in range(6):
            st, made = http_json(a.port, "POST", "/api/tables",
                                 {"seats": [{"bot": "random"}, {"bot": "random"}], "seed": 100 + i,
                                  "bot_delay_ms": 10})
            self.assertEqual(st, 201, made)
            games.append(made["id"])
        watchers = [self.ws(b.port, tid) for tid in games]
        seen = {tid: [] for tid in games}
        for w, tid in zip(watchers, games):
            seen[tid] = list(w.recv_type("state")["game"]["log"])

        def text_ready(w):
            # the server's pings (a frame each second) answered and dropped:
            # True when a whole text frame waits in w.buf
            while len(w.buf) >= 2:
                n, off = w.buf[1] & 0x7F, 2
                if n == 126:
                    if len(w.buf) < 4:
                        return False
                    n, off = int.from_bytes(w.buf[2:4], "big"), 4
                elif n == 127:
                    if len(w.buf) < 10:
                        return False
                    n, off = int.from_bytes(w.buf[2:10], "big"), 10
                if len(w.buf) < off + n:
                    return False
                if w.buf[0] & 0x0F not in (9, 10):
                    return True
                if w.buf[0] & 0x0F == 9:
                    w.send_frame(w.buf[off:off + n], opcode=10)
                w.buf = w.buf[off + n:]
            return False

        def collect(until):
            while time.time() < until:
                ready, _, _ = select.select([w.sock for w in watchers if not text_ready(w)], [],
                                            [], 0.05)
                for w, tid in zip(watchers, games):
                    if w.sock in ready:
                        chunk = w.sock.recv(65536)
                        if not chunk:
                            raise WSClosed("connection closed")
                        w.buf += chunk
                    if not text_ready(w):
                        continue
                    m = w.recv(timeout=5)  # a whole message: never cut at a timeout
                    if m["type"] != "move":
                        continue
                    self.assertEqual(m["entry"]["turn"], len(seen[tid]), m)
                    seen[tid].append(m["entry"])
        collect(time.time() + 0.7)
        # a stopped (SIGTERM) and started again in the middle of the games
        a.stop()
        collect(time.time() + 1.5)
        a2 = Server(self.url, extra=["--bot-threads", "1", "--bot-delay", "10"],
                    web=os.path.join(self.dir, "no-web"),
                    log_path=os.path.join(self.dir, "server-restarted.log"))
        a2.db = self.db
        self.servers.append(a2)
        deadline = time.time() + 25
        while time.time() < deadline:
            collect(time.time() + 0.5)
            done = [http_json(b.port, "GET", "/api/tables/" + tid)[1]["status"] == "over"
                    for tid in games]
            if all(done):
                break
        # what b has announced may still be on its way (a busy machine)
        want = {tid: http_json(b.port, "GET", "/api/tables/" + tid)[1]["turn"] for tid in games}
        deadline = time.time() + 5
        while time.time() < deadline and any(len(seen[t]) < want[t] for t in games):
            collect(time.time() + 0.2)
        for tid in games:
            st, state = http_json(a2.port, "GET", "/api/tables/%s/state" % tid)
            self.assertEqual(state["table"]["status"], "over", self.logs())
            log = state["game"]["log"]
            # every move b announced is in the game, in its place, and b saw them all
            self.assertEqual(log[:len(seen[tid])], seen[tid])
            self.assertEqual(len(seen[tid]), len(log),
                             (tid, http_json(b.port, "GET", "/api/tables/" + tid)[1],
                              [l for l in self.logs().splitlines() if tid in l][-12:]))
            rows = psql(self.url, "select count(*) from moves where game_id='%s'" % tid)
            self.assertEqual(int(rows.split()[0]), len(log))

    def test_tls_on_the_proxy(self):
        import ssl
        a, b = self.start(2, extra=["--allow-origin", "https://127.0.0.1"])
        self.with_nginx([a, b], tls=True)
        ctx = ssl.create_default_context(cafile=os.path.join(self.nginx.dir, "cert.pem"))
        ctx.check_hostname = False
        port = self.nginx.tls_port
        conn = http.client.HTTPSConnection(HOST, port, timeout=10, context=ctx)
        conn.request("POST", "/api/tables", body=json.dumps({"players": 2, "name": "t"}),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        made = json.loads(r.read())
        conn.close()
        self.assertEqual(r.status, 201, made)
        # a WebSocket over TLS (wss://), from a page of the site
        raw = socket.create_connection((HOST, port), timeout=10)
        sock = ctx.wrap_socket(raw)
        try:
            sock.sendall(("GET /ws/%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                          "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          "Sec-WebSocket-Version: 13\r\nOrigin: https://127.0.0.1\r\n"
                          "Authorization: Bearer %s\r\n\r\n" % (made["id"], port, made["token"]))
                         .encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                head += chunk
            self.assertTrue(head.startswith(b"HTTP/1.1 101"), head[:200])
            # the first frame is the state, for seat 0
            rest = head.split(b"\r\n\r\n", 1)[1]
            while len(rest) < 4:
                rest += sock.recv(4096)
            n = rest[1] & 0x7F
            off = 2 if n < 126 else 4 if n == 126 else 10
            n = n if n < 126 else int.from_bytes(rest[2:off], "big")
            while len(rest) < off + n:
                rest += sock.recv(65536)
            state = json.loads(rest[off:off + n])
            self.assertEqual((state["type"], state["you"]), ("state", {"seat": 0}))
        finally:
            sock.close()

    def test_lost_connections_are_made_again(self):
        a, b = self.start(2)
        st, made = http_json(a.port, "POST", "/api/tables",
                             {"players": 2, "name": "alice", "seed": 3})
        tid, ta = made["id"], made["token"]
        st, joined = http_json(b.port, "POST", "/api/tables/%s/join" % tid, {"name": "bob"})
        tb = joined["token"]
        wa, wb = self.ws(a.port, tid, ta), self.ws(b.port, tid, tb)
        nxt = wa.recv_type("state")["game"]["next"]
        wb.recv_type("state")
        socks = [wa, wb]
        dbname = self.url.rsplit("/", 1)[1]
        for turn in range(4):
            # every session of both processes is cut (a PostgreSQL restart,
            # a failover, an idle timeout look the same to them)
            psql(PG_URL, "select count(pg_terminate_backend(pid)) from pg_stat_activity "
                         "where datname = '%s'" % dbname)
            time.sleep(0.2)
            socks[nxt["to_move"]].send(dict(first_legal(nxt), type="move", turn=turn))
            # the move is stored on a new connection, and the other process,
            # listening again, loads it and tells its client
            got = [w.recv_type(("move", "error"), timeout=10) for w in (wa, wb)]
            for g in got:
                self.assertEqual(g["type"], "move", (g, self.logs()))
                self.assertEqual(g["entry"]["turn"], turn)
            nxt = got[0]["next"]
        for s in (a, b):
            st, h = http_json(s.port, "GET", "/api/health")
            self.assertEqual(st, 200, h)
        self.assertIn("listening again", self.logs())


class SqliteCase(unittest.TestCase):
    """Servers on SQLite files (even under CARC_TEST_DB)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carc-proxy-test-")
        self.servers = []
        self.nginx = None

    def tearDown(self):
        for s in self.servers:
            s.kill()
        if self.nginx:
            self.nginx.stop()
        shutil.rmtree(self.dir, ignore_errors=True) if not os.environ.get("KEEPDIR") else print(self.dir)

    def start(self, extra):
        saved = carcserver.PG_ADMIN
        carcserver.PG_ADMIN = None  # this one on SQLite even under CARC_TEST_DB
        try:
            s = Server(os.path.join(self.dir, "p%d.sqlite" % len(self.servers)),
                       extra=["--rate-tables", "2"] + list(extra))
        finally:
            carcserver.PG_ADMIN = saved
        self.servers.append(s)
        return s


class TrustProxyTest(SqliteCase):
    """--trust-proxy (SQLite: no PostgreSQL needed): the limits key on the
    client the proxy names, only when the peer is a trusted proxy."""

    def creates(self, port, headers):
        out = []
        for _ in range(3):
            conn = http.client.HTTPConnection(HOST, port, timeout=10)
            conn.request("POST", "/api/tables", body=json.dumps({"players": 2}),
                         headers=dict(headers, **{"Content-Type": "application/json"}))
            r = conn.getresponse()
            r.read()
            conn.close()
            out.append(r.status)
        return out

    def test_forwarded_client_is_limited_not_the_proxy(self):
        srv = self.start(["--trust-proxy", "127.0.0.0/8", "--max-conns-per-addr", "2"])
        # two clients behind the proxy: each has its own budget of 2 tables
        self.assertEqual(self.creates(srv.port, {"X-Forwarded-For": "203.0.113.7"}),
                         [201, 201, 429])
        self.assertEqual(self.creates(srv.port, {"X-Forwarded-For": "203.0.113.8"}),
                         [201, 201, 429])
        # the client is the last address that is not a trusted proxy
        self.assertEqual(self.creates(srv.port,
                                      {"X-Forwarded-For": "203.0.113.9, 127.0.0.5"}),
                         [201, 201, 429])
        self.assertEqual(self.creates(srv.port, {"X-Real-IP": "198.51.100.1"}), [201, 201, 429])
        # a made-up entry before the real one changes nothing: 203.0.113.7 is spent
        self.assertEqual(self.creates(srv.port, {"X-Forwarded-For": "1.2.3.4, 203.0.113.7"})[0],
                         429)
        # the proxy's own connections are not held to --max-conns-per-addr 2
        socks = [socket.create_connection((HOST, srv.port), timeout=5) for _ in range(4)]
        try:
            st, _ = http_json(srv.port, "GET", "/api/health")
            self.assertEqual(st, 200)
        finally:
            for k in socks:
                k.close()

    def test_headers_of_an_untrusted_peer_are_ignored(self):
        srv = self.start(["--trust-proxy", "10.0.0.1"])
        self.assertEqual(self.creates(srv.port, {"X-Forwarded-For": "203.0.113.7"}),
                         [201, 201, 429])
        # another forwarded address does not help: the key is 127.0.0.1
        self.assertEqual(self.creates(srv.port, {"X-Forwarded-For": "203.0.113.8"}),
                         [429, 429, 429])
        p = subprocess.run([CARC, "serve", "--trust-proxy", "10.0.0.0/33"], capture_output=True,
                           text=True, timeout=10)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--trust-proxy", p.stderr)

    def test_through_nginx(self):
        if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
            self.skipTest("nginx is not installed (apt-get install nginx-light)")
        srv = self.start(["--trust-proxy", "127.0.0.1"])
        self.nginx = Nginx(self.dir, [srv.port])
        # nginx appends the address it was reached from (127.0.0.1, trusted
        # here since the test's client is on loopback too): the client's
        # own entry before it is the one counted
        self.assertEqual(self.creates(self.nginx.port, {"X-Forwarded-For": "192.0.2.1"}),
                         [201, 201, 429])
        self.assertEqual(self.creates(self.nginx.port, {"X-Forwarded-For": "192.0.2.2"}),
                         [201, 201, 429])
        # no header: nginx's own entry (the client's address) is the key
        st, made = http_json(self.nginx.port, "POST", "/api/tables", {"players": 2, "name": "a"})
        self.assertEqual(st, 201, made)
        # and the WebSocket is upgraded through it
        w = WebSocket(self.nginx.port, "/ws/%s" % made["id"],
                      headers={"Authorization": "Bearer " + made["token"]})
        try:
            self.assertEqual(w.recv_type("state")["you"], {"seat": 0})
        finally:
            w.close()


class MetricsTest(SqliteCase):
    """GET /api/metrics (SQLite: no PostgreSQL needed)."""

    def test_metrics_in_the_prometheus_text_format(self):
        srv = self.start([])
        st, made = http_json(srv.port, "POST", "/api/tables",
                             {"seats": [{"bot": "random"}, {"bot": "random"}],
                              "tiles": {"U": 3}, "bot_delay_ms": 0})
        self.assertEqual(st, 201, made)
        deadline = time.time() + 10
        while http_json(srv.port, "GET", "/api/tables/" + made["id"])[1]["status"] != "over":
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
        conn.request("GET", "/api/metrics")
        r = conn.getresponse()
        text = r.read().decode()
        conn.close()
        self.assertEqual(r.status, 200)
        self.assertTrue(r.getheader("Content-Type").startswith("text/plain; version=0.0.4"))
        values, typed = {}, set()
        import re
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                name, kind = line.split()[2:4]
                self.assertIn(kind, ("counter", "gauge", "histogram"))
                typed.add(name)
                continue
            if line.startswith("#") or not line:
                continue
            m = re.match(r'^([a-z_]+)(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? (\S+)$', line)
            self.assertTrue(m, line)
            base = re.sub(r"_(bucket|sum|count)$", "", m.group(1))
            self.assertTrue(m.group(1) in typed or base in typed, line)
            values[m.group(1) + (m.group(2) or "")] = float(m.group(4))
        self.assertEqual(values['carc_info{store="sqlite"}'], 1)
        turns = len(http_json(srv.port, "GET", "/api/tables/%s/state" % made["id"])[1]["game"]["log"])
        self.assertGreater(turns, 0)
        self.assertEqual(values['carc_moves_total{by="own"}'], turns)
        self.assertEqual(values["carc_store_write_seconds_count"], 1 + turns)  # the table, its moves
        self.assertEqual(values['carc_store_write_seconds_bucket{le="+Inf"}'], 1 + turns)
        self.assertEqual(values['carc_tables{status="over"}'], 1)
        self.assertEqual(values["carc_storage_ok"], 1)
        self.assertEqual(values["carc_bot_tables_held"], 0)  # SQLite: no locks
        st, _ = http_json(srv.port, "POST", "/api/metrics", {})
        self.assertEqual(st, 405)


if __name__ == "__main__":
    unittest.main(verbosity=2)
