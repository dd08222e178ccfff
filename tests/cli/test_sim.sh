#!/bin/sh
# carc sim prints its summary; the same seed gives the same games; --record
# writes one valid carc-record-1 file per game.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_sim: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CARC" sim --help >/dev/null 2>&1 || fail "cannot run $CARC"

"$CARC" sim --games 20 --seed 7 >"$tmp/a" 2>"$tmp/a.err" || fail "carc sim exited $?: $(cat "$tmp/a.err")"
for want in 'carc sim: 20 games, seeds 7..26, 2 players' '^seat ' '^1 red ' '^2 blue ' \
	'legal placements per turn' 'games per second'; do
	grep -q "$want" "$tmp/a" || fail "summary lacks '$want':
$(cat "$tmp/a")"
done
# win shares add up to 100% (shared victories split)
awk '/^[0-9] / { s += $NF + 0 } END { if (s < 99.8 || s > 100.2) exit 1 }' "$tmp/a" ||
	fail "win shares do not add up to 100%: $(cat "$tmp/a")"
# 71 tiles, so at least 71 turns a game; a random game has many placements a turn
grep -q '^turns per game 7[1-9]' "$tmp/a" || fail "turns per game: $(grep turns "$tmp/a")"
awk '/legal placements per turn/ { if ($NF + 0 < 5) exit 1 }' "$tmp/a" ||
	fail "placements per turn: $(grep placements "$tmp/a")"

# same seed, same output (but for the speed line)
"$CARC" sim --games 20 --seed 7 >"$tmp/b" || fail "second run exited $?"
grep -v 'games per second' "$tmp/a" >"$tmp/a2"
grep -v 'games per second' "$tmp/b" >"$tmp/b2"
cmp -s "$tmp/a2" "$tmp/b2" || fail "same seed, different output:
$(diff "$tmp/a2" "$tmp/b2")"
"$CARC" sim --games 20 --seed 8 | grep -v 'games per second' >"$tmp/c"
cmp -s "$tmp/a2" "$tmp/c" && fail "seeds 7 and 8 gave the same summary"

# rules options reach the games
"$CARC" sim --games 5 --players 4 --farm-scoring first-edition --small-city --no-farmers >"$tmp/d" ||
	fail "carc sim with rules options exited $?"
grep -q '4 players, first-edition farm scoring, small city, no farmers' "$tmp/d" ||
	fail "rules not in the summary: $(head -1 "$tmp/d")"
grep -q '^4 yellow ' "$tmp/d" || fail "no fourth seat: $(cat "$tmp/d")"
awk '$1 ~ /^[0-9]$/ && $7 + 0 != 0 { exit 1 }' "$tmp/d" || fail "farm points without farmers: $(cat "$tmp/d")"

# a short run never shows the progress line when stderr is not a terminal
[ -s "$tmp/a.err" ] && fail "progress on a short run: $(cat "$tmp/a.err")"

# records
"$CARC" sim --games 1 --seed 3 --record "$tmp/probe" >/dev/null 2>&1
if [ ! -f "$tmp/probe/game-3.json" ]; then
	echo "SKIP: records not built yet"
	exit 0
fi
"$CARC" sim --games 4 --seed 11 --record "$tmp/rec" >/dev/null || fail "carc sim --record exited $?"
n=$(ls "$tmp/rec" | wc -l)
[ "$n" -eq 4 ] || fail "--record wrote $n files, expected 4: $(ls "$tmp/rec")"
for s in 11 12 13 14; do
	[ -f "$tmp/rec/game-$s.json" ] || fail "no game-$s.json"
done
python3 - "$tmp"/rec/*.json <<'PY' || fail "a record is not valid carc-record-1 JSON"
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    assert r["format"] == "carc-record-1", (path, r.get("format"))
    assert r["rules"]["players"] == 2, path
    assert len(r["turns"]) >= 71, (path, len(r["turns"]))
    assert "final" in r and len(r["final"]["scores"]) == 2, path
PY

# --record makes the missing folders above DIR too (mkdir -p), and says
# clearly when it cannot (a part of the path is a file), before playing
"$CARC" sim --games 2 --seed 5 --record "$tmp/deep/er/rec" >/dev/null 2>"$tmp/deep.err" ||
	fail "carc sim --record into missing folders exited $?: $(cat "$tmp/deep.err")"
[ -f "$tmp/deep/er/rec/game-5.json" ] && [ -f "$tmp/deep/er/rec/game-6.json" ] ||
	fail "--record into missing folders wrote: $(ls -R "$tmp/deep")"
"$CARC" sim --games 1 --seed 5 --record "$tmp/deep/er/rec" >/dev/null ||
	fail "--record into an existing folder exited $?"
: >"$tmp/plain"
if "$CARC" sim --games 1 --record "$tmp/plain/sub" >"$tmp/nf.out" 2>"$tmp/nf.err"; then
	fail "--record under a file succeeded"
fi
grep -q "cannot make directory $tmp/plain/sub: $tmp/plain is not a directory" "$tmp/nf.err" ||
	fail "--record under a file: unclear error: $(cat "$tmp/nf.err")"
[ -s "$tmp/nf.out" ] && fail "--record under a file still played: $(cat "$tmp/nf.out")"
exit 0
