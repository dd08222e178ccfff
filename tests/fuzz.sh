#!/bin/sh
# Runs the libFuzzer target for the record reader for a bounded time.
# usage: tests/fuzz.sh SECONDS FUZZER_BINARY CARC_BINARY
# Crashes, leaks and sanitizer reports fail the run (non-zero exit).
set -e
secs=${1:-60}; fuzzer=$2; carc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
cp tests/data/*.json "$work/corpus/" 2>/dev/null || true
# a few real records as seeds, when the command can write them
if "$carc" sim --games 4 --seed 3 --record "$work/recs" >/dev/null 2>&1; then
	cp "$work"/recs/*.json "$work/corpus/" 2>/dev/null || true
fi
echo "fuzz: $(ls "$work/corpus" | wc -l) seed inputs, $secs s"
"$fuzzer" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" 2>"$work/log" || {
	tail -40 "$work/log"
	mkdir -p build/fuzz-artifacts && cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* build/fuzz-artifacts/ 2>/dev/null || true
	echo "fuzz: FAILED (artifacts in build/fuzz-artifacts)"
	exit 1
}
grep -E "stat::number_of_executed_units|Done" "$work/log" | head -3
echo "fuzz: passed"
