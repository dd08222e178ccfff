"""The records written before issue 27 (turns made of steps) replay with
today's engine and come out of it byte for byte as they went in
(issue 27: "records of today's rules keep exactly their form in
carc-record-1 ... every record written before this change replays").

tests/data/pre27/records/ holds records of each rule set written by the
build before the change (`carc sim --record`, and a server's record of a
finished game on each store; tests/data/pre27/make.py says how). Each is
replayed through the engine (carc_record_replay: every turn checked), then
written again (carc_record_write, with the keys of the record that are
not the engine's, "generator", "bots", "seats", "table", "server", handed
back as its `extra`) and compared with the file: the same bytes (a file
`carc sim` wrote ends with a newline after the record).

Run: CARC_LIB=build/test/libcarc.so python3 tests/py/test_records_pre27.py
(under the test runner, CARC's folder's libcarc.so, as test_binding.py).
"""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
import carc  # noqa: E402

_carc_bin = os.environ.get("CARC")
if _carc_bin:
    _lib = os.path.join(os.path.dirname(os.path.abspath(_carc_bin)), "libcarc.so")
    if os.path.exists(_lib):
        os.environ.setdefault("CARC_LIB", _lib)

RECORDS = os.path.join(REPO, "tests", "data", "pre27", "records")


class RecordsBefore27(unittest.TestCase):
    @unittest.skipIf(os.environ.get("CARC_SANITIZE"), "an instrumented libcarc.so cannot be loaded "
                     "into python (as test_binding.py); the normal run covers it")
    def test_every_record_replays_and_is_written_again_byte_for_byte(self):
        files = sorted(f for f in os.listdir(RECORDS) if f.endswith(".json"))
        # every rule set of tests/data/pre27/make.py, and the servers'
        self.assertGreaterEqual(len(files), 28)
        kinds = set()
        for f in files:
            with self.subTest(record=f):
                with open(os.path.join(RECORDS, f), encoding="utf-8") as fh:
                    text = fh.read()
                g = carc.Game.replay(text)
                old = json.loads(text)
                kinds.add(tuple(sorted(old["rules"]["expansions"])))
                self.assertEqual(g.turns_played, len(old["turns"]))
                self.assertTrue(g.over, "every record here is of a finished game")
                mine = set(json.loads(g.record()))
                extra = {k: v for k, v in old.items() if k not in mine}
                again = g.record(extra if extra else None)
                self.assertIn(text, (again, again + "\n"),
                              "%s is not written again as it was" % f)
        self.assertGreaterEqual(len(kinds), 6, kinds)


if __name__ == "__main__":
    unittest.main()
