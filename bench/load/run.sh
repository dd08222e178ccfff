#!/bin/sh
# Load test of `carc serve` on loopback (see bench/load/README.md).
#
#   sh bench/load/run.sh [loadgen options]
#   sh bench/load/run.sh --games 1000 --think-ms 1000 --duration 30
#
# Starts the server (CARC, default build/release/carc) on 127.0.0.1 with a
# fresh database in a temp folder, runs bench/load/loadgen against it,
# prints the report and stops the server. Bounded: loadgen stops after
# --warmup + --duration seconds (at most 600), and the whole run is killed
# after 15 minutes whatever happens.
set -e
CARC=${CARC:-build/release/carc}
CC=${CC:-cc}
here=$(dirname "$0")
tmp=$(mktemp -d ${LOAD_TMP:-/tmp}/serverload.XXXXXX)
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
[ -x "$CARC" ] || { echo "load: $CARC not built (make)"; exit 1; }
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$tmp/loadgen" "$here/loadgen.c" -ljansson
# every client comes from 127.0.0.1: the per-address limits are off
${SERVER_PREFIX:-} $CARC serve --host 127.0.0.1 --port 0 --db "$tmp/load.sqlite" --web "$tmp/none" --quiet \
	--rate-requests 0 --rate-tables 0 --max-open-tables 0 --max-conns-per-addr 0 \
	${SERVER_OPTS:-} >"$tmp/out" 2>"$tmp/err" &
server=$!
port=""
for _ in $(seq 50); do
	port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$tmp/out")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "load: the server did not start"; cat "$tmp/err"; exit 1; }
echo "load: server pid $server on 127.0.0.1:$port ($(nproc) cores)"
${SERVER_PREFIX:-} timeout 900 "$tmp/loadgen" --port "$port" --server-pid "$server" "$@"
rc=$?
db=$(du -k "$tmp/load.sqlite" "$tmp/load.sqlite-wal" 2>/dev/null | awk '{s += $1} END {print s}')
echo "database:             ${db} KB after the run"
grep -c "error" "$tmp/err" | sed 's/^/server error lines:   /'
exit $rc
