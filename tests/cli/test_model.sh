#!/bin/sh
# The learned evaluation's shipped model: data/eval-linear.txt matches its
# checksum (data/eval-linear.txt.sha256), the binary carries it byte for
# byte (`carc train --model`), its header names the command, seed and data
# size that made it, and mcts plays by it (learned=1): legal games that
# replay, the same moves for the same seed, and other moves than the
# heuristic's.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_model: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
(cd data && sha256sum -c --quiet eval-linear.txt.sha256) || fail "checksum of data/eval-linear.txt"
"$CARC" train --model >"$tmp/model" || fail "--model failed"
cmp -s "$tmp/model" data/eval-linear.txt || fail "the built-in model is not data/eval-linear.txt"
grep -q '^# carc train .*--games [0-9]' "$tmp/model" || fail "no command in the header"
grep -q '^# bot .*, seed [0-9]*, [0-9]* games ([0-9]* positions)' "$tmp/model" || fail "no seed/data size"
n=$(grep -vc '^#' "$tmp/model")
[ "$n" -ge 10 ] || fail "only $n weights"
"$CARC" train --model --games 3 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--model with options: status"
for k in 1 2; do
	"$CARC" arena --bots mcts:iter=30,learned=1 greedy --games 2 --seed 5 --jobs 2 --quiet \
		--record "$tmp/r$k" >"$tmp/a$k" 2>&1 || fail "arena with learned=1: $(cat "$tmp/a$k")"
done
for f in "$tmp"/r1/*; do
	"$CARC" replay "$f" >/dev/null 2>&1 || fail "record $f does not replay"
	cmp -s "$f" "$tmp/r2/$(basename "$f")" || fail "learned=1 is not deterministic: records differ"
done
"$CARC" arena --bots mcts:iter=30 greedy --games 2 --seed 5 --jobs 2 --quiet --record "$tmp/h" >/dev/null 2>&1 \
	|| fail "arena, heuristic"
same=1
for f in "$tmp"/r1/*; do cmp -s "$f" "$tmp/h/$(basename "$f")" || same=0; done
[ $same -eq 0 ] || fail "learned=1 played the heuristic's moves in every game"
"$CARC" arena --bots mcts:learned=2 greedy --games 1 >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] \
	|| fail "learned=2: status"
exit 0
