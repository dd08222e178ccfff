#!/bin/sh
# Runs libFuzzer targets for a bounded time each, one after the other.
# usage: tests/fuzz.sh FUZZ_DIR CARC_BINARY TARGET:SECONDS...
#   TARGET is record, http or ws: the binary FUZZ_DIR/fuzz_TARGET, with its
#   seed inputs (record: tests/data, tests/fuzz/corpus-record and records
#   written by `carc sim`, of the base game and of Princess & Dragon with
#   its action and dragon steps; http: tests/fuzz/corpus-http; ws:
#   tests/fuzz/corpus-ws).
# Prints one line per target ("fuzz_http: N runs in S s, E exec/s").
# Crashes, leaks, timeouts, running out of memory and sanitizer reports
# fail the run (non-zero exit, after every target has run); the input that
# did it is kept in build/fuzz-artifacts.
set -u
dir=$1; carc=$2; shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for spec in "$@"; do
	name=${spec%%:*}; secs=${spec#*:}
	fuzzer=$dir/fuzz_$name
	w=$work/$name
	mkdir -p "$w/corpus" "$w/tmp"
	case $name in
	record)
		maxlen=65536; extra=
		cp tests/data/*.json tests/fuzz/corpus-record/*.json "$w/corpus/" 2>/dev/null
		# a few real records as seeds, when the command can write them
		if "$carc" sim --games 4 --seed 3 --record "$w/recs" >/dev/null 2>&1; then
			cp "$w"/recs/*.json "$w/corpus/" 2>/dev/null
		fi
		# and games whose turns have steps after the tile (the fairy, the
		# magic portal, the princess, the dragon's squares)
		if "$carc" sim --games 2 --seed 3 --players 3 --expansions princess-dragon \
			--record "$w/pd" >/dev/null 2>&1; then
			for f in "$w"/pd/*.json; do cp "$f" "$w/corpus/pd-$(basename "$f")"; done
		fi ;;
	http|ws)
		# The server keeps its tables from one input to the next, so nearly
		# every input ends with more allocated than before, and libFuzzer's
		# leak check after such an input (a scan of the whole heap) took 3/4
		# of the time: leaks are found by LeakSanitizer at the exit instead
		# (the harness frees the server first), which fails the run too.
		maxlen=16384; extra=-detect_leaks=0
		cp tests/fuzz/corpus-$name/* "$w/corpus/" ;;
	*)
		echo "fuzz: unknown target $name"; failed=1; continue ;;
	esac
	echo "fuzz_$name: $(ls "$w/corpus" | wc -l) seed inputs, $secs s"
	# the server targets keep their database under TMPDIR
	TMPDIR=$w/tmp "$fuzzer" -max_total_time="$secs" -max_len=$maxlen -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 $extra -artifact_prefix="$w/" "$w/corpus" \
		>"$w/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log" | tail -1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$w/log" | tail -1)
	took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$w/log" | tail -1)
	[ -n "$took" ] && [ "$took" -gt 0 ] || took=$secs
	if [ "$rc" -ne 0 ] || grep -qE "ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:" "$w/log"; then
		tail -40 "$w/log"
		echo "--- the findings in the log of fuzz_$name:"
		grep -E "fuzz harness:|ERROR:|SUMMARY|runtime error:" "$w/log" | head -10
		mkdir -p build/fuzz-artifacts
		for a in "$w"/crash-* "$w"/leak-* "$w"/timeout-* "$w"/oom-* "$w"/slow-unit-*; do
			[ -e "$a" ] && cp "$a" "build/fuzz-artifacts/fuzz_$name-$(basename "$a")"
		done
		echo "fuzz_$name: FAILED after ${runs:-?} runs (exit $rc; artifacts in build/fuzz-artifacts)"
		failed=1
		continue
	fi
	resets=$(sed -n 's/^fuzz harness: \([0-9]*\) resets.*/, \1 restart checks/p' "$w/log" | tail -1)
	echo "fuzz_$name: ${runs:-0} runs in $took s, $(( ${runs:-0} / took )) exec/s, peak RSS ${rss:-?} MB$resets"
done
if [ "$failed" -ne 0 ]; then
	echo "fuzz: FAILED"
	exit 1
fi
echo "fuzz: passed"
