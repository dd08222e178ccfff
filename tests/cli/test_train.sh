#!/bin/sh
# carc train: the held-out error of the fitted model falls with more
# training games (3 against 40, the same 10 held-out games); the run is
# fixed by its command line; --out writes a header naming the command,
# seed and data size and one weight per feature; --dump writes every
# position; bad options fail with status 2.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_train: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CARC" train --help | grep -q "usage: carc train" || fail "--help"
"$CARC" train --games 3 --test-games 10 --json >"$tmp/small" || fail "small run failed"
"$CARC" train --games 40 --test-games 10 --json --out "$tmp/w.txt" --dump "$tmp/d.csv" \
	>"$tmp/big" || fail "big run failed"
"$CARC" train --games 3 --test-games 10 --json >"$tmp/again" || fail "second small run failed"
cmp -s "$tmp/small" "$tmp/again" || fail "the same command line gave other figures"
python3 - "$tmp" <<'PY' || fail "figures or files wrong"
import csv, json, sys, os
t = sys.argv[1]
small, big = (json.load(open(os.path.join(t, n))) for n in ("small", "big"))
assert small["test_positions"] == big["test_positions"] > 1000, (small, big)
assert big["train_positions"] > 10 * small["train_positions"]
assert big["mae_model"] < small["mae_model"], (big["mae_model"], small["mae_model"])
assert small["mae_heuristic"] == big["mae_heuristic"] > 0
lines = open(os.path.join(t, "w.txt")).read().splitlines()
head = [l for l in lines if l.startswith("#")]
body = [l.split() for l in lines if not l.startswith("#")]
assert any("--games 40" in l and "--test-games 10" in l for l in head), head
assert any("seed 1" in l and "40 games (%d positions)" % big["train_positions"] in l for l in head), head
assert [b[0] for b in body] == list(big["weights"]), body
for name, w in body:
    assert abs(float(w) - big["weights"][name]) <= 1e-6 * max(1, abs(float(w))), (name, w)
rows = list(csv.reader(open(os.path.join(t, "d.csv"))))
assert rows[0][:4] == ["set", "game", "turn", "player"] and rows[0][-1] == "margin"
assert rows[0][4:-1] == list(big["weights"])
assert len(rows) - 1 == big["train_positions"] + big["test_positions"]
assert {r[0] for r in rows[1:]} == {"train", "test"}
PY
"$CARC" train --games 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--games 0: status"
"$CARC" train --bot alphago >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "bad bot: status"
grep -q "unknown bot" "$tmp/err" || fail "bad bot: $(cat "$tmp/err")"
"$CARC" train --lambda -1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--lambda -1: status"
exit 0
