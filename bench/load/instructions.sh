#!/bin/sh
# instructions.sh - the server's instructions per broadcast move, counted by
# callgrind (valgrind), which unlike CPU time does not change with what
# else the machine runs: two load runs of run.sh under callgrind, short and
# long, and (Ir(long) - Ir(short)) / (broadcasts(long) - broadcasts(short)),
# so that starting and stopping cancel out. A move is two broadcasts (one
# to each seat). Every thread of the server is counted (the event loop, the
# storage thread, the checkpointer).
#
#   sh bench/load/instructions.sh [GAMES THINK_MS SHORT_S LONG_S]
#
# Defaults: 40 games, think 0..800 ms, 10 s and 30 s. CARC as for run.sh
# (default build/release/carc). Needs valgrind (apt-get install valgrind).
set -eu
cd "$(dirname "$0")/../.."
games=${1:-40}; think=${2:-400}; short=${3:-10}; long=${4:-30}
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
out=$(mktemp -d /tmp/carc-instr.XXXXXX)
trap 'rm -rf "$out"' EXIT
run() { # $1: seconds -> "Ir broadcasts"
	rm -f "$out"/cg.*
	report=$(SERVER_PREFIX="valgrind --tool=callgrind --callgrind-out-file=$out/cg.%p" \
		sh bench/load/run.sh --games "$games" --think-ms "$think" --duration "$1" --warmup 5 2>&1)
	b=$(echo "$report" | sed -n 's/^broadcasts received: *\([0-9]*\).*/\1/p')
	# run.sh starts the generator with the prefix too: the server's file is the larger
	f=$(ls -S "$out"/cg.* | head -1)
	ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f" | head -1)
	[ -n "$b" ] && [ -n "$ir" ] || { echo "instructions.sh: the run failed:" >&2; echo "$report" >&2; exit 1; }
	echo "$ir $b"
}
echo "instructions.sh: $games games, think 0..$((2 * think)) ms, runs of ${short} s and ${long} s under callgrind" >&2
set -- $(run "$short") $(run "$long")
echo "short: $1 instructions, $2 broadcasts; long: $3 instructions, $4 broadcasts"
echo "server instructions per broadcast: $(( ($3 - $1) / ($4 - $2) ))"
