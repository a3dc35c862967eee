#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME (default 10s) each.
# Crashers the fuzzer finds land in the package's testdata/fuzz/ and then run
# as ordinary tests forever after; commit them.
#
# Targets are found by their declarations (a `go test -list` per package
# would build every package's tests once more just to list them) and run
# FUZZJOBS at a time (default 2), each with one fuzzing worker: on a 2-core
# machine that keeps both cores busy through the seconds each target spends
# building, where one target with two workers leaves one core idle then.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
jobs=${FUZZJOBS:-2}
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# run_target PKGDIR TARGET: one target, its output in the log directory,
# exit status 0 or 1.
run_target() {
	local dir=$1 target=$2 log="$logdir/${1//\//_}.$2.log"
	for attempt in 1 2; do
		if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel 1 "$dir" >"$log" 2>&1; then
			echo "fuzz $dir $target ($fuzztime): ok"
			return 0
		fi
		# Go <= 1.26 may fail a target with a bare "context deadline
		# exceeded" when -fuzztime expires while a worker is mid-call
		# (golang/go#75804, fixed in Go 1.27): no input failed, none is
		# written. That, and only that, is retried once, loudly. A real
		# finding writes "Failing input written to ..." and fails.
		if [ $attempt = 1 ] && grep -q 'context deadline exceeded' "$log" &&
			! grep -qE 'Failing input written|panic:|race detected|_test\.go:[0-9]+:' "$log"; then
			echo "fuzz $dir $target: RETRYING: Go's -fuzztime deadline race (golang/go#75804), no failing input"
			continue
		fi
		echo "fuzz $dir $target ($fuzztime): FAILED"
		cat "$log"
		return 1
	done
}

# Every `func FuzzX(f *testing.F)` in a test file outside scratch and vendored
# trees, as "dir target" pairs.
targets=$(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
	grep -vE '^\./(zz_|bin/|node_modules/)' |
	sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(|\1 \2|' | sort -u)
if [ -z "$targets" ]; then
	echo "fuzz: no targets found"
	exit 1
fi
echo "fuzz: $(echo "$targets" | wc -l) targets, $jobs at a time, $fuzztime each"

status=0
running=0
while read -r dir target; do
	if [ $running -ge "$jobs" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
	run_target "$dir" "$target" &
	running=$((running + 1))
done <<<"$targets"
while [ $running -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
exit $status
