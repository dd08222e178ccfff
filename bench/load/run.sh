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
#
# PostgreSQL: LOAD_PG=postgresql://USER@HOST:PORT/DB runs the server on a
# fresh database made there (carcload_PID, dropped after the run), and
# LOAD_PROCS=2 starts a second server process on the same database; the
# second seat of every game then connects to it (--port2), so every move
# goes from one process to the other through LISTEN/NOTIFY. LOAD_PROCS=3
# starts a third: the clients spread over the three by game and seat, the
# two seats of a game always on different processes (--port3).
set -e
CARC=${CARC:-build/release/carc}
CC=${CC:-cc}
here=$(dirname "$0")
tmp=$(mktemp -d ${LOAD_TMP:-/tmp}/serverload.XXXXXX)
server=""
server2=""
server3=""
dbname=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	[ -n "$server2" ] && kill "$server2" 2>/dev/null && wait "$server2" 2>/dev/null
	[ -n "$server3" ] && kill "$server3" 2>/dev/null && wait "$server3" 2>/dev/null
	[ -n "$dbname" ] && psql -X -q "$LOAD_PG" -c "drop database if exists $dbname" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
[ -x "$CARC" ] || { echo "load: $CARC not built (make)"; exit 1; }
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$tmp/loadgen" "$here/loadgen.c" -ljansson
db="$tmp/load.sqlite"
if [ -n "${LOAD_PG:-}" ]; then
	dbname=carcload_$$
	psql -X -q "$LOAD_PG" -c "create database $dbname" >/dev/null
	db="${LOAD_PG%/*}/$dbname"
fi
# every client comes from 127.0.0.1: the per-address limits are off
start_server() { # $1: output file prefix
	${SERVER_PREFIX:-} $CARC serve --host 127.0.0.1 --port 0 --db "$db" --web "$tmp/none" --quiet \
		--rate-requests 0 --rate-tables 0 --max-open-tables 0 --max-conns-per-addr 0 \
		${SERVER_OPTS:-} >"$tmp/$1.out" 2>"$tmp/$1.err" &
}
wait_port() { # $1: output file prefix
	p=""
	for _ in $(seq 100); do
		p=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/$1.out" 2>/dev/null | head -1 | cut -d: -f3)
		[ -n "$p" ] && break
		sleep 0.1
	done
	[ -n "$p" ] || { echo "load: the server did not start"; cat "$tmp/$1.err"; exit 1; }
	echo "$p"
}
start_server s1
server=$!
port=$(wait_port s1)
extra=""
if [ "${LOAD_PROCS:-1}" -ge 2 ]; then
	start_server s2
	server2=$!
	port2=$(wait_port s2)
	extra="--port2 $port2 --server-pid2 $server2"
	echo "load: second server process pid $server2 on 127.0.0.1:$port2"
fi
if [ "${LOAD_PROCS:-1}" -ge 3 ]; then
	start_server s3
	server3=$!
	port3=$(wait_port s3)
	extra="$extra --port3 $port3 --server-pid3 $server3"
	echo "load: third server process pid $server3 on 127.0.0.1:$port3"
fi
echo "load: server pid $server on 127.0.0.1:$port ($(nproc) cores, database $(echo "$db" | sed 's|.*/||'))"
${SERVER_PREFIX:-} timeout 900 "$tmp/loadgen" --port "$port" --server-pid "$server" $extra "$@"
rc=$?
if [ -n "$dbname" ]; then
	size=$(psql -X -q -t -A "$db" -c "select pg_database_size(current_database()) / 1024")
else
	size=$(du -k "$tmp/load.sqlite" "$tmp/load.sqlite-wal" 2>/dev/null | awk '{s += $1} END {print s}')
fi
echo "database:             ${size} KB after the run"
cat "$tmp"/s*.err | grep -c "error" | sed 's/^/server error lines:   /'
exit $rc
