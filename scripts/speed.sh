#!/usr/bin/env bash
# speed.sh measures every whole-process speed target of the writer (issue 2),
# the reader (issue 3) and the many-runs commands (issue 13: diff against the
# same events in the original C++ writer's layout, merge of four rank files
# beside a copy of them) on a 20M-event, 16-unit W1 trace, REPS times each,
# and prints min / median / max beside the target. The host this runs on is
# noisy (it alternates between a fast and a slow phase), so runs alternate
# between measurements instead of repeating one back to back, and the median
# is the figure to quote.
#
#   scripts/speed.sh            # REPS=5, trace in $TMPDIR (default /tmp)
#   REPS=9 scripts/speed.sh
#
# It is a measuring tool, not a test: it always exits 0 unless a command
# fails, and prints MISS beside a median that misses its target.
set -euo pipefail

cd "$(dirname "$0")/.."
REPS=${REPS:-5}
EVENTS=${EVENTS:-20000000}
TRACE=${TMPDIR:-/tmp}/chronon-speed-w1.ctrace
BIN=${BIN:-bin}

go build -o "$BIN/" ./cmd/tracegen ./cmd/trace_reader
go test -c -o "$BIN/mmapio.test" ./mmapio
go test -c -o "$BIN/ctracetest.test" ./internal/ctracetest

# The same 20M W1 events in the original writer's layout (one stream, no unit
# sets), for diff; and four 5M-event rank files (other seeds), for merge:
# r?.ctrace with disjoint unit ids (rank k numbers its 16 units from
# 1+16k, tracegen --unit-id-base), which merge copies block for block, and
# c?.ctrace with the same ids 1..16 in every rank, whose blocks after the
# first file's merge decodes, renumbers and re-encodes.
CPP=${TMPDIR:-/tmp}/chronon-speed-w1-cpp.ctrace
RANKS=${TMPDIR:-/tmp}/chronon-speed-ranks
CTRACE_W1_OUT="$CPP" CTRACE_W1_EVENTS="$EVENTS" CTRACE_W1_LAYOUT=cpp \
	"$BIN/ctracetest.test" -test.run GenerateW1Bench >/dev/null
rm -rf "$RANKS" && mkdir -p "$RANKS/copy"
for k in 0 1 2 3; do
	"$BIN/tracegen" --workload w1 --events $((EVENTS / 4)) --units 16 --seed $((k + 1)) \
		--unit-id-base $((1 + 16 * k)) -o "$RANKS/r$k.ctrace" 2>/dev/null
	"$BIN/tracegen" --workload w1 --events $((EVENTS / 4)) --units 16 --seed $((k + 1)) -o "$RANKS/c$k.ctrace" 2>/dev/null
done

have_time=0
[ -x /usr/bin/time ] && have_time=1

# now prints the wall clock in seconds with nanoseconds.
now() { date +%s.%N; }

declare -A samples
record() { samples[$1]+="$2 "; }

for ((r = 1; r <= REPS; r++)); do
	t0=$(now)
	"$BIN/tracegen" --workload w1 --events "$EVENTS" --units 16 -o "$TRACE" 2>/dev/null
	t1=$(now)
	record write_Mev_s "$(awk -v n="$EVENTS" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", n/(b-a)/1e6}')"
	size=$(stat -c %s "$TRACE")
	record write_B_ev "$(awk -v n="$EVENTS" -v s="$size" 'BEGIN{printf "%.3f", s/n}')"

	if [ $have_time = 1 ]; then
		/usr/bin/time -f '%e %M' -o "$TRACE.time" "$BIN/trace_reader" dump "$TRACE" >/dev/null
		read -r wall rss_kb <"$TRACE.time"
		record dump_s "$wall"
		record dump_rss_beyond_map_MiB "$(awk -v k="$rss_kb" -v s="$size" 'BEGIN{printf "%.1f", (k*1024-s)/1048576}')"
	else
		t0=$(now)
		"$BIN/trace_reader" dump "$TRACE" >/dev/null
		t1=$(now)
		record dump_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
	fi

	t0=$(now)
	"$BIN/trace_reader" filter --unit core1.dram "$TRACE" >/dev/null
	t1=$(now)
	record filter_unit_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"

	t0=$(now)
	"$BIN/trace_reader" filter --cycles 9000000-9001000 "$TRACE" >/dev/null
	t1=$(now)
	record filter_cycles_ms "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b-a)*1000}')"

	ev=$(CHRONON_W1_TRACE="$TRACE" "$BIN/mmapio.test" -test.run NONE -test.bench 'IterateW1$' -test.benchtime 1x |
		awk '/BenchmarkIterateW1/ {for (i = 1; i <= NF; i++) if ($(i+1) == "events/s") print $i}')
	record iterate_Mev_s "$(awk -v e="$ev" 'BEGIN{printf "%.2f", e/1e6}')"

	# diff exits 0: the runs hold the same events.
	t0=$(now)
	"$BIN/trace_reader" diff "$TRACE" "$CPP" >/dev/null
	t1=$(now)
	record diff_cpp_layout_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"

	t0=$(now)
	cp "$RANKS"/r?.ctrace "$RANKS/copy/" && sync -f "$RANKS/copy"
	t1=$(now)
	record copy_ranks_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
	t0=$(now)
	"$BIN/trace_reader" merge -o "$RANKS/merged.ctrace" "$RANKS"/r?.ctrace >/dev/null && sync -f "$RANKS"
	t1=$(now)
	record merge_ranks_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
	rm -f "$RANKS/merged.ctrace"
	t0=$(now)
	"$BIN/trace_reader" merge --no-verify -o "$RANKS/merged.ctrace" "$RANKS"/r?.ctrace >/dev/null && sync -f "$RANKS"
	t1=$(now)
	record merge_ranks_noverify_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
	rm -f "$RANKS/merged.ctrace"
	t0=$(now)
	"$BIN/trace_reader" merge -o "$RANKS/merged.ctrace" "$RANKS"/c?.ctrace >/dev/null && sync -f "$RANKS"
	t1=$(now)
	record merge_ranks_clash_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
	rm -f "$RANKS/merged.ctrace" "$RANKS"/copy/*
done
rm -rf "$TRACE" "$TRACE.time" "$CPP" "$RANKS"

# target direction: >= for rates, <= for times and sizes.
printf '%-26s %9s %9s %9s   %s\n' measure min median max target
for m in write_Mev_s:'>=22' write_B_ev:'<=7.9' dump_s:'<=1.7' dump_rss_beyond_map_MiB:'<=64' \
	filter_unit_s:'<=0.15' filter_cycles_ms:'<=20' iterate_Mev_s:'>=30' diff_cpp_layout_s:'<=2' \
	copy_ranks_s:'>=0' merge_ranks_s:'<=0.5' merge_ranks_noverify_s:'<=0.3' merge_ranks_clash_s:'<=1'; do
	name=${m%%:*}
	target=${m#*:}
	[ -n "${samples[$name]:-}" ] || continue
	# shellcheck disable=SC2086
	sorted=$(printf '%s\n' ${samples[$name]} | sort -g)
	n=$(printf '%s\n' "$sorted" | wc -l)
	min=$(printf '%s\n' "$sorted" | head -1)
	max=$(printf '%s\n' "$sorted" | tail -1)
	med=$(printf '%s\n' "$sorted" | sed -n "$(((n + 1) / 2))p")
	verdict=$(awk -v v="$med" -v t="$target" 'BEGIN{
		op = substr(t, 1, 2); x = substr(t, 3) + 0
		ok = (op == ">=") ? (v >= x) : (v <= x)
		print ok ? "ok" : "MISS"}')
	printf '%-26s %9s %9s %9s   %s %s\n' "$name" "$min" "$med" "$max" "$target" "$verdict"
done
