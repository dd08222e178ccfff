#!/bin/sh
# One source for every name: a figure's, a feature's, a step's or a tile's
# name is written in the engine (src/core) and nowhere else. The server,
# the command, the bots, Python and the web client ask the engine
# (carc_name, carc_vocabulary_json, `carc names`, the server's JSON) and
# keep no copy. This test fails on a string literal ('follower',
# "city", `ic6`) equal to one of those names in their sources (comments
# aside). Tiles named by one letter are also ordinary letters (a port "C",
# a key "R"), so those count only on a line that speaks of a tile or a
# pile. The tile step's name ("tile") is also the protocol's key for the
# drawn tile and is left out; every other step kind's name counts. The
# bots (src/ai) are part of the library: their parameters ("follower",
# the chance of placing one) are words of the bot specs, not copies.
fail() { echo "test_names: $*" >&2; exit 1; }
cd "$(dirname "$0")/../.." || exit 1
CARC=${CARC:-build/release/carc}
names=$("$CARC" names --json) || fail "carc names --json failed"

# scan ROOT: the names copied under ROOT's sources, one line each; exit 1 if any
scan() {
	echo "$names" | python3 -c '
import json, os, re, sys
root = sys.argv[1]
v = json.load(sys.stdin)
words = set(v["figures"]) | set(v["features"]) | set(v["figure_words"])
words |= {s for s in v["steps"] if s != "tile"}
tiles = set(v["tiles"])
long_tiles = {t for t in tiles if len(t) > 1}
letters = {t for t in tiles if len(t) == 1}
assert "follower" in words and "city" in words and "ic6" in long_tiles and "D" in letters
exts = (".c", ".h", ".py", ".js", ".mjs", ".html")
lit = re.compile(r"""(["'"'"'`])([^"'"'"'`\\\n]{1,24})\1""")
bad = []
for sub in ["src/server", "src/cli", "python", "web"]:
    for d, _, files in os.walk(os.path.join(root, sub)):
        if "node_modules" in d:
            continue
        for f in sorted(files):
            if not f.endswith(exts):
                continue
            path = os.path.join(d, f)
            in_block = in_doc = False
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                s = line.strip()
                q3 = chr(34) * 3
                if path.endswith(".py") and (in_doc or s.startswith((q3, "r" + q3))):
                    # a docstring is prose, like a comment
                    q = s.count(q3)
                    in_doc = (q % 2 == 1) != in_doc
                    continue
                if in_block:
                    in_block = "*/" not in s
                    continue
                if s.startswith("/*") and "*/" not in s:
                    in_block = True
                    continue
                if s.startswith(("//", "*", "/*", "#")):
                    continue
                code = line.split(" #")[0] if path.endswith(".py") else line.split("//")[0]
                tile_line = re.search(r"tile|pile", code, re.I)
                for m in lit.finditer(code):
                    w = m.group(2)
                    if w in words or w in long_tiles or (w in letters and tile_line):
                        bad.append("%s:%d: %s" % (os.path.relpath(path, root), n, s[:110]))
                        break
print("\n".join(bad))
sys.exit(1 if bad else 0)
' "$1"
}

out=$(scan .) || fail "names written outside the engine (ask carc_name or the server's JSON instead):
$out"
# and the check bites: a source that names a figure, or a tile in a pile, is found
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/server" "$tmp/web/js"
printf 'const char *k = "follower"; /* "city" in a comment is prose */\n' >"$tmp/src/server/x.c"
printf "const pile = ['D', 'E'];\nif (key === 'R') rotate();\n" >"$tmp/web/js/y.js"
mkdir -p "$tmp/python"
printf 'def f():\n    """carc.tile("D") names a tile,\n    "follower" a figure."""\n    return 1\n' >"$tmp/python/z.py"
out=$(scan "$tmp") && fail "copied names were not found"
[ "$(echo "$out" | wc -l)" = 2 ] || fail "expected the two copies, found: $out"
echo "$out" | grep -q "x.c:1" && echo "$out" | grep -q "y.js:1" || fail "wrong lines: $out"
exit 0
