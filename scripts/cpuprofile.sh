#!/usr/bin/env bash
# cpuprofile.sh WORKLOAD [EVENTS] [UNITS]: where the process's CPU goes when
# tracegen writes WORKLOAD (w1, pipeline, mixed, ...), per stage of the
# writer: the emit, the ring hand-off (chunk seals, the collector, channels,
# waits and wakeups), compression, writing the file, fsync, and what is
# neither (the workload's own work, GC, the scheduler's idle spinning).
# docs/performance.md ("Writer CPU per event") quotes it.
#
#   scripts/cpuprofile.sh w1                 # 20M events, 16 units, this tree
#   TRACEGEN=/tmp/base/tracegen scripts/cpuprofile.sh pipeline 20000000
#   BASE=3cee8fb scripts/cpuprofile.sh pipeline   # before (BASE) and after (this tree)
#
# It runs tracegen REPS times (default 3) with --cpuprofile, merges the
# profiles (pprof samples every thread's user and system time at 100 Hz)
# and puts each sample in the first stage, in the order below, that one of
# its stack's frames belongs to. It also prints the runs' user and system
# time from /usr/bin/time, for the total the samples should come near.
set -euo pipefail
cd "$(dirname "$0")/.."
workload=${1:?usage: scripts/cpuprofile.sh WORKLOAD [EVENTS] [UNITS]}
events=${2:-20000000}
units=${3:-16}
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${BASE:-}" ]; then
	# Before and after in one command: tracegen at BASE (a detached
	# worktree, removed at exit) profiled first, then this tree's.
	git worktree add --detach "$tmp/base-tree" "$BASE" >/dev/null 2>&1
	trap 'git worktree remove --force "$tmp/base-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
	(cd "$tmp/base-tree" && go build -o "$tmp/base.tracegen" ./cmd/tracegen)
	go build -o "$tmp/new.tracegen" ./cmd/tracegen
	echo "before: $(git rev-parse --short "$BASE")"
	TRACEGEN=$tmp/base.tracegen BASE= "$0" "$@"
	echo
	echo "after: this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ', modified'))"
	TRACEGEN=$tmp/new.tracegen BASE= "$0" "$@"
	exit 0
fi
tracegen=${TRACEGEN:-}
if [ -z "$tracegen" ]; then
	go build -o "$tmp/tracegen" ./cmd/tracegen
	tracegen=$tmp/tracegen
fi
profiles=()
user=0 sys=0
for ((r = 1; r <= reps; r++)); do
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$tracegen" --workload "$workload" --events "$events" --units "$units" \
		--cpuprofile "$tmp/cpu$r.prof" -o "$tmp/trace.ctrace" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
	read -r u s <"$tmp/time"
	user=$(awk -v a="$user" -v b="$u" 'BEGIN{print a+b}')
	sys=$(awk -v a="$sys" -v b="$s" 'BEGIN{print a+b}')
	profiles+=("$tmp/cpu$r.prof")
	size=$(stat -c %s "$tmp/trace.ctrace")
done
go tool pprof -proto "${profiles[@]}" >"$tmp/merged.prof" 2>/dev/null
go tool pprof -traces "$tracegen" "$tmp/merged.prof" 2>/dev/null | awk -v n="$events" -v reps="$reps" \
	-v user="$user" -v sys="$sys" -v size="$size" -v w="$workload" -v units="$units" '
function ms(v) { # "10ms", "1.20s", "950us" -> milliseconds
	if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
	if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
	if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1000
	return v + 0
}
function stage(st,    i) {
	split("fsync write handoff compression emit simulator gc scheduler", order, " ")
	for (i = 1; i <= 8; i++) if (st ~ pat[order[i]]) return order[i]
	return "other"
}
function flush() { if (cur != "") { t[stage(cur)] += val; total += val }; cur = ""; val = 0 }
BEGIN {
	pat["fsync"] = "startSyncer|\\(\\*fileWriter\\)\\.sync|os\\.\\(\\*File\\)\\.Sync"
	pat["write"] = "\\(\\*fileWriter\\)\\.|writeVecAt|\\(\\*Tracer\\)\\.(finishFile|writeLoop|writeResult|queueBlock|flushBlocks|serveBarriers)"
	pat["handoff"] = "runtime\\.(chansend|chanrecv|selectgo|gopark|goready|ready|wakep|notewakeup|futexwakeup)|chronon\\.\\(\\*Unit\\)\\.(reserve|seal|acquire|wait|release|Flush)|chronon\\.\\(\\*Tracer\\)\\.(collect|dispatch|wakeCollector|sealAll|activate)|\\(\\*Timer\\)|runtime\\.(resetTimer|stopTimer)"
	pat["compression"] = "internal/zrec\\.|\\(\\*Tracer\\)\\.(encodeJob|compressLoop)|klauspost/compress|chronon\\.scanBlock|\\(\\*blockEncoder\\)"
	pat["emit"] = "chronon\\.\\(\\*Format|chronon\\.\\(\\*Span\\)|chronon\\.\\(\\*(Float)?Counter\\)|chronon\\.\\(\\*Unit\\)\\.(putHeader|rejected)"
	pat["simulator"] = "internal/workload\\.|internal/pipesim\\.|^main\\."
	pat["gc"] = "runtime\\.(gcBgMarkWorker|gcDrain|markroot|scanobject|bgsweep|bgscavenge|mallocgc|gcAssist|sweepone|gcStart|gcMark)"
	pat["scheduler"] = "runtime\\.(mcall|schedule|findRunnable|park_m|stopm|futex|notesleep|runqsteal|sysmon|usleep|osyield|netpoll|mstart|goexit|asyncPreempt)"
	desc["fsync"] = "fsync (background writeback, Close)"
	desc["write"] = "write (pwritev, schema, footer, block order)"
	desc["handoff"] = "ring hand-off (seal, collector, channels, wakeups)"
	desc["compression"] = "compression (zstd, checksum)"
	desc["emit"] = "emit (the Emit calls)"
	desc["simulator"] = "the workload itself (PRNG, loop)"
	desc["gc"] = "GC and allocation"
	desc["scheduler"] = "scheduler (idle spinning, preemption)"
	desc["other"] = "other"
}
/^-----------\+/ { flush(); next }
/^ +[0-9.]+(ms|us|s) +/ && cur == "" { val = ms($1); cur = " " $2; next }
cur != "" { cur = cur " " $1 }
END {
	flush()
	printf "%s, %d events, %d units, %d runs merged: %.0f ms of samples per run; /usr/bin/time: user %.2f s + sys %.2f s per run; %.3f bytes/event\n",
		w, n, units, reps, total / reps, user / reps, sys / reps, size / n
	printf "%-52s %9s %7s %9s\n", "stage", "ms/run", "share", "ns/event"
	split("emit handoff compression write fsync simulator gc scheduler other", out, " ")
	for (i = 1; i <= 9; i++) {
		s = out[i]
		printf "%-52s %9.1f %6.1f%% %9.2f\n", desc[s], t[s] / reps, 100 * t[s] / total, t[s] / reps * 1e6 / n
	}
	printf "%-52s %9.1f %6.1f%% %9.2f\n", "total (samples)", total / reps, 100, total / reps * 1e6 / n
	printf "%-52s %9.1f %7s %9.2f\n", "process CPU (user + sys, /usr/bin/time)", (user + sys) / reps * 1000, "", (user + sys) / reps * 1e9 / n
}'
