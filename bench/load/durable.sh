#!/bin/sh
# Load runs with durable commits (docs/server.md, "Load", fsync on):
#
#   sh bench/load/durable.sh [loadgen options]
#   CARCS="/tmp/before/carc build/release/carc" sh bench/load/durable.sh --games 100 --think-ms 20 --duration 10
#
# Measures the disk's own flush rate first (pg_test_fsync on a file in the
# same folder as the databases), then, for every binary in CARCS (default
# build/release/carc), one bench/load/run.sh on PostgreSQL and one on
# SQLite with --sync full, one after another. PostgreSQL is started here
# as tests/pg/run.sh does (initdb in a temporary folder, a free loopback
# port, as the user `postgres` when run as root) but with fsync=on and
# synchronous_commit=on, so every commit waits for the disk. The load
# average is printed before and after each run. Everything it started is
# stopped; the folder (LOAD_TMP, default /tmp) is removed.
set -eu
cd "$(dirname "$0")/../.."
CARCS=${CARCS:-build/release/carc}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$BIN/initdb" ] || { echo "durable: PostgreSQL is not installed (tests/pg/run.sh installs it)"; exit 1; }
tmp=$(mktemp -d ${LOAD_TMP:-/tmp}/carc-durable.XXXXXX)
data=$tmp/data
cleanup() {
	if [ -f "$data/postmaster.pid" ]; then
		kill -INT "$(head -1 "$data/postmaster.pid")" 2>/dev/null || true
		for _ in $(seq 100); do [ -f "$data/postmaster.pid" ] || break; sleep 0.1; done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
if [ "$(id -u)" = 0 ]; then
	RUN="runuser -u postgres --"
	chmod 755 "$tmp"
	mkdir -m 700 "$data"
	chown postgres "$data"
else
	RUN=""
fi
echo "durable: the disk's flush rate (pg_test_fsync, $tmp):"
$RUN "$BIN/pg_test_fsync" -f "$data/fsync.test" -s 3 2>&1 | sed -n '/^Compare file sync methods using one 8kB write/,/^$/p'
$RUN rm -f "$data/fsync.test"
$RUN "$BIN/initdb" -D "$data" -A trust -U postgres -E UTF8 --locale=C >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$RUN "$BIN/postgres" -D "$data" -k "$data" -p "$port" -c listen_addresses=127.0.0.1 \
	-c fsync=on -c synchronous_commit=on -c max_connections=50 >"$tmp/postgres.log" 2>&1 &
url="postgresql://postgres@127.0.0.1:$port/postgres"
for _ in $(seq 200); do
	psql -X -q -t -c "select 1" "$url" >/dev/null 2>&1 && break
	sleep 0.1
done
psql -X -q -t -A "$url" -c "select 'durable: postgresql fsync=' || current_setting('fsync') ||
	', synchronous_commit=' || current_setting('synchronous_commit') ||
	', wal_sync_method=' || current_setting('wal_sync_method')"
for carc in $CARCS; do
	echo "== $carc, PostgreSQL; $(uptime | sed 's/.*load/load/')"
	LOAD_PG=$url CARC=$carc LOAD_TMP=$tmp sh bench/load/run.sh "$@"
	echo "== $carc, SQLite --sync full; $(uptime | sed 's/.*load/load/')"
	SERVER_OPTS="--sync full" CARC=$carc LOAD_TMP=$tmp sh bench/load/run.sh "$@"
done
echo "durable: done; $(uptime | sed 's/.*load/load/')"
