#!/usr/bin/env bash
# Writes traces with the Go writer in every variant the format must support
# and checks each with the independent conformance oracle; then compares the
# oracle's text with trace_reader's for the same files (sorted: the oracle
# prints in file order, trace_reader in cycle order).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
oracle="$shared/conformance/ctrace_oracle.py"
py=/usr/bin/python3
if [ ! -x bin/tracegen ]; then
	echo "oracle.sh: bin/tracegen is missing: run make build first" >&2
	exit 1
fi
if [ ! -f "$oracle" ]; then
	echo "oracle.sh: $oracle not found: the oracle checks CANNOT RUN" >&2
	exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
check() { # name, tracegen args...
	local name=$1; shift
	if ! bin/tracegen "$@" -o "$out/$name.ctrace" 2>"$out/tracegen.log"; then
		echo "oracle.sh: tracegen $* failed:" >&2
		cat "$out/tracegen.log" >&2
		exit 1
	fi
	printf '%-28s ' "$name"
	if ! $py "$oracle" check "$out/$name.ctrace"; then
		echo "oracle.sh: the oracle rejected $name (tracegen $*)" >&2
		exit 1
	fi
	n=$((n + 1))
}
check w1-compressed-16      --workload w1 --events 200000 --units 16
check w1-raw-16             --workload w1 --events 200000 --units 16 --no-compress
check w1-1-unit             --workload w1 --events 100000 --units 1
check w1-300-units          --workload w1 --events 300000 --units 300
check w1-4k-blocks          --workload w1 --events 100000 --units 16 --block-size 4096
check w1-1m-blocks          --workload w1 --events 300000 --units 4 --block-size 1048576
check w1-level-1            --workload w1 --events 100000 --units 16 --level 1
check w1-level-19           --workload w1 --events 50000 --units 16 --level 19
check w1-zero-events        --workload w1 --events 0 --units 16
check mixed-all-types-16    --workload mixed --events 20000 --units 16
check mixed-300-units-raw   --workload mixed --events 20000 --units 300 --no-compress
check mixed-4k-blocks       --workload mixed --events 5000 --units 3 --block-size 4096
check mixed-1m-blocks       --workload mixed --events 20000 --units 8 --block-size 1048576
# Units and formats registered between blocks until the schema outgrows its
# slots many times: schema frames (empty blocks, docs/format.md) between the
# blocks. The oracle's stream (inline headers, no footer) must print exactly
# what its dump (footer) prints, with no [unknown format].
check pipeline-16           --workload pipeline --events 200000 --units 16
check growing-schema        --workload growing --events 60000 --units 400 --block-size 4096
check growing-schema-raw    --workload growing --events 60000 --units 400 --block-size 4096 --no-compress
for f in growing-schema growing-schema-raw; do
	$py "$oracle" dump "$out/$f.ctrace" >"$out/dump.txt"
	$py "$oracle" stream "$out/$f.ctrace" >"$out/stream.txt"
	if ! cmp -s "$out/dump.txt" "$out/stream.txt" || grep -q '\[unknown format\]' "$out/dump.txt"; then
		echo "oracle.sh: $f: the oracle's stream differs from its dump, or an event has no format" >&2
		diff "$out/dump.txt" "$out/stream.txt" | head -5 >&2
		exit 1
	fi
	echo "stream matches dump         $f ($(wc -l <"$out/stream.txt") lines)"
done
if [ -x bin/trace_reader ]; then
	# merge: several runs (W1 of other seeds, unit counts and layouts, the
	# mixed workload, a file of the original C++ writer) as one file, which
	# the oracle must accept and which must hold exactly the multi-file
	# dump's events.
	bin/tracegen --workload w1 --events 50000 --units 5 --seed 7 --block-size 4096 --level 1 -o "$out/w1-seed7-5u.ctrace" 2>/dev/null
	inputs=("$out/w1-compressed-16.ctrace" "$out/w1-seed7-5u.ctrace" "$out/mixed-all-types-16.ctrace" "$out/w1-raw-16.ctrace" testdata/reference/multiblock.ctrace)
	bin/trace_reader merge -o "$out/merged.ctrace" "${inputs[@]}" >/dev/null
	printf '%-28s ' merged-5-runs
	if ! $py "$oracle" check "$out/merged.ctrace"; then
		echo "oracle.sh: the oracle rejected the output of trace_reader merge" >&2
		exit 1
	fi
	n=$((n + 1))
	$py "$oracle" dump "$out/merged.ctrace" | sort >"$out/oracle.txt"
	bin/trace_reader dump "${inputs[@]}" | sort >"$out/ours.txt"
	if ! cmp -s "$out/oracle.txt" "$out/ours.txt"; then
		echo "oracle.sh: merged: the oracle's dump differs from trace_reader's multi-file dump" >&2
		diff "$out/oracle.txt" "$out/ours.txt" | head -5 >&2
		exit 1
	fi
	echo "merge matches multi-file dump ($(wc -l <"$out/ours.txt") lines)"
	for f in w1-compressed-16 mixed-all-types-16 mixed-300-units-raw growing-schema; do
		$py "$oracle" dump "$out/$f.ctrace" | sort >"$out/oracle.txt"
		bin/trace_reader dump "$out/$f.ctrace" | sort >"$out/ours.txt"
		if ! cmp -s "$out/oracle.txt" "$out/ours.txt"; then
			echo "oracle.sh: $f: trace_reader dump differs from the oracle's" >&2
			diff "$out/oracle.txt" "$out/ours.txt" | head -5 >&2
			exit 1
		fi
		echo "dump matches oracle         $f ($(wc -l <"$out/ours.txt") lines)"
	done
fi
echo "oracle: $n files written by the Go writer accepted"
