#!/bin/sh
# carc show draws a record's board (from the engine's tile model) with the
# scores; --turn, --color and --size work; a broken record is an error.
# Also: carc demo plays a game to the end with the same renderer.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_show: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# demo does not need records
"$CARC" demo --seed 3 --delay 0 --color=never --every 0 >"$tmp/demo" 2>&1 || fail "carc demo exited $?: $(tail -5 "$tmp/demo")"
grep -q '^ *1  player 1 (red) places ' "$tmp/demo" || fail "demo: no first turn: $(head -3 "$tmp/demo")"
grep -q '^ *71  player' "$tmp/demo" || fail "demo: no turn 71"
grep -q 'final scoring:' "$tmp/demo" || fail "demo: no final scoring"
grep -q 'final scores after' "$tmp/demo" || fail "demo: no final board"
tail -1 "$tmp/demo" | grep -Eq '(wins|share the victory) with [0-9]+ points' || fail "demo: no winner: $(tail -1 "$tmp/demo")"
grep -q "$(printf '\033')" "$tmp/demo" && fail "demo --color=never wrote escape codes"
"$CARC" demo --turns 12 --every 5 --delay 0 --color=never --players 3 >"$tmp/demo" || fail "short demo exited $?"
[ "$(grep -c 'after turn' "$tmp/demo")" -eq 3 ] || fail "demo --turns 12 --every 5: expected boards after turns 5, 10, 12"

"$CARC" sim --games 1 --seed 9 --record "$tmp/rec" >/dev/null 2>&1
if [ ! -f "$tmp/rec/game-9.json" ]; then
	echo "SKIP: records not built yet"
	exit 0
fi
rec=$tmp/rec/game-9.json

# the start tile alone, drawn from the engine's segments (D: city north,
# road west-east), in both sizes
"$CARC" show "$rec" --turn 0 --color=never --size small >"$tmp/out" || fail "--turn 0 exited $?"
cut -c1-7 "$tmp/out" | sed -n '3,5p' >"$tmp/board"
printf '  .###.\n0 -----\n  .....\n' | cmp -s - "$tmp/board" || fail "start tile, small:
$(cat "$tmp/out")"
grep -q 'the start of the game' "$tmp/out" || fail "--turn 0: $(head -1 "$tmp/out")"
"$CARC" show "$rec" --turn 0 --color=never --size large >"$tmp/out" || fail "--turn 0 large exited $?"
cut -c1-9 "$tmp/out" | sed -n '3,7p' >"$tmp/board"
printf '  .#####.\n  ..###..\n0 -------\n  .......\n  .......\n' | cmp -s - "$tmp/board" ||
	fail "start tile, large:
$(cat "$tmp/out")"

# the whole game: every tile drawn, final scores by kind beside the board
"$CARC" show "$rec" --color=never --size large >"$tmp/out" || fail "show exited $?"
head -1 "$tmp/out" | grep -q 'turn 7[1-9] (the last): player [12] ' || fail "header: $(head -1 "$tmp/out")"
grep -q 'final scores after' "$tmp/out" || fail "no final scores"
grep -Eq ' road +city +cloister +farm +total' "$tmp/out" || fail "no breakdown by kind"
python3 - "$rec" "$tmp/out" <<'PY' || fail "final scores differ from the record"
import json, re, sys
rec = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
for p, (score, kinds) in enumerate(zip(rec["final"]["scores"], rec["final"]["by_kind"])):
    nums = [kinds["road"], kinds["city"], kinds["cloister"], kinds["farm"], score]
    pat = r"%d \w+ +%s\s*$" % (p + 1, " +".join(str(n) for n in nums))
    assert re.search(pat, text, re.M), pat
PY
# one block per tile: count the board's non-blank 7x5 blocks
python3 - "$rec" "$tmp/out" <<'PY' || fail "the board does not have one block per tile"
import json, sys
rec = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")[2:]
xs = [0] + [t["x"] for t in rec["turns"] if "x" in t]
ys = [0] + [t["y"] for t in rec["turns"] if "y" in t]
x0, y0 = min(xs), min(ys)
lw = max(len(str(min(ys))), len(str(max(ys)))) + 1
placed = {(x, y) for x, y in zip(xs, ys)}
for y in range(min(ys), max(ys) + 1):
    for x in range(min(xs), max(xs) + 1):
        row = lines[(y - y0) * 5 + 2]
        c = lw + (x - x0) * 7 + 3
        centre = row[c] if c < len(row) else " "
        assert (centre != " ") == ((x, y) in placed), (x, y, repr(row))
PY

"$CARC" show "$rec" --turn 5 --color=never >"$tmp/out" || fail "--turn 5 exited $?"
head -1 "$tmp/out" | grep -q 'turn 5: player 1 (red) places ' || fail "--turn 5: $(head -1 "$tmp/out")"
grep -q 'after turn 5, 66 tiles left' "$tmp/out" || fail "--turn 5: no 'after turn 5' panel"

"$CARC" show "$rec" --color=always >"$tmp/out" || fail "--color=always exited $?"
grep -q "$(printf '\033')\\[" "$tmp/out" || fail "--color=always wrote no escape codes"
"$CARC" show "$rec" --color=auto >"$tmp/out" || fail "--color=auto exited $?"
grep -q "$(printf '\033')" "$tmp/out" && fail "--color=auto coloured a file"

"$CARC" show "$rec" --turn 100 >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "--turn 100 did not exit 1"
grep -q 'the record has 7[1-9] turns' "$tmp/out" || fail "--turn 100: $(cat "$tmp/out")"

python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); r["turns"][9]["x"] = 60
json.dump(r, open(sys.argv[2], "w"))' "$rec" "$tmp/bad.json"
"$CARC" show "$tmp/bad.json" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a broken record did not exit 1"
grep -q 'turn 10' "$tmp/out" || fail "broken record: $(cat "$tmp/out")"
"$CARC" show "$tmp/bad.json" --turn 9 --color=never >/dev/null || fail "the turns before the break could not be shown"
"$CARC" show "$tmp/missing.json" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a missing file did not exit 1"
grep -q 'cannot read' "$tmp/out" || fail "missing file: $(cat "$tmp/out")"
exit 0
