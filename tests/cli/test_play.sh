#!/bin/sh
# carc play driven by piped commands: choosing a square, turning the tile,
# a figure, undo, hint, the tables, quitting with the record saved; a whole
# hot-seat game to the final breakdown whose record replays; bad seats and
# options exit 2 with one line.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_play: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$CARC" play --help >"$tmp/out" 2>&1 || fail "--help exited $?"
grep -q '^usage: carc play' "$tmp/out" || fail "--help: no usage line"

# one move chosen by hand, with a rotation, a figure and an undo, then a
# hint taken, the tables, and quit
printf 'z\nb\nr\n1\nu\n0\nfrob\nok\nhint\nok\nscore\ntiles\nquit\n' |
	"$CARC" play human greedy --seed 3 --hint greedy --color never --save "$tmp/a.json" >"$tmp/out" 2>"$tmp/err" \
	|| fail "play exited $?: $(cat "$tmp/err")"
for want in "squares:" "no square 'z'" "rotations fit here" "figure: 0 none" "unknown command 'frob'" \
	"hint (greedy):" "player 1 (red) places" "player 2 (blue) places" "tiles left (" "follower" \
	"game saved to $tmp/a.json"; do
	grep -qF -- "$want" "$tmp/out" || fail "output lacks '$want'"
done
python3 - "$tmp/a.json" <<'PY' || fail "record of the quit game is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "carc-record-1" and r["seats"] == ["human", "greedy"], r.keys()
assert len(r["turns"]) == 4, len(r["turns"])
assert "final" not in r
PY
"$CARC" replay "$tmp/a.json" >/dev/null || fail "the saved record does not replay"

# a whole game between two humans on one keyboard, every move from 'hint'
yes 'hint
ok' | head -n 400 | "$CARC" play human human --seed 11 --hint greedy --color never --save "$tmp/b.json" \
	>"$tmp/out" 2>"$tmp/err" || fail "hot-seat game exited $?: $(cat "$tmp/err")"
grep -q 'final scores:' "$tmp/out" || fail "no final breakdown"
grep -Eq '^(winner|shared victory):' "$tmp/out" || fail "no winner line"
grep -q 'farm' "$tmp/out" || fail "breakdown lacks farms"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert 'final' in r" "$tmp/b.json" || fail "no final scores in the record"
"$CARC" replay "$tmp/b.json" >/dev/null || fail "the hot-seat record does not replay"

# every expansion, three seats (two humans and a bot): the whole game, the
# special figures offered, the goods and gardens in the breakdown
yes 'hint
ok' | head -n 800 | "$CARC" play human human greedy --seed 5 --hint greedy --color never \
	--expansions river,inns-cathedrals,traders-builders,abbot --save "$tmp/x.json" \
	>"$tmp/out" 2>"$tmp/err" || fail "expansions game exited $?: $(cat "$tmp/err")"
for want in "final scores after" "garden" "goods" "big follower" "+builder +pig +abbot"; do
	grep -qF -- "$want" "$tmp/out" || fail "expansions game: output lacks '$want'"
done
"$CARC" replay "$tmp/x.json" >"$tmp/rep" || fail "the expansions record does not replay"
grep -q ': ok (' "$tmp/rep" || fail "replay: $(cat "$tmp/rep")"

# end of input mid-game saves the record too
printf 'a\n' | "$CARC" play human random --seed 2 --save "$tmp/c.json" >/dev/null 2>&1 || fail "EOF exit status $?"
[ -s "$tmp/c.json" ] || fail "no record after end of input"
printf 'quit\n' | "$CARC" play human random --no-save --seed 2 >"$tmp/out" 2>&1 || fail "--no-save failed"
grep -q 'saved' "$tmp/out" && fail "--no-save saved"

bad() {
	want=$1; shift
	"$CARC" play "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "play $*: exit status $rc, expected 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "play $*: expected one line on stderr: $(cat "$tmp/err")"
	grep -qF -- "$want" "$tmp/err" || fail "play $*: message does not name '$want': $(cat "$tmp/err")"
}
bad "at least two seats" human
bad "unknown bot 'wizard'" human wizard
bad "--seed" human greedy --seed x
bad "--players 3 does not match" human greedy --players 3
bad "unknown option '--fast'" human greedy --fast
bad "--hint" human greedy --hint mcts:c=x
exit 0
