#!/bin/sh
# carc bench: the signature of a fixed workload is pinned, as chess engines
# pin their bench node count. It changes only when the rules or move
# generation change; then check the change and pin the new value here.
set -e
fail() { echo "test_bench: $*" >&2; exit 1; }
# 2465e8a8d3dbf6ec since issue 12: figure options are judged on the
# features after the tile joins them (a farmer or robber reached through
# the join is refused, a pig or builder reached through it allowed), so the
# random games pick among different moves (was a1c320d2e20e4780).
PINNED=2465e8a8d3dbf6ec
out=$("$CARC" bench --games 1000 --json) || fail "carc bench failed"
sig=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["signature"])')
[ "$sig" = "$PINNED" ] || fail "signature $sig, pinned $PINNED (rules or move generation changed?)"
echo "$out" | python3 -c '
import json, sys
b = json.load(sys.stdin)
assert b["games"] == 1000 and b["games_per_sec"] > 0 and b["state_bytes"] > 0, b
assert 20 < b["mean_placements"] < 40, b
' || fail "implausible figures: $out"
"$CARC" bench --games 0 >/dev/null 2>&1 && fail "--games 0 accepted"
"$CARC" bench --help | grep -q "signature" || fail "no help"
exit 0
