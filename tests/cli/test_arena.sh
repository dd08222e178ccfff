#!/bin/sh
# carc arena: the table, seat rotation, records that replay, the same
# results whatever --jobs, and one-line errors for bad options.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_arena: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$CARC" arena --help >"$tmp/out" 2>&1 || fail "--help exited $?"
grep -q '^usage: carc arena' "$tmp/out" || fail "--help: no usage line"
grep -q 'mcts' "$tmp/out" || fail "--help does not list the bots"

# a small match: both bots play every deal from both seats
"$CARC" arena --bots greedy random --games 4 --seed 3 --quiet --record "$tmp/rec" >"$tmp/out" 2>"$tmp/err" \
	|| fail "arena exited $?: $(cat "$tmp/err")"
grep -q '^bot .*win rate (95%).*Elo (95%).*ms/move' "$tmp/out" || fail "no table header: $(cat "$tmp/out")"
grep -Eq '^greedy +4 ' "$tmp/out" || fail "greedy did not play 4 games: $(cat "$tmp/out")"
grep -Eq '^random +4 ' "$tmp/out" || fail "random did not play 4 games: $(cat "$tmp/out")"
n=$(ls "$tmp/rec" | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 records, found $n"
for f in "$tmp/rec"/*.json; do
	"$CARC" replay "$f" >/dev/null 2>"$tmp/err" || fail "record $f does not replay: $(cat "$tmp/err")"
	grep -q '"bots"' "$f" || fail "record $f lacks the bots"
done
# the two games of a deal have the same tiles, seats swapped
python3 - "$tmp/rec" <<'PY' || fail "seat rotation: deals differ"
import json, sys, os
d = sys.argv[1]
g = [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d))]
for a, b in ((g[0], g[1]), (g[2], g[3])):
    assert a["seed"] == b["seed"], (a["seed"], b["seed"])
    assert a["bots"] == list(reversed(b["bots"])), (a["bots"], b["bots"])
assert g[0]["seed"] != g[2]["seed"]
PY

# the same results with one job or two (iteration budgets are deterministic)
strip() { sed -n '3,$p' "$1" | awk '{$NF=""; print}'; }
"$CARC" arena --bots mcts:iter=3 greedy --games 2 --seed 5 --quiet --jobs 1 >"$tmp/j1" || fail "jobs 1 failed"
"$CARC" arena --bots mcts:iter=3 greedy --games 2 --seed 5 --quiet --jobs 2 >"$tmp/j2" || fail "jobs 2 failed"
[ "$(strip "$tmp/j1")" = "$(strip "$tmp/j2")" ] || fail "results depend on --jobs: $(cat "$tmp/j1" "$tmp/j2")"

# three players, two bots: the bots fill the seats in turn; rounding is said
"$CARC" arena --bots greedy random --players 3 --games 2 --quiet >"$tmp/out" 2>"$tmp/err" || fail "3 players failed"
grep -q '3 players' "$tmp/out" || fail "3 players: $(cat "$tmp/out")"
# six players with Inns & Cathedrals and every other expansion: records replay
"$CARC" arena --bots greedy random star25:depth=1 --players 6 --games 6 --quiet \
	--expansions river,inns-cathedrals,traders-builders,abbot --record "$tmp/six" \
	>"$tmp/out" 2>"$tmp/err" || fail "6 players with the expansions failed: $(cat "$tmp/err")"
grep -q '6 players' "$tmp/out" || fail "6 players: $(cat "$tmp/out")"
for f in "$tmp/six"/*.json; do
	"$CARC" replay "$f" >/dev/null 2>"$tmp/err" || fail "record $f does not replay: $(cat "$tmp/err")"
done
"$CARC" arena --bots greedy random --games 3 >"$tmp/out" 2>"$tmp/err" || fail "3 games failed"
grep -q 'rounded up to 4' "$tmp/err" || fail "no rounding note: $(cat "$tmp/err")"
grep -q 'left ~' "$tmp/err" || fail "no progress line: $(cat "$tmp/err")"

bad() {
	want=$1; shift
	"$CARC" arena "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "arena $*: exit status $rc, expected 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "arena $*: expected one line on stderr: $(cat "$tmp/err")"
	grep -qF -- "$want" "$tmp/err" || fail "arena $*: message does not name '$want': $(cat "$tmp/err")"
}
bad "at least two bots" --bots greedy
bad "unknown bot 'gredy'" --bots gredy random
bad "no parameter 'speed'" --bots mcts:speed=2 random
bad "--games" --bots greedy random --games 0
bad "--players" --bots greedy random --players 9
bad "--jobs" --bots greedy random --jobs x
bad "unknown option '--frob'" --bots greedy random --frob
exit 0
