#!/usr/bin/env bash
# Exports W1 (small), pipesim, the mixed and the tasks workloads to Perfetto and checks
# each file against the official Perfetto schema with the independent
# checker in $SHARED/perfetto (check_pftrace.py: protoc-generated bindings of
# perfetto_trace.proto; needs protobuf-compiler and python3-protobuf, which
# `make perfetto-check` installs). Any violation fails the script.
# usage: SHARED=../shared scripts/perfetto_check.sh   (or: scripts/perfetto_check.sh SHARED)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-${SHARED:-../shared}}
checker="$shared/perfetto/check_pftrace.py"
py=/usr/bin/python3
if [ ! -f "$checker" ]; then
	echo "perfetto_check.sh: $checker not found: the Perfetto schema checks CANNOT RUN" >&2
	exit 1
fi
for b in tracegen pipesim trace_reader; do
	if [ ! -x "bin/$b" ]; then
		echo "perfetto_check.sh: bin/$b is missing: run make build first" >&2
		exit 1
	fi
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # log, command...: its standard output in the log (export lists its files there); what it says on stderr (warnings) is shown
	local log=$1; shift
	if ! "$@" >"$out/$log" 2>"$out/$log.err"; then
		echo "perfetto_check.sh: $* failed:" >&2
		cat "$out/$log" "$out/$log.err" >&2
		exit 1
	fi
	sed 's/^/    /' "$out/$log.err"
}
run gen.log bin/tracegen --workload w1 --events 200000 --units 16 -o "$out/w1.ctrace"
run gen.log bin/tracegen --workload mixed --events 20000 --units 16 -o "$out/mixed.ctrace"
run gen.log bin/pipesim -n 5000 -o "$out/pipesim.ctrace"
run gen.log bin/tracegen --workload tasks --events 200000 -o "$out/tasks.ctrace"
n=0
# units NAME TRACE: the trace's unit names, one per line, for the checker's
# test that every unit has a track at its dotted path.
units() {
	run info.log bin/trace_reader info -v "$2"
	sed -n '/^Registered Units:/,/^$/s/^  \[[0-9]*\] \([^ ]*\).*/\1/p' "$out/info.log" >"$out/$1.units"
	if [ ! -s "$out/$1.units" ]; then
		echo "perfetto_check.sh: no unit names in trace_reader info -v $2" >&2
		exit 1
	fi
}
check() { # name, trace, units file or "", export args...
	local name=$1 trace=$2 unitfile=$3; shift 3
	run export.log bin/trace_reader export --format perfetto "$@" -o "$out/$name.pftrace" "$trace"
	for f in $(cat "$out/export.log"); do # every file of a split export
		printf '%-24s %s\n' "$name" "$(basename "$f")"
		if ! $py "$checker" "$f" $unitfile >"$out/check.log" 2>&1; then
			cat "$out/check.log" >&2
			echo "perfetto_check.sh: $name ($f) violates the Perfetto schema" >&2
			exit 1
		fi
		grep -E '^(packets|tracks|VIOLATIONS)' "$out/check.log" | sed 's/^/    /'
		n=$((n + 1))
	done
}
for t in w1 mixed pipesim; do units $t "$out/$t.ctrace"; done
check w1 "$out/w1.ctrace" "$out/w1.units"
check mixed "$out/mixed.ctrace" "$out/mixed.units"
check pipesim "$out/pipesim.ctrace" "$out/pipesim.units"
check pipesim-window "$out/pipesim.ctrace" "" --cycles 1000-2000
check pipesim-split "$out/pipesim.ctrace" "$out/pipesim.units" --max-file-size 200000
# Tasks with parents (async spans, one arrow per edge), times in ps; two
# of its units are idle (no track), so no unit list.
check tasks "$out/tasks.ctrace" ""
check tasks-window "$out/tasks.ctrace" "" --cycles 2000000-4000000
check tasks-split "$out/tasks.ctrace" "" --max-file-size 4000000
echo "perfetto-check: $n exported files accepted by the official Perfetto schema checks"
