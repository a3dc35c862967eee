#!/usr/bin/env bash
# emitcompare.sh BASE [ROUNDS]: the emit path's cost in the working tree
# against commit BASE, side by side. Builds scripts/emitcompare (public API,
# 16 emits per iteration) against both trees, and chronon's own test binary
# of both for BenchmarkEmit/u64_bool, then runs them alternately ROUNDS
# times (default 5) and prints each side's min / median / max per benchmark,
# with BenchmarkEmitFloor (the event's stores alone: the machine's floor
# under the emit at that moment) where the tree has it.
# Sub-nanosecond costs need that: this host has slow and fast phases.
set -euo pipefail
base=${1:?usage: scripts/emitcompare.sh BASE-COMMIT [ROUNDS]}
rounds=${2:-5}
# shellcheck source=compare_lib.sh
. "$(dirname "$0")/compare_lib.sh"
compare_setup "$base"
compare_build emitcompare
for side in base new; do
	(cd "$(compare_tree "$side")" && go test -c -o "$tmp/$side.chronon.test" ./chronon >/dev/null)
done
for ((r = 1; r <= rounds; r++)); do
	for side in base new; do
		{
			"$tmp/$side.pub.test" -test.run NONE -test.bench . -test.benchtime 200ms
			"$tmp/$side.chronon.test" -test.run NONE -test.bench 'Emit$/u64_bool' -test.benchtime 300ms
			# The same event's stores with no check or call (a tree without
			# BenchmarkEmitFloor prints nothing for it).
			"$tmp/$side.chronon.test" -test.run NONE -test.bench '^BenchmarkEmitFloor$' -test.benchtime 300ms
		} | awk -v s="$side" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); print s, $1, $3}' >>"$tmp/results"
	done
done
echo "emit cost in ns/op over $rounds alternating rounds: min / median / max (base $(git -C "$repo" rev-parse --short "$base"), new = working tree)"
compare_summary "%6.3f"
