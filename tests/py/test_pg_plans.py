"""The plans of the list queries on PostgreSQL (docs/server.md, "Reads that
cost what the asker owns"): tests/test_store_plans.c, the test binary
`make test` runs on SQLite, run on an empty database of its own on the
PostgreSQL of tests/pg/run.sh (CARC_TEST_DB), or on one this test starts
like tests/py/test_pg.py. The binary is found beside CARC
(build/test/carc: build/test/tests/test_store_plans). The binary also
checks there that each seat's copy of its game's status follows the
store's writes (PostgreSQL's triggers).
"""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import carcserver  # noqa: E402
import test_pg  # noqa: E402

BINARY = os.path.join(os.path.dirname(os.path.abspath(carcserver.CARC)), "tests",
                      "test_store_plans")
DB = "carc_plans_test"


def setUpModule():
    test_pg.setUpModule()


def tearDownModule():
    test_pg.tearDownModule()


class PlansOnPostgres(unittest.TestCase):
    def setUp(self):
        if test_pg.SKIP:
            self.skipTest(test_pg.SKIP)
        if not os.access(BINARY, os.X_OK):
            self.fail("%s is missing: make MODE=test builds it" % BINARY)
        carcserver.psql(test_pg.PG_URL, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % DB)
        carcserver.psql(test_pg.PG_URL, "CREATE DATABASE %s" % DB)
        self.url = test_pg.PG_URL.rpartition("/")[0] + "/" + DB

    def tearDown(self):
        try:
            carcserver.psql(test_pg.PG_URL, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % DB)
        except RuntimeError:
            pass

    def test_every_list_is_driven_by_the_askers_rows(self):
        env = dict(os.environ, CARC_PLANS_PG=self.url)
        p = subprocess.run([BINARY], env=env, capture_output=True, text=True, timeout=300)
        out = p.stdout + p.stderr
        self.assertEqual(p.returncode, 0, out)
        self.assertIn("[       OK ] plans_after_analyze", out)
        self.assertIn("[       OK ] status_copy", out)
        self.assertIn("[       OK ] plans_of_a_site_of_few_accounts", out)


if __name__ == "__main__":
    unittest.main()
