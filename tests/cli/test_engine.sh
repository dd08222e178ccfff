#!/bin/sh
# carc engine: two engines (mcts with a tiny budget, greedy) play a whole
# game through the line protocol, each told the other's moves; the record
# one of them writes replays with `carc replay` and ends with the scores
# both engines report. Bad lines (a line over 4 MiB and one with a NUL
# byte among them) get error objects and the engine goes on (the game
# unchanged), an unknown key anywhere among them; "stop" cuts a long
# search short; a record can be loaded; end of input ends the engine.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_engine: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CARC" engine --help | grep -q "usage: carc engine" || fail "--help"
"$CARC" engine --bot alphago </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --bot: status"
"$CARC" sim --games 1 --seed 3 --players 4 --record "$tmp/exp" \
	--expansions inns-cathedrals,traders-builders,abbot,river >/dev/null || fail "sim with expansions"
CARC=$CARC TMP=$tmp timeout 300 python3 - <<'PY' || fail "the protocol test failed"
import json, os, subprocess, sys, time

carc, tmp = os.environ["CARC"], os.environ["TMP"]

class Engine:
    def __init__(self, *args):
        self.p = subprocess.Popen([carc, "engine", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
    def send(self, obj):
        self.p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        self.p.stdin.flush()
    def read(self):
        line = self.p.stdout.readline()
        assert line.endswith("\n"), "the engine closed its output"
        return json.loads(line)
    def ask(self, obj):
        self.send(obj)
        return self.read()
    def close(self):
        self.p.stdin.close()
        assert self.p.wait(timeout=30) == 0

def check(cond, what):
    if not cond:
        print("test_engine:", what, file=sys.stderr)
        sys.exit(1)

a, b = Engine("--bot", "mcts:iter=30"), Engine("--bot", "greedy", "--seed", "3")
rules = {"players": 2}
for e in (a, b):
    s = e.ask({"cmd": "new", "rules": rules, "seed": 11, "id": "n"})
    check(s["type"] == "state" and s["id"] == "n" and s["turns"] == 0 and s["to_move"] == 0, s)
    s0 = dict(s)
    del s0["id"]

# bad lines, each answered with an error; the game goes on unchanged
bad = [
    ("garbage", "bad_json"),
    ('{"cmd": "state", "pad": "' + "x" * (5 << 20) + '"}', "bad_json"),  # over 4 MiB
    ('{"cmd": "st\x00ate"}', "bad_json"),
    ("[1, 2]", "bad_request"),
    ({"cmd": "fly"}, "bad_command"),
    ({"nocmd": 1}, "bad_request"),
    ({"cmd": "move", "move": {"x": 40, "y": 40, "rot": 0, "meeple": None}}, "bad_move"),
    ({"cmd": "move", "move": "N"}, "bad_move"),
    ({"cmd": "move", "move": {"x": 1, "y": 0}}, "bad_move"),
    ({"cmd": "go", "time": -1}, "bad_request"),
    ({"cmd": "tile", "tile": "zz"}, "bad_tile"),
    ({"cmd": "tile", "tile": "r1"}, "bad_tile"),
    ({"cmd": "new", "rules": {"players": 9}}, "bad_game"),
    ({"cmd": "new", "record": {"format": "nope"}}, "bad_game"),
    ({"cmd": "bot", "spec": "mcts:speed=3"}, "bad_bot"),
]
for line, code in bad:
    r = a.ask(line)
    check(r["type"] == "error" and r["code"] == code and r["message"], (line, r))
s = a.ask({"cmd": "state"})
check(s == s0 and s["tiles_left"] == 71, (s, s0))

# a key the protocol does not know, at the top of any request or inside
# any of its objects, is refused naming the key and where it is; nothing
# changes (a "new" with "players" beside "rules" starts no game)
mv = a.ask({"cmd": "go"})["move"]  # a legal move, not played
check("x" in mv, mv)
mp = {"kind": "follower", "at": "N1"}
unknown = [
    ({"cmd": "new", "players": 3, "seed": 3}, "players", '"new"', 'under "rules"'),
    ({"cmd": "new", "rules": {"players": 3, "farmer": False}, "seed": 3}, "farmer", '"new.rules"', "known: "),
    ({"cmd": "new", "rules": {"players": 2}, "sed": 3}, "sed", '"new"', "known: "),
    ({"cmd": "bot", "spec": "greedy", "sede": 3}, "sede", '"bot"', "known: "),
    ({"cmd": "tile", "tile": "V", "tiel": "V"}, "tiel", '"tile"', "known: "),
    ({"cmd": "move", "move": mv, "mvoe": 1}, "mvoe", '"move"', "known: "),
    ({"cmd": "move", "x": mv["x"], "y": mv["y"], "rot": mv["rot"]}, "x", '"move"', 'under "move"'),
    ({"cmd": "move", "move": dict(mv, rotation=1)}, "rotation", '"move.move"', "known: "),
    ({"cmd": "move", "move": dict(mv, meeple=dict(mp, colour="red"))}, "colour", '"move.move.meeple"', "known: "),
    ({"cmd": "go", "time": 0.01, "tmie": 1}, "tmie", '"go"', "known: "),
    ({"cmd": "analyse", "mov": mv}, "mov", '"analyse"', "known: "),
    ({"cmd": "analyse", "move": dict(mv, z=1)}, "z", '"analyse.move"', "known: "),
    ({"cmd": "analyse", "move": dict(mv, meeple=dict(mp, n=1))}, "n", '"analyse.move.meeple"', "known: "),
    ({"cmd": "state", "verbose": True}, "verbose", '"state"', "known: "),
    ({"cmd": "record", "pretty": True}, "pretty", '"record"', "known: "),
    ({"cmd": "stop", "now": True}, "now", '"stop"', "known: "),
    ({"cmd": "quit", "force": True}, "force", '"quit"', "known: "),
]
for req, key, where, hint in unknown:
    r = a.ask(dict(req, id=key))
    check(r["type"] == "error" and r["code"] == "bad_request" and r["id"] == key, (req, r))
    want = 'unknown key "%s" in %s' % (key, where)
    check(r["message"].startswith(want) and hint in r["message"], (req, r["message"], want, hint))
s = a.ask({"cmd": "state"})  # still running (not quit), the game as it was
check(s == s0, (s, s0))
r = a.ask({"cmd": "bot", "spec": "mcts:itr=30"})  # a bot spec's parameters: the library's check
check(r["type"] == "error" and r["code"] == "bad_bot" and "'itr'" in r["message"], r)

# a whole game: the engine to move thinks, both are told the move
engines, turn = [a, b], 0
while True:
    s = a.ask({"cmd": "state"})
    check(s == b.ask({"cmd": "state"}), "the engines disagree about the game")
    if s["over"]:
        break
    if turn == 2:  # the tile drawn comes from outside
        for e in engines:
            r = e.ask({"cmd": "tile", "tile": "V"})
            check(r["type"] == "state" and r["tile"] == "V", r)
    me = engines[s["to_move"]]
    r = me.ask({"cmd": "go", "time": 0.01} if me is b else {"cmd": "go", "id": turn})
    check(r["type"] == "bestmove" and "move" in r, r)
    if me is a:
        check(r["id"] == turn and "iterations=" in r["info"], r)
    if turn == 5:
        an = a.ask({"cmd": "analyse", "move": r["move"]})
        check(an["type"] == "analysis" and 0 <= an["win_best"] <= 1 and an["lost"] >= 0, an)
    for e in engines:
        r2 = e.ask({"cmd": "move", "move": r["move"]})
        check(r2["type"] == "state" and r2["turns"] == turn + 1, r2)
    turn += 1
check(turn >= 70, turn)
check(a.ask({"cmd": "go"})["code"] == "game_over", "go after the end")
rec = a.ask({"cmd": "record"})
check(rec["type"] == "record", rec)
with open(os.path.join(tmp, "game.json"), "w") as f:
    json.dump(rec["record"], f)
out = subprocess.run([carc, "replay", "--json", os.path.join(tmp, "game.json")],
                     capture_output=True, text=True)
check(out.returncode == 0, out.stdout + out.stderr)
res = json.loads(out.stdout)
check(res["ok"] and res["over"] and res["turns"] == turn and res["scores"] == s["scores"], res)
check(rec["record"]["turns"][2]["tile"] == "V", rec["record"]["turns"][2])

# a record loads: the engine is where the record ends
r = b.ask({"cmd": "new", "record": rec["record"]})
check(r["type"] == "state" and r["over"] and r["scores"] == s["scores"], r)
half = dict(rec["record"], turns=rec["record"]["turns"][:10])
half.pop("final")
r = b.ask({"cmd": "new", "record": half})
check(r["turns"] == 10 and not r["over"], r)

# stop cuts a long search short; a request sent meanwhile waits for it
a.ask({"cmd": "bot", "spec": "mcts", "seed": 2})
a.ask({"cmd": "new", "rules": rules, "seed": 5})
t0 = time.time()
a.send({"cmd": "go", "time": 60})
time.sleep(0.2)
a.send({"cmd": "stop"})
a.send({"cmd": "state", "id": "after"})
r = a.read()
check(r["type"] == "bestmove" and time.time() - t0 < 10, (r, time.time() - t0))
check(a.read()["id"] == "after", "the state after the search")
check(a.ask({"cmd": "stop"})["type"] == "ok", "stop when idle")

# every expansion, 4 players: half a random game loaded, greedy plays it
# out (big followers, builders, pigs, abbots and their recall as moves)
exp = json.load(open(os.path.join(tmp, "exp", "game-3.json")))
kinds = {t["meeple"]["kind"] for t in exp["turns"] if t.get("meeple")}
check({"big", "builder", "pig", "abbot"} & kinds, kinds)
half = dict(exp, turns=exp["turns"][:60])
half.pop("final")
s = b.ask({"cmd": "new", "record": half})
check(s["turns"] == 60 and s["to_move"] is not None, s)
for t in exp["turns"][60:70]:  # the record's own moves are legal again
    s = b.ask({"cmd": "tile", "tile": t["tile"]})
    check(s["type"] == "state", s)
    mv = {k: t[k] for k in ("x", "y", "rot", "meeple", "abbot_recalled", "discarded") if k in t}
    s = b.ask({"cmd": "move", "move": mv})
    check(s["type"] == "state" and s["scores"] == t["scores"], (s, t))
while not s["over"]:
    s = b.ask({"cmd": "move", "move": b.ask({"cmd": "go"})["move"]})
    check(s["type"] == "state", s)
with open(os.path.join(tmp, "exp.json"), "w") as f:
    json.dump(b.ask({"cmd": "record"})["record"], f)
out = subprocess.run([carc, "replay", os.path.join(tmp, "exp.json")], capture_output=True, text=True)
check(out.returncode == 0 and ": ok (" in out.stdout, out.stdout + out.stderr)
# a step of a kind no code outside the engine names (the test build's
# "test-pass", decided by the next player after each tile): the engine
# says the step's kind and who decides, a bot decides it, a decision of
# its kind is read by its one key, and the record replays
names = json.loads(subprocess.run([carc, "names", "--json"], capture_output=True,
                                  text=True, check=True).stdout)
extra = [e for e in names["expansions"] if e in names["steps"]]
if extra:
    kind = extra[0]
    c = Engine("--bot", "greedy", "--seed", "5")
    s = c.ask({"cmd": "new", "rules": {"players": 2, "expansions": [kind]}, "seed": 4})
    check(s["step_kind"] == "tile" and s["to_move"] == 0, s)
    s = c.ask({"cmd": "move", "move": c.ask({"cmd": "go"})["move"]})
    check((s["step_kind"], s["to_move"], s["steps"], s["turns"]) == (kind, 1, 1, 1), s)
    check(c.ask({"cmd": "move", "move": {kind: 7}})["type"] == "error", "a decision not offered")
    s = c.ask({"cmd": "move", "move": {kind: 1}})
    check((s["step_kind"], s["to_move"], s["steps"]) == ("tile", 1, 2), s)
    for _ in range(20):
        s = c.ask({"cmd": "move", "move": c.ask({"cmd": "go"})["move"]})
        check(s["type"] == "state", s)
    check(s["steps"] == 22, s)
    with open(os.path.join(tmp, "pass.json"), "w") as f:
        json.dump(c.ask({"cmd": "record"})["record"], f)
    out = subprocess.run([carc, "replay", os.path.join(tmp, "pass.json")], capture_output=True,
                         text=True)
    check(out.returncode == 0 and ": ok (" in out.stdout, out.stdout + out.stderr)
    c.close()
check(a.ask({"cmd": "quit"})["type"] == "bye", "quit")
check(a.p.wait(timeout=30) == 0, "exit status after quit")
b.close()  # end of input
PY
exit 0
