#!/bin/sh
# carc replay: a recorded game replays ok; corrupted copies (a wrong score,
# a wrong format tag, an unknown tile, an illegal placement, broken JSON)
# each fail with a non-zero status and a message naming the turn or key.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_replay: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CARC" sim --help >/dev/null 2>&1 || fail "cannot run $CARC"

"$CARC" sim --games 2 --seed 5 --record "$tmp/rec" >/dev/null 2>&1
if [ ! -f "$tmp/rec/game-5.json" ]; then
	echo "SKIP: records not built yet"
	exit 0
fi
good=$tmp/rec/game-5.json

"$CARC" replay "$good" >"$tmp/out" 2>&1 || fail "a good record failed: $(cat "$tmp/out")"
grep -q "^$good: ok (7[1-9] turns, scores [0-9]*-[0-9]*)\$" "$tmp/out" ||
	fail "unexpected output: $(cat "$tmp/out")"
"$CARC" replay "$good" "$tmp/rec/game-6.json" >"$tmp/out" || fail "two good records failed"
[ "$(grep -c ': ok (' "$tmp/out")" -eq 2 ] || fail "expected two ok lines: $(cat "$tmp/out")"
out=$("$CARC" replay -q "$good") || fail "-q: exit status $?"
[ -z "$out" ] || fail "-q printed: $out"

# --json: one object per file with the final scores
"$CARC" replay --json "$good" >"$tmp/json" || fail "--json exited $?"
python3 - "$tmp/json" "$good" <<'PY' || fail "--json output wrong: $(cat "$tmp/json")"
import json, sys
res = [json.loads(l) for l in open(sys.argv[1])]
rec = json.load(open(sys.argv[2]))
assert len(res) == 1
r = res[0]
assert r["ok"] is True and r["over"] is True
assert r["scores"] == rec["final"]["scores"], (r["scores"], rec["final"]["scores"])
assert r["by_kind"] == rec["final"]["by_kind"]
assert r["turns"] == len(rec["turns"])
PY

# corrupt <name> <python statement on r (the record) or t (its text)>
corrupt() {
	python3 - "$good" "$tmp/$1.json" "$2" <<'PY' || fail "cannot make $1"
import json, sys
t = open(sys.argv[1]).read()
r = json.loads(t)
exec(sys.argv[3])
open(sys.argv[2], "w").write(t if r is None else json.dumps(r))
PY
}
# expect <name> <pattern the message must match>
expect() {
	"$CARC" replay "$tmp/$1.json" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -ne 0 ] || fail "$1: replay accepted a corrupted record: $(cat "$tmp/out")"
	[ $rc -eq 1 ] || fail "$1: exit status $rc, expected 1"
	grep -q "$2" "$tmp/out" || fail "$1: message does not match '$2': $(cat "$tmp/out")"
}

corrupt score 'r["turns"][11]["scores"][0] += 1'
expect score 'turn 12.*key scores'
corrupt final 'r["final"]["scores"][1] += 5'
expect final 'key final.scores'
corrupt format 'r["format"] = "carc-record-0"'
expect format 'key format'
corrupt tile 'r["turns"][5]["tile"] = "Z"'
expect tile 'turn 6.*key tile.*unknown tile'
corrupt place 'r["turns"][3]["x"] = 40; r["turns"][3]["y"] = 40'
expect place 'turn 4'
corrupt meeple 'r["turns"][7]["meeple"] = {"kind": "follower", "at": "Q7"}'
expect meeple 'turn 8.*meeple'
corrupt broken 't = t[:len(t) // 2]; r = None'
expect broken 'JSON'

# a bad file among good ones: the others still pass, the status is 1
"$CARC" replay "$good" "$tmp/tile.json" "$tmp/rec/game-6.json" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a mix of good and bad records did not exit 1"
[ "$(grep -c ': ok (' "$tmp/out")" -eq 2 ] || fail "the good records were not reported ok: $(cat "$tmp/out")"

# a file that cannot be read
"$CARC" replay "$tmp/no-such-file.json" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a missing file did not exit 1"
grep -q "no-such-file.json: cannot read: No such file" "$tmp/out" || fail "missing file: $(cat "$tmp/out")"

# standard input
"$CARC" replay - <"$good" | grep -q '^-: ok' || fail "replay - (stdin) failed"
exit 0
