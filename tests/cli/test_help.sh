#!/bin/sh
# carc --help and every subcommand's --help exit 0 with a usage line; a bad
# option or value exits 2 with one line naming it and "see carc X --help".
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_help: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$CARC" --help >"$tmp/out" 2>&1 || fail "carc --help exited $?"
grep -q '^usage: carc' "$tmp/out" || fail "carc --help: no usage line"

for cmd in sim replay show demo tiles; do
	"$CARC" $cmd --help >"$tmp/out" 2>&1 || fail "carc $cmd --help exited $?"
	grep -q "^usage: carc $cmd" "$tmp/out" || fail "carc $cmd --help: no usage line"
	grep -q 'example' "$tmp/out" || fail "carc $cmd --help: no example"
	"$CARC" $cmd -h >/dev/null 2>&1 || fail "carc $cmd -h exited $?"
done

# bad <what to look for in the message> <command and arguments...>
bad() {
	want=$1; shift
	"$CARC" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "carc $*: exit status $rc, expected 2"
	[ -s "$tmp/out" ] && fail "carc $*: printed on stdout: $(cat "$tmp/out")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "carc $*: expected one line on stderr, got: $(cat "$tmp/err")"
	grep -qF -- "$want" "$tmp/err" || fail "carc $*: message does not name '$want': $(cat "$tmp/err")"
	grep -qF "see carc $1 --help" "$tmp/err" || fail "carc $*: message lacks 'see carc $1 --help': $(cat "$tmp/err")"
}

for cmd in sim replay show demo tiles; do
	bad --bogus $cmd --bogus
done
bad --games sim --games abc
bad --games sim --games 0
bad --games sim --games
bad --seed sim --seed -1
bad --players sim --players 9
bad players sim --players 6
bad --farm-scoring sim --farm-scoring medieval
bad "unknown expansion 'foo'" sim --expansions foo
for e in river inns-cathedrals traders-builders abbot; do
	bad "$e" sim --expansions river,foo
done
bad "unknown expansion 'bar'" demo --expansions bar
bad "unknown expansion 'bar'" tiles --expansions bar
bad --players demo --players x
bad --delay demo --delay -5
bad --bot demo --bot no-such-bot
bad --color demo --color=blue
bad "no record file" replay
bad "no record file" show
bad --turn show x.json --turn abc
bad --size show x.json --size huge
bad extra tiles extra

# an expansion the engine does not have yet is refused as such; once it
# has it, the option is accepted
for e in river inns-cathedrals inns-cathedrals-tiles traders-builders abbot; do
	if "$CARC" tiles --expansions $e >/dev/null 2>"$tmp/err"; then :; else
		rc=$?
		[ $rc -eq 2 ] || fail "carc tiles --expansions $e: exit status $rc"
		grep -q "expansion '$e' is not available yet" "$tmp/err" ||
			fail "carc tiles --expansions $e: $(cat "$tmp/err")"
	fi
done
exit 0
