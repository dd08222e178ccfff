#!/bin/sh
# make install puts the library, headers and a pkg-config file under PREFIX;
# a program built with pkg-config against it runs a game.
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_install: $*" >&2; exit 1; }
# a plain release build, whatever build the test run itself uses
MAKEFLAGS= MAKELEVEL= make --no-print-directory install SANITIZE= MODE=release CC=cc \
	PREFIX="$tmp/usr" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make install failed"; }
for f in lib/libcarc.a lib/libcarc.so include/carc.h include/carc_bot.h lib/pkgconfig/carc.pc bin/carc; do
	[ -f "$tmp/usr/$f" ] || fail "missing $f"
done
cat > "$tmp/u.c" <<'EOC'
#include <carc.h>
#include <carc_bot.h>
#include <stdio.h>
int main(void)
{
	carc_rules r;
	carc_game *g = carc_game_alloc();
	char err[200];
	carc_rules_default(&r);
	if (carc_game_init(g, &r, 1, NULL, 0, err) != CARC_OK)
		return 1;
	carc_bot *b = carc_bot_new("random", 1, err, sizeof err);
	while (!carc_game_over(g))
		carc_apply(g, carc_bot_choose(b, g), NULL, err);
	carc_bot_free(b);
	int s[2];
	carc_game_scores(g, s);
	printf("%d %d\n", s[0], s[1]);
	return 0;
}
EOC
export PKG_CONFIG_PATH="$tmp/usr/lib/pkgconfig"
cc $(pkg-config --cflags carc) "$tmp/u.c" -o "$tmp/u" $(pkg-config --libs --static carc) || fail "build against the installed library failed"
out=$(LD_LIBRARY_PATH="$tmp/usr/lib" "$tmp/u") || fail "the program failed"
echo "$out" | grep -Eq '^[0-9]+ [0-9]+$' || fail "unexpected output: $out"
exit 0
