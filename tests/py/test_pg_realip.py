"""The client behind nginx (issue 21): X-Real-IP and X-Forwarded-For
through the shipped site (docs/nginx/), and through a site that sends only
X-Real-IP (the header nginx's own guides set): with --trust-proxy each
client behind the proxy has a budget of its own. And /api/metrics through
the shipped site: for 127.0.0.1 only, carc's loopback rule agreeing.

The clients are on loopback addresses of their own (127.0.0.2, 127.0.0.3,
... as the source address of their connections to nginx on 127.0.0.1), so
nginx's $remote_addr tells them apart. SQLite: no PostgreSQL needed; run
through tests/pg/run.sh (which installs nginx) or alone.
"""
import http.client
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_pg  # noqa: E402
from test_pg import Nginx, SqliteCase  # noqa: E402
from carcserver import HOST  # noqa: E402

setUpModule = test_pg.setUpModule
tearDownModule = test_pg.tearDownModule


def create(port, source, headers=None):
    """POST /api/tables from the loopback address `source`: the status."""
    conn = http.client.HTTPConnection(HOST, port, timeout=10, source_address=(source, 0))
    conn.request("POST", "/api/tables", body=json.dumps({"players": 2}),
                 headers=dict(headers or {}, **{"Content-Type": "application/json"}))
    r = conn.getresponse()
    r.read()
    conn.close()
    return r.status


class RealIpThroughNginxTest(SqliteCase):

    def need_nginx(self):
        if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
            self.skipTest("nginx is not installed (apt-get install nginx-light; "
                          "tests/pg/run.sh does)")
        if not shutil.which("openssl"):
            self.skipTest("openssl is not installed (for a test certificate)")

    def nginx_with(self, srv, proxy_conf=None):
        """nginx with the shipped site; proxy_conf: another carc-proxy.conf text."""
        if proxy_conf is None:
            self.nginx = Nginx(self.dir, [srv.port])
            return self.nginx.port
        site = tempfile.mkdtemp(prefix="site-", dir=self.dir)
        for name in os.listdir(test_pg.SITE_DIR):
            shutil.copy(os.path.join(test_pg.SITE_DIR, name), site)
        with open(os.path.join(site, "carc-proxy.conf"), "w") as f:
            f.write(proxy_conf)
        saved = test_pg.SITE_DIR
        test_pg.SITE_DIR = site
        try:
            self.nginx = Nginx(os.path.join(self.dir, "x"), [srv.port])
        finally:
            test_pg.SITE_DIR = saved
        return self.nginx.port

    def budgets(self, port):
        # two clients behind the proxy, two tables a minute each
        self.assertEqual([create(port, "127.0.0.2") for _ in range(3)], [201, 201, 429])
        self.assertEqual([create(port, "127.0.0.3") for _ in range(3)], [201, 201, 429])
        # a made-up header of the client changes nothing: nginx writes its own
        self.assertEqual(create(port, "127.0.0.2", {"X-Real-IP": "198.51.100.9"}), 429)

    def test_the_shipped_site(self):
        self.need_nginx()
        srv = self.start(["--trust-proxy", "127.0.0.1"])
        port = self.nginx_with(srv)
        self.budgets(port)
        # /api/metrics: the site lets 127.0.0.1 through (and sends no
        # forwarding header there), so carc's loopback rule answers it
        st, text = test_pg.http_json(port, "GET", "/api/metrics")
        self.assertEqual(st, 200, text)
        self.assertIn("carc_info", text)
        conn = http.client.HTTPConnection(HOST, port, timeout=10, source_address=("127.0.0.2", 0))
        conn.request("GET", "/api/metrics")
        r = conn.getresponse()
        r.read()
        conn.close()
        self.assertEqual(r.status, 403)  # nginx's deny

    def test_a_site_that_sends_only_x_real_ip(self):
        self.need_nginx()
        with open(os.path.join(test_pg.SITE_DIR, "carc-proxy.conf")) as f:
            shipped = f.read()
        only_real_ip = "".join(l for l in shipped.splitlines(True) if "X-Forwarded-For" not in l)
        self.assertIn("X-Real-IP $remote_addr", only_real_ip)
        self.assertNotEqual(only_real_ip, shipped)
        srv = self.start(["--trust-proxy", "127.0.0.1"])
        self.budgets(self.nginx_with(srv, only_real_ip))
        # the server saw no X-Forwarded-For: only X-Real-IP told the clients apart
        st, made = test_pg.http_json(srv.port, "POST", "/api/tables", {"players": 2})
        self.assertEqual(st, 201, made)  # the proxy's own budget (no header) is untouched


if __name__ == "__main__":
    unittest.main(verbosity=2)
