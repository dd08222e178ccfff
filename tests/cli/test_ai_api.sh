#!/bin/sh
# The bots use the public API only: every file of src/ai compiles with the
# fields of carc_game hidden (CARC_OPAQUE_GAME) and without the engine's
# private headers (no -Isrc/core).
fail() { echo "test_ai_api: $*" >&2; exit 1; }
cd "$(dirname "$0")/../.." || exit 1
CC=${CC:-cc}
n=0
for f in src/ai/*.c; do
	out=$($CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCARC_OPAQUE_GAME \
		-Wall -Werror -fsyntax-only -Iinclude -Isrc/ai "$f" 2>&1) \
		|| fail "$f reads the engine's internals:
$out"
	n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "expected the bot sources in src/ai, found $n files"
# and the check itself bites: a file that reads a field does not compile
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '#include "carc.h"\nint f(const carc_game *g);\nint f(const carc_game *g) { return g->rules.players; }\n' >"$tmp/bad.c"
if $CC -std=c11 -DCARC_OPAQUE_GAME -fsyntax-only -Iinclude "$tmp/bad.c" 2>/dev/null; then
	fail "CARC_OPAQUE_GAME does not hide the fields"
fi
exit 0
