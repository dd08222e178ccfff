#!/bin/sh
# carc tiles --json for the base game equals the spec's base-tiles.json in
# content (counts, segments, ports, cities, shields, edges, notes); the
# table lists 24 tiles, 72 in all.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_tiles: $*" >&2; exit 1; }
# the repository's copy of the contract (spec/README.md)
spec=$(dirname "$0")/../../spec/base-tiles.json
[ -f "$spec" ] || fail "cannot find $spec"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$CARC" tiles --json >"$tmp/tiles.json" || fail "carc tiles --json exited $?"
python3 - "$tmp/tiles.json" "$spec" <<'PY' || fail "carc tiles --json differs from $spec"
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))

def norm(d):
    """The content to compare: ports as sets (their order is not meaning),
    every other key as it is."""
    ports = d["ports"]
    tiles = {}
    for name, t in d["tiles"].items():
        segs = []
        for s in t["segments"]:
            s = dict(s)
            s["ports"] = sorted(s["ports"], key=ports.index)
            segs.append(s)
        tiles[name] = {"count": t["count"], "segments": segs, "note": t.get("note"),
                       "edges": t["edges"]}
    return {"ports": ports, "start": d["start"], "tiles": tiles}

g, w = norm(got), norm(want)
if g != w:
    for k in ("ports", "start"):
        if g[k] != w[k]:
            print("%s: got %s, want %s" % (k, g[k], w[k]))
    for name in sorted(set(g["tiles"]) | set(w["tiles"])):
        if g["tiles"].get(name) != w["tiles"].get(name):
            print("tile %s:\n  got  %s\n  want %s" % (name, g["tiles"].get(name), w["tiles"].get(name)))
    sys.exit(1)
PY

"$CARC" tiles >"$tmp/table" || fail "carc tiles exited $?"
n=$(grep -c '^[A-X] ' "$tmp/table")
[ "$n" -eq 24 ] || fail "the table has $n base tiles, expected 24"
grep -q '^total  *72 ' "$tmp/table" || fail "the table's total is not 72: $(tail -1 "$tmp/table")"
grep -q '^D  *4  CRFR ' "$tmp/table" || fail "tile D is not 4 x CRFR: $(grep '^D ' "$tmp/table")"
exit 0
