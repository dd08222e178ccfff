#!/bin/sh
# carc analyse: one line per turn of a random game's record (greedy and a
# tiny mcts budget), --json parses and has every turn, a record with a
# known blunder (a city completion left out, made by tests/cli/blunder.c
# against the library next to $CARC) has its largest loss at that turn,
# and bad command lines and bad records fail with a message.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_analyse: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CARC" analyse --help >"$tmp/help" 2>&1 || fail "--help failed"
grep -q "usage: carc analyse RECORD" "$tmp/help" || fail "no usage in --help"

"$CARC" sim --games 1 --seed 3 --record "$tmp/rec" >/dev/null 2>&1 || fail "sim failed"
rec=$tmp/rec/game-3.json
turns=$("$CARC" replay --json "$rec" | python3 -c "import json,sys; print(json.load(sys.stdin)['turns'])") ||
	fail "replay --json failed"

"$CARC" analyse "$rec" >"$tmp/out" 2>&1 || fail "analyse failed: $(cat "$tmp/out")"
n=$(grep -c '^turn [0-9]* player [12] ([a-z]*) [A-Za-z0-9]*: played .* best .* margin [-+][0-9.]* -> [-+][0-9.]*  win [0-9]*% -> [0-9]*%  lost [0-9.]*$' "$tmp/out")
[ "$n" -eq "$turns" ] || fail "expected $turns turn lines, got $n: $(head -3 "$tmp/out")"
grep -q '^largest loss of player 1 (red): turn [0-9]*, [0-9.]* points$' "$tmp/out" ||
	fail "no largest loss line: $(tail -2 "$tmp/out")"

for opts in "--json" "--json --time 0.01" "--json --bot mcts:iter=20 --seed 5"; do
	# shellcheck disable=SC2086
	"$CARC" analyse "$rec" $opts >"$tmp/json" 2>"$tmp/err" || fail "analyse $opts failed: $(cat "$tmp/err")"
	python3 - "$tmp/json" "$turns" "$opts" <<'PY' || fail "analyse $opts: bad JSON: $(head -c 300 "$tmp/json")"
import json, sys
d = json.load(open(sys.argv[1]))
n, opts = int(sys.argv[2]), sys.argv[3]
assert len(d["turns"]) == n, (len(d["turns"]), n)
assert d["bot"] == ("mcts:time=0.01" if "time" in opts else "mcts:iter=20" if "iter" in opts else "greedy"), d["bot"]
for k, t in enumerate(d["turns"]):
    assert t["turn"] == k + 1 and t["player"] in (0, 1)
    for key in ("played", "best"):
        m = t[key]
        assert m == {"discarded": True} or ({"x", "y", "rot", "meeple"} <= set(m)), m
    assert 0 <= t["win_best"] <= 1 and 0 <= t["win_played"] <= 1
    assert abs(t["lost"] - max(0, t["margin_best"] - t["margin_played"])) < 1e-9, t
    if t["played"] == t["best"]:
        assert t["lost"] == 0
assert len(d["largest"]) == 2
top = max(d["turns"], key=lambda t: t["lost"])
assert d["turns"][d["largest_turn"] - 1]["lost"] == top["lost"]
PY
done

# the blunder: compile the helper against the library the binary was built with
lib=$(dirname "$CARC")/libcarc.a
[ -f "$lib" ] || fail "no $lib"
cc=${CC:-cc}
flags=
case $(dirname "$CARC") in
*-clang) cc=clang ;;
esac
case $(dirname "$CARC") in
*/san*) flags="-fsanitize=address,undefined" ;;
esac
$cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $flags -I"$here/include" \
	"$here/tests/cli/blunder.c" "$lib" -ljansson -lm -lpthread -o "$tmp/blunder" ||
	fail "cannot build tests/cli/blunder.c"
found=
for seed in 1 2 3 4 5 6 7 8; do
	if bt=$("$tmp/blunder" $seed "$tmp/bl.json"); then
		found=$seed
		break
	fi
done
[ -n "$found" ] || fail "no deal of seeds 1..8 had a city completion to leave out"
"$CARC" replay "$tmp/bl.json" >/dev/null || fail "the blunder record does not replay"
"$CARC" analyse --json "$tmp/bl.json" >"$tmp/json" || fail "analyse of the blunder failed"
python3 - "$tmp/json" "$bt" <<'PY' || fail "the blunder at turn $bt (seed $found) is not the largest loss"
import json, sys
d, bt = json.load(open(sys.argv[1])), int(sys.argv[2])
t = d["turns"][bt - 1]
assert d["largest_turn"] == bt, (d["largest_turn"], bt)
assert t["lost"] >= 3, t
assert t["played"] != t["best"], t
p = t["player"]
assert d["largest"][p]["turn"] == bt, d["largest"]
# greedy against greedy's own moves: nothing else lost anything
others = [x["lost"] for x in d["turns"] if x["turn"] != bt]
assert max(others) < 1e-9, max(others)
PY
"$CARC" analyse "$tmp/bl.json" | grep -q "^turn $bt player .* lost [3-9]" || fail "text: turn $bt"

# bad command lines and records
"$CARC" analyse >/dev/null 2>&1; [ $? -eq 2 ] || fail "no record: expected status 2"
"$CARC" analyse "$rec" --bot alphago >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "bad bot: status"
grep -q "unknown bot 'alphago'" "$tmp/err" || fail "bad bot: $(cat "$tmp/err")"
"$CARC" analyse "$rec" --time -1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--time -1: status"
"$CARC" analyse "$rec" --time 1 --bot greedy >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] ||
	fail "greedy has no time: status"
"$CARC" analyse "$tmp/nothing.json" >/dev/null 2>"$tmp/err"; [ $? -eq 1 ] || fail "missing file: status"
grep -q "cannot read" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
sed "1,18s/\"scores\":\[0,0\]/\"scores\":[999,0]/" "$rec" >"$tmp/bad.json"
"$CARC" analyse "$tmp/bad.json" >/dev/null 2>"$tmp/err"; [ $? -eq 1 ] || fail "bad record: status"
grep -q "turn 1 (turns\[0\])" "$tmp/err" || fail "bad record: $(cat "$tmp/err")"
exit 0
