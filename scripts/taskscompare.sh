#!/usr/bin/env bash
# taskscompare.sh [ROUNDS] [EVENTS]: the figures of issue 22 on the stand-in
# with Akita's shape (internal/workload/tasksim.go, 150 components, tasks
# with parents, picoseconds, hooks called from several goroutines):
#
#   tasks-lanes  what an adapter had to write before: lane spans with the
#                task's id, parent and strings, lanes it allocates itself
#                (an id -> (unit, lane) map under a mutex), the root task's
#                id as the flow, a ps_per_cycle metadata nothing reads
#   tasks        async spans by id with parent ids, kinds/names/locations
#                interned, a picosecond time base, shared units
#                (chronon.WithShared)
#   tasks-mutex  the same on ordinary units with a mutex each (what the
#                adapter did before shared units)
#   tasks-none   the same simulation, tracing nothing (the baseline)
#
# The simulation has memory of its own shaped like Akita's scenario (34 MB
# RSS untraced): a live heap and garbage for every hook event (tracegen's
# --sim-heap and --sim-garbage, defaults workload.AkitaMemory; SIM="..."
# passes other values, SIM="--sim-heap 0 --sim-garbage 0" the bare engine
# of before). RSS over the baseline is then what the tracer costs in a
# simulation whose garbage collector has work to do.
#
# Runs each ROUNDS times (default 5) alternately, EVENTS hook events
# (default 2860000), under /usr/bin/time; prints per variant min / median /
# max of the CPU (user+sys) per event over the baseline's, the peak RSS
# over the baseline's (MiB, and as a ratio), and the file's bytes per event; then exports both
# traces to Perfetto (the lanes one also with the trace_reader of commit
# BASE, default main: today's exporter), checks each against the official
# schema checker, and prints the tracks of the busiest unit and the share
# of child tasks whose arrow reaches their parent (scripts/pftrace_tasks.py).
set -euo pipefail
rounds=${1:-5}
events=${2:-2860000}
base=${BASE:-main}
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$repo/../shared}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$tmp/base-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
(cd "$repo" && go build -o "$tmp/tracegen" ./cmd/tracegen && go build -o "$tmp/trace_reader" ./cmd/trace_reader)
git -C "$repo" worktree add --detach "$tmp/base-tree" "$base" >/dev/null 2>&1
(cd "$tmp/base-tree" && go build -o "$tmp/trace_reader.base" ./cmd/trace_reader)
for ((r = 1; r <= rounds; r++)); do
	for w in tasks-none tasks-lanes tasks-mutex tasks; do
		/usr/bin/time -f "%U %S %M" -o "$tmp/time" "$tmp/tracegen" --workload "$w" --events "$events" ${SIM:-} -o "$tmp/$w.ctrace" 2>"$tmp/gen.log"
		written=$(sed -n 's/.*(\([0-9]*\) written).*/\1/p' "$tmp/gen.log")
		bytes=$(stat -c %s "$tmp/$w.ctrace")
		read -r u s rss <"$tmp/time"
		echo "$w $u $s $rss ${written:-0} $bytes" >>"$tmp/results"
	done
done
echo "taskscompare: $rounds rounds, $events hook events aimed at, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
awk '
function sortv(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t } }
{ w = $1; n[w]++; cpu[w, n[w]] = $2 + $3; rss[w, n[w]] = $4; ev[w] = $5; by[w] = $6 }
END {
	for (i = 1; i <= n["tasks-none"]; i++) { c[i] = cpu["tasks-none", i]; m[i] = rss["tasks-none", i] }
	k = n["tasks-none"]; sortv(c, k); sortv(m, k)
	base_cpu = c[int((k + 1) / 2)]; base_rss = m[int((k + 1) / 2)]
	printf "baseline (tasks-none): CPU %.2f s, peak RSS %d KiB (medians)\n", base_cpu, base_rss
	printf "%-12s %30s %30s %22s %10s\n", "variant", "CPU ns/event over baseline", "RSS MiB over baseline", "RSS / baseline", "bytes/ev"
	split("tasks-lanes tasks-mutex tasks", ws, " ")
	for (x = 1; x <= 3; x++) {
		w = ws[x]; k = n[w]
		for (i = 1; i <= k; i++) { c[i] = (cpu[w, i] - base_cpu) * 1e9 / ev[w]; m[i] = (rss[w, i] - base_rss) / 1024; q[i] = rss[w, i] / base_rss }
		sortv(c, k); sortv(m, k); sortv(q, k)
		printf "%-12s %9.0f / %6.0f / %6.0f      %8.1f / %6.1f / %6.1f    %4.2f / %4.2f / %4.2f %8.2f\n", w, c[1], c[int((k + 1) / 2)], c[k], m[1], m[int((k + 1) / 2)], m[k], q[1], q[int((k + 1) / 2)], q[k], by[w] / ev[w]
	}
}' "$tmp/results"
"$tmp/trace_reader.base" export --format perfetto "$tmp/tasks-lanes.ctrace" -o "$tmp/lanes.base.pftrace" >/dev/null
"$tmp/trace_reader" export --format perfetto "$tmp/tasks-lanes.ctrace" -o "$tmp/lanes.pftrace" >/dev/null
"$tmp/trace_reader" export --format perfetto "$tmp/tasks.ctrace" -o "$tmp/tasks.pftrace" >/dev/null
if cmp -s "$tmp/lanes.base.pftrace" "$tmp/lanes.pftrace"; then
	echo "the lanes trace exports byte for byte as with $base's trace_reader"
else
	echo "the lanes trace exports differently from $base's trace_reader"
fi
for f in lanes.base tasks; do
	"$py" "$shared/perfetto/check_pftrace.py" "$tmp/$f.pftrace" | grep -E '^VIOLATIONS' | sed "s/^/$f: /"
	"$py" "$repo/scripts/pftrace_tasks.py" "$tmp/$f.pftrace"
done
