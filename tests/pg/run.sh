#!/bin/sh
# The server tests against PostgreSQL, and the tests of several processes
# on one database behind nginx (tests/py/test_pg*.py).
#
#   tests/pg/run.sh                  uses build/release/carc
#   CARC=build/test/carc tests/pg/run.sh
#
# Installs PostgreSQL (Debian's postgresql, postgresql-client) and nginx
# (nginx-light) with apt-get when missing. Starts a PostgreSQL of its own as
# a user would: initdb in a temporary folder, postgres on a free port of
# 127.0.0.1 (and a socket in that folder), no system service. PostgreSQL
# refuses to run as root: as root, initdb and postgres run as the user
# `postgres` (runuser -u postgres; the postgresql package makes that user),
# which owns the data folder. fsync is off: a test's database need not
# survive a power cut. Then test_server.py runs with CARC_TEST_DB pointing
# at it (every test server gets a fresh database) and test_pg*.py (three
# server processes, nginx in front). Prints "pg: N passed, F failed" last;
# exits non-zero on any failure. Everything it started is stopped.
set -eu
cd "$(dirname "$0")/../.."
CARC=${CARC:-build/release/carc}
export CARC
export DEBIAN_FRONTEND=noninteractive

if [ ! -x "$CARC" ]; then
	echo "pg: $CARC not found: build it first (make)" >&2
	exit 1
fi
pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
need=""
[ -n "$(pgbin)" ] && [ -x "$(pgbin)/initdb" ] || need="$need postgresql"
command -v psql >/dev/null 2>&1 || need="$need postgresql-client"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need="$need nginx-light"
if [ -n "$need" ]; then
	echo "pg: installing$need"
	if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
	# scripts/apt.sh waits up to 600 s for the package locks; then the download
	timeout 1200 $SUDO sh scripts/apt.sh update
	timeout 1200 $SUDO sh scripts/apt.sh install $need >/dev/null
fi
BIN=$(pgbin)

tmp=$(mktemp -d /tmp/carc-pg-run.XXXXXX)
data=$tmp/data
cleanup() {
	if [ -f "$data/postmaster.pid" ]; then
		kill -INT "$(head -1 "$data/postmaster.pid")" 2>/dev/null || true
		for _ in $(seq 50); do [ -f "$data/postmaster.pid" ] || break; sleep 0.1; done
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
$RUN "$BIN/initdb" -D "$data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
	>"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$RUN "$BIN/postgres" -D "$data" -k "$data" -p "$port" -c listen_addresses=127.0.0.1 \
	-c fsync=off -c max_connections=200 >"$tmp/postgres.log" 2>&1 &
export CARC_TEST_DB="postgresql://postgres@127.0.0.1:$port/postgres"
ok=0
for _ in $(seq 200); do
	if psql -X -q -t -c "select 1" "$CARC_TEST_DB" >/dev/null 2>&1; then ok=1; break; fi
	sleep 0.1
done
if [ $ok = 0 ]; then
	echo "pg: postgres did not start:" >&2
	cat "$tmp/postgres.log" >&2
	exit 1
fi

# py_suite: a test file, a failed test run once more (tests/pysuite.sh)
. tests/pysuite.sh
pass=0; fail=0
suites="tests/py/test_server.py tests/py/test_accounts.py tests/py/test_clocks.py
	tests/py/test_chat.py tests/py/test_analysis.py tests/py/test_group_commit.py tests/py/test_undo.py
	tests/py/test_quickmatch.py tests/py/test_recovery.py tests/py/test_hostile_reads.py
	tests/py/test_hostile_match.py tests/py/test_hostile_friends.py tests/py/test_hostile_keep.py
	tests/py/test_migrate_steps.py tests/py/test_steps.py tests/py/test_princess.py $(ls tests/py/test_pg*.py)"
# PG_SUITES='tests/py/test_analysis.py' runs only those
suites=${PG_SUITES:-$suites}
# under the sanitizers (CARC_SANITIZE, tests/run.sh) the several-process
# tests of test_pg.py and of the table's stream only: they run the
# PostgreSQL store and cluster.c through every kind of write; the other
# suites (restarts, nginx, faults: the same code under timing) ran in the
# normal run (this keeps CI's time down)
if [ -n "${CARC_SANITIZE:-}" ]; then suites="tests/py/test_pg.py tests/py/test_pg_stream.py"; fi
# the suites run in PG_LANES lanes at once (2; each test has databases of
# its own), each lane's lines printed when it ends
run_lane() {
	pass=0; fail=0
	for t in "$@"; do
		t0=$(date +%s)
		py_suite "$t"
		pass=$((pass + py_n - py_f)); fail=$((fail + py_f))
		if [ $py_rc -ne 0 ]; then echo "$py_out"; else
			case $py_out in FLAKY:*) echo "$py_out" ;; *) echo "$py_out" | grep -E 'test_pg:|skipped' || true ;; esac
			echo "$(basename "$t") (PostgreSQL): $py_n passed ($(($(date +%s) - t0)) s)"
		fi
	done
	echo "$pass $fail" >"$tmp/lane.$lane.sum"
}
lanes=${PG_LANES:-2}
i=0
for t in $suites; do
	eval "l$((i % lanes))=\"\${l$((i % lanes)):-} $t\""
	i=$((i + 1))
done
pids=""
for lane in $(seq 0 $((lanes - 1))); do
	eval "list=\${l$lane:-}"
	# shellcheck disable=SC2086
	run_lane $list >"$tmp/lane.$lane.out" 2>&1 &
	pids="$pids $!"
done
pass=0; fail=0; lane=0
for p in $pids; do
	wait "$p"
	cat "$tmp/lane.$lane.out"
	read -r a b <"$tmp/lane.$lane.sum" || { a=0; b=1; }
	pass=$((pass + a)); fail=$((fail + b)); lane=$((lane + 1))
done
echo "pg: $pass passed, $fail failed"
[ $fail -eq 0 ]
