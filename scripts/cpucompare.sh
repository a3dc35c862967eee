#!/usr/bin/env bash
# cpucompare.sh BASE [ROUNDS]: the writer's process CPU per event in the
# working tree against commit BASE, side by side (docs/performance.md,
# "Writer CPU per event"). Builds tracegen at both, then runs, alternately,
# ROUNDS times (default 5):
#
#   tracegen --workload w1       --events $EVENTS --units 16   (base, new)
#   tracegen --workload pipeline --events $EVENTS --units 16   (base, new)
#   $CPP $EVENTS 16 FILE                                       (if CPP is set: the
#       original C++ writer on the same W1 events: a generator linked
#       against it, which scripts/cppwriter.sh builds from a clone of the
#       original into bin/cpp_w1_writer; nothing of the original is
#       committed here)
#
# and prints, per run kind, min / median / max of wall seconds, process CPU
# seconds (user + system, /usr/bin/time) and bytes per event, then the
# ratios of the medians (and, with CPP, the base against C++ too: the
# host runs faster or slower from hour to hour, so a ratio quoted from
# another day is compared with the base/cpp ratio of this run, never its
# seconds). EVENTS defaults to 20000000; EXTRA adds tracegen
# options to both sides (EXTRA='--level 1'). /usr/bin/time counts CPU in
# 10 ms steps: a smaller EVENTS runs faster but its figures are coarse (the
# script says so when a run took under 1 s of CPU).
#
#   scripts/cppwriter.sh CLONE-OF-THE-ORIGINAL   # once: bin/cpp_w1_writer
#   CPP=bin/cpp_w1_writer scripts/cpucompare.sh 3cee8fb 7
set -euo pipefail
base=${1:?usage: scripts/cpucompare.sh BASE-COMMIT [ROUNDS]}
rounds=${2:-5}
EVENTS=${EVENTS:-20000000}
EXTRA=${EXTRA:-}
CPP=${CPP:-}
[ -z "$CPP" ] || [ -x "$CPP" ] || { echo "cpucompare.sh: CPP=$CPP is not an executable (build it with scripts/cppwriter.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "cpucompare.sh: needs /usr/bin/time (Debian: time)" >&2; exit 1; }
# shellcheck source=compare_lib.sh
. "$(dirname "$0")/compare_lib.sh"
compare_setup "$base"
for side in base new; do
	(cd "$(compare_tree "$side")" && go build -o "$tmp/$side.tracegen" ./cmd/tracegen)
done
out=${TMPDIR:-/tmp}/cpucompare.$$
mkdir -p "$out"
trap 'rm -rf "$out"; git -C "$repo" worktree remove --force "$tmp/base-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
# measure KIND SIDE CMD...: one run, its wall, cpu and bytes/event appended
# to the results as "side kind.metric value" lines.
measure() {
	local kind=$1 side=$2
	shift 2
	/usr/bin/time -f '%e %U %S' -o "$out/time" "$@" >/dev/null 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
	read -r wall user sys <"$out/time"
	size=$(stat -c %s "$out/trace")
	{
		echo "$side $kind.wall_s $wall"
		echo "$side $kind.cpu_s $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')"
		echo "$side $kind.cpu_ns_ev $(awk -v u="$user" -v s="$sys" -v n="$EVENTS" 'BEGIN{printf "%.1f", (u+s)*1e9/n}')"
		echo "$side $kind.bytes_ev $(awk -v z="$size" -v n="$EVENTS" 'BEGIN{printf "%.3f", z/n}')"
	} >>"$tmp/results"
	rm -f "$out/trace"
}
for ((r = 1; r <= rounds; r++)); do
	for w in w1 pipeline; do
		for side in base new; do
			# shellcheck disable=SC2086
			measure "$w" "$side" "$tmp/$side.tracegen" --workload "$w" --events "$EVENTS" --units 16 $EXTRA -o "$out/trace"
		done
		if [ "$w" = w1 ] && [ -n "$CPP" ]; then
			measure w1 cpp "$CPP" "$EVENTS" 16 "$out/trace"
		fi
	done
done
echo "$EVENTS events, 16 units, $rounds alternating rounds: min / median / max (base $(git -C "$repo" rev-parse --short "$base"), new = working tree${CPP:+, cpp = $CPP})"
compare_summary "%8.3f"
# Ratios of medians.
sort -k2,2 -k1,1 -k3,3g "$tmp/results" | awk '
	{ k = $1 " " $2; v[k, ++n[k]] = $3 + 0; keys[k] = 1 }
	END {
		for (k in keys) { m = n[k]; med[k] = (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2 }
		for (w = 1; w <= 2; w++) {
			kind = (w == 1) ? "w1" : "pipeline"
			if (("base " kind ".cpu_s") in med)
				printf "%-9s new/base: cpu %.3f  wall %.3f  bytes/event %.3f\n", kind, med["new " kind ".cpu_s"] / med["base " kind ".cpu_s"], med["new " kind ".wall_s"] / med["base " kind ".wall_s"], med["new " kind ".bytes_ev"] / med["base " kind ".bytes_ev"]
			if (("cpp " kind ".cpu_s") in med) {
				printf "%-9s new/cpp:  cpu %.3f  wall %.3f (cpp/new wall %.2fx)  bytes/event %.3f\n", kind, med["new " kind ".cpu_s"] / med["cpp " kind ".cpu_s"], med["new " kind ".wall_s"] / med["cpp " kind ".wall_s"], med["cpp " kind ".wall_s"] / med["new " kind ".wall_s"], med["new " kind ".bytes_ev"] / med["cpp " kind ".bytes_ev"]
				# The base against the C++ writer, in the same run: the speed of the host
				# speed changes from hour to hour, so a ratio quoted from another
				# day (as in an issue) is compared with this one, not its seconds.
				printf "%-9s base/cpp: cpu %.3f  wall %.3f (cpp/base wall %.2fx)  bytes/event %.3f\n", kind, med["base " kind ".cpu_s"] / med["cpp " kind ".cpu_s"], med["base " kind ".wall_s"] / med["cpp " kind ".wall_s"], med["cpp " kind ".wall_s"] / med["base " kind ".wall_s"], med["base " kind ".bytes_ev"] / med["cpp " kind ".bytes_ev"]
			}
		}
	}'
# /usr/bin/time's CPU figures are in 10 ms steps: say so when they are coarse.
awk '$2 ~ /\.cpu_s$/ && $3 < 1 { short = 1 } END { exit !short }' "$tmp/results" &&
	echo "note: some runs took under 1 s of CPU, which /usr/bin/time counts in 10 ms steps: their CPU figures are off by 1% or more (EVENTS=$EVENTS; the documented figures use 20000000)"
exit 0
