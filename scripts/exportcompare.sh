#!/usr/bin/env bash
# exportcompare.sh BASE [ROUNDS]: the Kanata and Perfetto exports of a
# 20,000-instruction pipesim trace in the working tree against commit BASE,
# side by side. Builds scripts/exportcompare (public API, each export to a
# new file) against both trees, runs them alternately ROUNDS times
# (default 5, 30 exports each) and prints each side's min / median / max
# in M events/s: this host has slow and fast phases.
set -euo pipefail
base=${1:?usage: scripts/exportcompare.sh BASE-COMMIT [ROUNDS]}
rounds=${2:-5}
# shellcheck source=compare_lib.sh
. "$(dirname "$0")/compare_lib.sh"
compare_setup "$base"
(cd "$repo" && go run ./cmd/pipesim -n 20000 -o "$tmp/pipe.ctrace" >/dev/null)
compare_build exportcompare
for ((r = 1; r <= rounds; r++)); do
	for side in base new; do
		EXPORTCOMPARE_TRACE=$tmp/pipe.ctrace "$tmp/$side.pub.test" -test.run NONE -test.bench . -test.benchtime 30x |
			awk -v s="$side" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); for (i = 1; i <= NF; i++) if ($(i+1) == "Mevents/s") print s, $1, $i}' >>"$tmp/results"
	done
done
echo "export speed in M events/s over $rounds alternating rounds: min / median / max (base $(git -C "$repo" rev-parse --short "$base"), new = working tree)"
compare_summary "%6.2f"
