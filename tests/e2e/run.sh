#!/usr/bin/env bash
# End-to-end tests of the browser game: playwright-core drives Debian's
# chromium-headless-shell against the real server on loopback.
#
#   tests/e2e/run.sh              uses build/release/carc
#   CARC=build/h-web/release/carc tests/e2e/run.sh
#   E2E_TESTS='lobby game' tests/e2e/run.sh   only lobby.test.mjs and game.test.mjs
#   E2E_CONCURRENCY=1 tests/e2e/run.sh    one test file at a time (2 by default)
#   E2E_SCRIPT=screenshots.mjs tests/e2e/run.sh   that script instead of the tests
#
# Installs chromium-headless-shell (apt) and playwright-core (npm ci) when missing, starts
# `carc serve` on a free loopback port with a temporary database, runs the
# tests with node's test runner, stops the server, and keeps the screenshots
# and the downloaded record in build/e2e-artifacts/. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CARC=${CARC:-build/release/carc}
ART=${E2E_ARTIFACTS:-build/e2e-artifacts}
export DEBIAN_FRONTEND=noninteractive

if [ ! -x "$CARC" ]; then
	echo "e2e: $CARC not found: build it first (make)" >&2
	exit 1
fi
# Chromium's headless shell (tests/e2e/lib.mjs launches it, or the whole
# chromium when only that is there)
if [ ! -x /usr/bin/chromium-headless-shell ] && [ -z "${CHROMIUM:-}" ]; then
	echo "e2e: installing chromium-headless-shell"
	# scripts/apt.sh waits up to 600 s for the package locks; then the download
	timeout 1200 sh scripts/apt.sh update
	timeout 1200 sh scripts/apt.sh install chromium-headless-shell >/dev/null
fi
# the fonts the layout checks measure with (web/css/app.css names them
# first): text widths are then the same on every machine that runs these tests
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
	echo "e2e: installing fonts-dejavu-core"
	timeout 1200 sh scripts/apt.sh update
	timeout 1200 sh scripts/apt.sh install fonts-dejavu-core >/dev/null
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "e2e: installing node"
	timeout 1200 sh scripts/apt.sh update
	timeout 1200 sh scripts/apt.sh install nodejs npm >/dev/null
fi
if [ ! -d tests/e2e/node_modules/playwright-core ]; then
	(cd tests/e2e && timeout 300 npm ci --no-audit --no-fund --loglevel=error)
fi

rm -rf "$ART"
mkdir -p "$ART"
tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	cp "$tmp/server.log" "$ART/server.log" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# the limits per address are off: every page comes from 127.0.0.1, and two
# test files run at once (the limits have their own tests in tests/py)
"$CARC" serve --host 127.0.0.1 --port 0 --db "$tmp/e2e.sqlite" --web web --bot-delay 50 \
	--rate-custom-piles --rated-min-moves 0 --established-games 0 --established-opponents 0 \
	--rate-logins 0 --rate-login-fails 0 \
	--rate-tables 0 --rate-requests 0 --max-open-tables 0 --rate-players 0 --rate-analyses 0 \
	--max-conns-per-addr 0 >"$tmp/server.log" 2>&1 &
server_pid=$!
url=
for _ in $(seq 1 100); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/server.log" | head -n 1 || true)
	[ -n "$url" ] && break
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "e2e: the server did not start:" >&2
	cat "$tmp/server.log" >&2
	exit 1
fi
for _ in $(seq 1 50); do
	curl -sf "$url/api/health" >/dev/null 2>&1 && break
	sleep 0.1
done
echo "e2e: server at $url"

export CARC_URL=$url CARC_BIN=$(realpath "$CARC") E2E_ARTIFACTS=$(realpath "$ART")
# E2E_SCRIPT=screenshots.mjs: a script of tests/e2e run against this server
# instead of the tests (make screenshots)
if [ -n "${E2E_SCRIPT:-}" ]; then
	(cd tests/e2e && timeout 600 node "$E2E_SCRIPT")
	exit $?
fi
set +e
files="./*.test.mjs"
if [ -n "${E2E_TESTS:-}" ]; then files=$(for n in $E2E_TESTS; do printf './%s.test.mjs ' "$n"; done); fi
# shellcheck disable=SC2086
# E2E_CONCURRENCY test files at once (2: most of a browser test's time is
# spent waiting for the page, a bot or a clock)
# the file names are expanded in tests/e2e (the default is a pattern)
run_files() {
	# shellcheck disable=SC2048,SC2086
	(cd tests/e2e && timeout 1200 node --test --test-concurrency="${E2E_CONCURRENCY:-2}" --test-timeout=300000 $*)
}
run_files $files | tee "$tmp/first.tap"
rc=${PIPESTATUS[0]}
# A file with a failed test runs once more, alone (as tests/pysuite.sh does
# for the server tests): a browser test waits for pages, bots and clocks,
# and on a busy machine a rare one is late. Passing then, it counts as
# passed, with a FLAKY line; failing again, it fails. E2E_NO_RETRY=1: no
# second run.
if [ $rc -ne 0 ] && [ -z "${E2E_NO_RETRY:-}" ]; then
	again=$(sed -n "s|^ *location: '.*/tests/e2e/\([A-Za-z0-9_.-]*\.test\.mjs\):[0-9:]*'$|./\1|p" "$tmp/first.tap" | sort -u | tr '\n' ' ')
	p1=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tmp/first.tap" | tail -1)
	f1=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tmp/first.tap" | tail -1)
	if [ -n "$again" ] && [ -n "$p1" ] && [ -n "$f1" ]; then
		echo "e2e: running again: $again"
		# shellcheck disable=SC2086
		run_files $again >"$tmp/again.tap" 2>&1
		rc2=$?
		f2=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tmp/again.tap" | tail -1)
		f2=${f2:-$f1}
		if [ $rc2 -eq 0 ]; then
			echo "FLAKY: $again failed, then passed when run again alone"
			rc=0
		else
			cat "$tmp/again.tap"
		fi
		# the totals over both runs (read by tests/run.sh)
		echo "# pass $((p1 + f1 - f2))"
		echo "# fail $f2"
	fi
fi
set -e
echo "e2e: artifacts in $ART: $(cd "$ART" && ls | tr '\n' ' ')"
exit $rc
