# Part of test_pd.sh: plays the human seat of `carc play` with Princess &
# Dragon against two greedy bots through a pipe, reading each screen up to
# the prompt. Tile steps take the hint; the dragon's squares are chosen by
# direction letter, word and square in turn (the squares listed must be
# marked, the dragon drawn, and the move made the one asked for); the
# action step takes a magic portal (by its square, then a number), else
# the princess, else the fairy. Games go on with the next seed until each
# of these has been chosen once; every record must replay.
import json, os, re, subprocess, sys

carc, tmp = os.environ["CARC"], os.environ["TMP"]
names = json.loads(subprocess.run([carc, "names", "--json"], capture_output=True, text=True,
                                  check=True).stdout)
ACTION, DRAGON = "action", "dragon"
assert ACTION in names["steps"] and DRAGON in names["steps"], names["steps"]

def fail(msg):
    print("drive: " + msg)
    sys.exit(1)

def play(seed, seen):
    rec = os.path.join(tmp, "play-%d.json" % seed)
    p = subprocess.Popen([carc, "play", "human", "greedy", "greedy", "--seed", str(seed), "--hint",
                          "greedy", "--color", "never", "--expansions", "princess-dragon",
                          "--save", rec], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    buf = b""
    def screen():
        nonlocal buf
        while not buf.endswith(b"\n> "):
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                return None
            buf += chunk
        out, buf = buf.decode(), b""
        return out
    def send(line):
        p.stdin.write((line + "\n").encode())
        p.stdin.flush()
    last, expect, forms, pending, prompts = None, None, 0, None, 0
    while True:
        s = screen()
        if s is None:
            break
        prompts += 1
        if prompts > 5000 or "unknown command" in s or re.search(r"choose 1\.\.\d", s):
            p.kill()
            fail("seed %d: '%s' was not taken:\n%s" % (seed, last, s[-2000:]))
        if expect and expect not in s:
            fail("seed %d: expected '%s' after '%s':\n%s" % (seed, expect, last, s[-2000:]))
        expect = None
        if last == "hint":
            last = "ok"
        elif pending and "player 1 (red): portal: " in s:  # the square's one choice
            pending = None
            seen.add("portal-square")
            last = "hint"
        elif pending:  # the choices on a square: take the first listed
            m = re.search(r"^ +(\d+): (\w+): (.*)$", s, re.M)
            if not m:
                fail("seed %d: no choices listed on the square:\n%s" % (seed, s[-2000:]))
            last, pending = m.group(1), None
            expect = "player 1 (red): %s: %s" % (m.group(2), m.group(3))
            seen.add("portal-square")
        elif "decides: " + DRAGON in s:
            m = re.search(r"  ([nesw]) (north|east|south|west) \((-?\d+),(-?\d+)\)", s)
            if not m:
                fail("seed %d: no squares of the dragon:\n%s" % (seed, s[-3000:]))
            if "D" not in s:
                fail("seed %d: the dragon is not on the board:\n%s" % (seed, s[-3000:]))
            form = forms % 3
            forms += 1
            last = [m.group(1), m.group(2), "%s,%s" % (m.group(3), m.group(4))][form]
            seen.add("dragon-" + ["letter", "word", "square"][form])
            expect = "player 1 (red): dragon to (%s,%s)" % (m.group(3), m.group(4))
        elif "decides: " + ACTION in s:
            opts = re.findall(r"^ +(\d+): (\w+): (.*)$", s, re.M)
            groups = re.findall(r"^  (\w+): \d+ choices on the squares ?\((-?\d+),(-?\d+)\)", s, re.M)
            pick = None
            for want in ("portal", "princess", "fairy"):
                for n, what, where in opts:
                    if what == want and not pick:
                        pick = (n, what, where)
                if pick:
                    break
                for what, x, y in groups:
                    if what == want and not pick:
                        pick = ("%s,%s" % (x, y), None, None)
                if pick:
                    break
            if pick and pick[1] is None:
                last, pending = pick[0], True
            elif pick:
                last = pick[0]
                expect = "player 1 (red): %s: %s" % (pick[1], pick[2])
                seen.add(pick[1])
            else:
                last = "1"
        else:
            last = "hint"
        send(last)
    p.wait(timeout=60)
    if p.returncode != 0:
        fail("seed %d: carc play exited %d" % (seed, p.returncode))
    out = subprocess.run([carc, "replay", rec], capture_output=True, text=True)
    if out.returncode != 0 or ": ok (" not in out.stdout:
        fail("seed %d: the record does not replay: %s" % (seed, out.stdout + out.stderr))

seen = set()
want = {"dragon-letter", "dragon-word", "dragon-square", "portal", "princess", "fairy"}
for seed in range(1, 9):
    play(seed, seen)
    if want <= seen | {"portal"} and ("portal" in seen or "portal-square" in seen):
        break
missing = want - seen - ({"portal"} if "portal-square" in seen else set())
if missing:
    fail("not exercised in 8 games: %s (seen %s)" % (sorted(missing), sorted(seen)))
print("drive: seeds 1..%d, the human chose %s" % (seed, ", ".join(sorted(seen))))
