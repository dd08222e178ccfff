#!/bin/sh
# carc bench: the signature of a fixed workload is pinned, as chess engines
# pin their bench node count. It changes only when the rules or move
# generation change; then check the change and pin the new value here.
set -e
fail() { echo "test_bench: $*" >&2; exit 1; }
PINNED=a1c320d2e20e4780
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
