#!/bin/sh
# Princess & Dragon in the command: `carc tiles` lists its 30 tiles with
# their symbols; `carc sim` with every expansion and six players writes
# records whose action and dragon steps `carc replay` re-checks (a dragon
# step moved or left out is refused, naming the turn); `carc show` draws
# the dragon where the record's steps left it, and tells the turn's steps
# in the engine's words; `carc play` lets a person decide the action step
# (fairy, magic portal by square, princess) and the dragon's squares (by
# direction letter, word and square) against bots, and the record
# replays; `carc engine` carries the two steps (state, a bad decision
# refused, a decision by its JSON, a record that replays); the record
# fuzzer's Princess & Dragon seeds (tests/fuzz/corpus-record) replay.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_pd: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/../.." || exit 1
case $CARC in /*) ;; *) CARC=$PWD/$CARC ;; esac

# tiles: pd1..pd29 (pd11 twice), 6 volcanoes, 12 dragons, 6 portals and 6
# princesses (the reference's count); the JSON says the same symbols
"$CARC" tiles --expansions princess-dragon >"$tmp/tiles" || fail "carc tiles exited $?"
[ "$(grep -c '^pd[0-9]* ' "$tmp/tiles")" -eq 29 ] || fail "expected pd1..pd29: $(grep '^pd' "$tmp/tiles")"
for want in "volcano 6" "dragon 12" "portal 6" "princess 6"; do
	set -- $want
	n=$(awk -v s="$1" '/^pd/ && $NF == s { n += $2 } END { print n + 0 }' "$tmp/tiles")
	[ "$n" -eq "$2" ] || fail "tiles with the symbol $1: $n, expected $2"
done
[ "$(grep -c '+princess' "$tmp/tiles")" -eq 6 ] || fail "six princess cities expected"
"$CARC" tiles --json --expansions princess-dragon >"$tmp/tiles.json" || fail "tiles --json"
"$CARC" tiles --json --expansions princess-dragon,abbot >"$tmp/garden.json" || fail "tiles --json"
python3 - "$tmp/tiles.json" "$tmp/tiles" "$tmp/garden.json" <<'PY' || fail "tiles --json and the table disagree"
import json, sys
t = json.load(open(sys.argv[1]))["tiles"]
table = {l.split()[0]: l.split()[-1] for l in open(sys.argv[2]) if l.startswith("pd")}
for name, sym in table.items():
    assert t[name]["symbol"] == sym, (name, t[name].get("symbol"), sym)
assert not any("symbol" in v for k, v in t.items() if not k.startswith("pd")), "a symbol elsewhere"
# with the Abbot the garden copies take the place of one plain copy each
g = json.load(open(sys.argv[3]))["tiles"]
assert g["pd7g"]["symbol"] == t["pd7"]["symbol"] and g["pd22g"]["symbol"] == t["pd22"]["symbol"]
assert "pd7" not in g and "pd22" not in g, sorted(g)
PY

# sim with every expansion, six players: every record replays, and the
# records hold every kind of decision of the two steps
"$CARC" sim --games 12 --seed 1 --players 6 --record "$tmp/sim" \
	--expansions river,inns-cathedrals,traders-builders,abbot,princess-dragon >"$tmp/sim.out" ||
	fail "sim exited $?: $(tail -3 "$tmp/sim.out")"
[ "$(ls "$tmp/sim" | wc -l)" -eq 12 ] || fail "expected 12 records"
"$CARC" replay "$tmp"/sim/*.json >"$tmp/rep" || fail "replay: $(grep -v ': ok (' "$tmp/rep")"
[ "$(grep -c ': ok (' "$tmp/rep")" -eq 12 ] || fail "replay: $(cat "$tmp/rep")"
python3 - "$tmp" <<'PY' || fail "the records' steps"
import glob, json, os, sys
tmp = sys.argv[1]
kinds = set()
for f in sorted(glob.glob(os.path.join(tmp, "sim", "*.json"))):
    r = json.load(open(f))
    assert r["rules"]["players"] == 6 and "princess-dragon" in r["rules"]["expansions"], r["rules"]
    for t in r["turns"]:
        for s in t.get("steps", []):
            assert set(s) in ({"player", "action"}, {"player", "dragon"}), s
            if "dragon" in s:
                assert set(s["dragon"]) == {"x", "y"}, s
                kinds.add("dragon")
            else:
                a = s["action"]
                kinds.add(a if isinstance(a, str) else next(iter(a)))
assert kinds == {"none", "fairy", "portal", "princess", "dragon"}, kinds
# a record to break: the first turn with two dragon steps
for f in sorted(glob.glob(os.path.join(tmp, "sim", "*.json"))):
    r = json.load(open(f))
    for i, t in enumerate(r["turns"]):
        ds = [k for k, s in enumerate(t.get("steps", [])) if "dragon" in s]
        if len(ds) >= 2:
            moved = json.loads(json.dumps(r))
            moved["turns"][i]["steps"][ds[1]]["dragon"] = dict(t["steps"][ds[0]]["dragon"])
            json.dump(moved, open(os.path.join(tmp, "moved.json"), "w"))
            short = json.loads(json.dumps(r))
            del short["turns"][i]["steps"][ds[-1]]
            json.dump(short, open(os.path.join(tmp, "short.json"), "w"))
            open(os.path.join(tmp, "turn"), "w").write("%d" % (i + 1))
            sys.exit(0)
sys.exit("no turn with two dragon steps")
PY
turn=$(cat "$tmp/turn")
for bad in moved short; do
	"$CARC" replay "$tmp/$bad.json" >"$tmp/out" 2>&1 && fail "a $bad dragon flight replays"
	grep -q "turn $turn " "$tmp/out" || fail "$bad: the message does not name turn $turn: $(cat "$tmp/out")"
done

# show: the dragon stands where the record's last volcano or dragon step
# put it, drawn at that square's top right corner and written beside the
# scores, the fairy on the square of its last move; the last turn's steps
# in words
rec=$(ls "$tmp"/sim/*.json | head -1)
"$CARC" show "$rec" --color=never --size small >"$tmp/show" || fail "show exited $?"
"$CARC" tiles --json --expansions princess-dragon >"$tmp/pdtiles.json"
python3 - "$rec" "$tmp/show" "$tmp/pdtiles.json" <<'PY' || fail "show: the dragon is not where the record left it"
import json, re, sys
r, show = json.load(open(sys.argv[1])), open(sys.argv[2]).read().split("\n")
tiles = json.load(open(sys.argv[3]))["tiles"]
at = None
for t in r["turns"]:
    if tiles.get(t["tile"], {}).get("symbol") == "volcano":
        at = (t["x"], t["y"])
    for s in t.get("steps", []):
        if "dragon" in s:
            at = (s["dragon"]["x"], s["dragon"]["y"])
assert at, "the dragon never came"
assert "dragon at (%d,%d)" % at in "\n".join(show), (at, show[:3])
# the board: x labels on line 1, rows of 3 lines per y, 5 columns per x
xs = [int(v) for v in show[1].split()]
ys = [(i, int(l.split()[0])) for i, l in enumerate(show) if i > 1 and re.match(r"^ *-?\d+ ", l)]
lw = len(show[1]) - len(show[1].lstrip()) - (5 - len(str(xs[0]))) // 2
row = [i for i, y in ys if y == at[1]][0] - 1
col = lw + (at[0] - xs[0]) * 5 + 4
assert show[row][col] == "D", (at, row, col, show[row - 1:row + 3])
assert sum(l[:lw + 5 * len(xs)].count("D") for l in show[2:]) == 1, "one dragon"
# the fairy stays on the square of its last move (its follower may be gone)
fairy = None
for t in r["turns"]:
    for s in t.get("steps", []):
        if isinstance(s.get("action"), dict) and "fairy" in s["action"]:
            fairy = (s["action"]["fairy"]["x"], s["action"]["fairy"]["y"])
assert fairy, "the fairy never moved"
assert "fairy at (%d,%d)" % fairy in "\n".join(show), (fairy, show[:3])
frow = [i for i, y in ys if y == fairy[1]][0]
fcol = lw + (fairy[0] - xs[0]) * 5
assert "f" in "".join(show[k][fcol:fcol + 5] for k in range(frow - 1, frow + 2)), fairy
assert sum(l[:lw + 5 * len(xs)].count("f") for l in show[2:]) == 1, "one fairy"
PY
"$CARC" replay "$rec" >/dev/null || fail "the record shown"
# a turn with dragon steps, shown with its steps in the engine's words
t=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print([i + 1 for i, t in enumerate(r["turns"]) if any("dragon" in s for s in t.get("steps", []))][0])' "$rec")
"$CARC" show "$rec" --turn "$t" --color=never >"$tmp/show" || fail "show --turn $t"
head -1 "$tmp/show" | grep -Eq ': dragon to \(-?[0-9]+,-?[0-9]+\)' || fail "show --turn $t: $(head -1 "$tmp/show")"

# play: a person against two bots decides the action and dragon steps
CARC=$CARC TMP=$tmp timeout 600 python3 tests/cli/pd_play.py || fail "play"

# engine: the two steps through the line protocol
CARC=$CARC TMP=$tmp timeout 300 python3 - <<'PY' || fail "engine"
import json, os, subprocess, sys
carc, tmp = os.environ["CARC"], os.environ["TMP"]
p = subprocess.Popen([carc, "engine", "--bot", "greedy"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True, bufsize=1)
def ask(o):
    p.stdin.write(json.dumps(o) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())
s = ask({"cmd": "new", "rules": {"players": 3, "expansions": ["princess-dragon"]}, "seed": 2})
assert s["type"] == "state" and s["step_kind"] == "tile", s
seen = set()
while not s["over"]:
    kind = s["step_kind"]
    mv = ask({"cmd": "go"})["move"]
    if kind != "tile":
        assert list(mv) == [kind], mv
        seen.add(kind)
        if kind == "dragon":
            # a square two away is no step of the dragon: refused, the game unchanged
            bad = {"dragon": {"x": mv["dragon"]["x"] + 40, "y": mv["dragon"]["y"]}}
            e = ask({"cmd": "move", "move": bad})
            assert e["type"] == "error", e
            e = ask({"cmd": "move", "move": {"dragon": {"x": 0}}})
            assert e["type"] == "error", e
    before = s
    s = ask({"cmd": "move", "move": mv})
    assert s["type"] == "state" and s["steps"] == before["steps"] + 1, (mv, s)
    if kind == "action":
        assert s["over"] or s["step_kind"] in ("tile", "dragon"), (before, s)
assert seen == {"action", "dragon"}, seen
rec = ask({"cmd": "record"})["record"]
assert any("steps" in t for t in rec["turns"])
json.dump(rec, open(os.path.join(tmp, "engine.json"), "w"))
out = subprocess.run([carc, "replay", os.path.join(tmp, "engine.json")], capture_output=True,
                     text=True)
assert out.returncode == 0 and ": ok (" in out.stdout, out.stdout + out.stderr
ask({"cmd": "quit"})
PY

# the record fuzzer's seeds of Princess & Dragon still replay, and hold
# every kind of decision of the two steps between them
"$CARC" replay tests/fuzz/corpus-record/*.json >"$tmp/rep" || fail "the fuzzer's seeds: $(cat "$tmp/rep")"
python3 - tests/fuzz/corpus-record/*.json <<'PY' || fail "the fuzzer's seeds lack a kind of decision"
import json, sys
kinds = set()
for f in sys.argv[1:]:
    for t in json.load(open(f))["turns"]:
        for s in t.get("steps", []):
            a = s.get("action")
            kinds.add("dragon" if "dragon" in s else a if isinstance(a, str) else next(iter(a)))
assert kinds == {"none", "fairy", "portal", "princess", "dragon"}, kinds
PY
exit 0
