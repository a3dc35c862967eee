#!/usr/bin/env bash
# emitcompare.sh BASE [ROUNDS]: the emit path's cost in the working tree
# against commit BASE, side by side. Builds scripts/emitcompare (public API,
# 16 emits per iteration) against both trees, and chronon's own test binary
# of both for BenchmarkEmit/u64_bool, then runs them alternately ROUNDS
# times (default 5) and prints each side's min and max per benchmark.
# Sub-nanosecond costs need that: this host has slow and fast phases.
set -euo pipefail
base=${1:?usage: scripts/emitcompare.sh BASE-COMMIT [ROUNDS]}
rounds=${2:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$tmp/base-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$repo" worktree add --detach "$tmp/base-tree" "$base" >/dev/null 2>&1
for side in base new; do
	tree=$repo
	[ "$side" = base ] && tree=$tmp/base-tree
	mkdir -p "$tmp/$side"
	cp "$repo/scripts/emitcompare/emit_test.go" "$tmp/$side/"
	cp "$tree/go.sum" "$tmp/$side/"
	cat >"$tmp/$side/go.mod" <<MOD
module emitcompare
go 1.24
require github.com/chronon-sim/chronon-go v0.0.0
replace github.com/chronon-sim/chronon-go => $tree
MOD
	(cd "$tmp/$side" && GOFLAGS=-mod=mod go test -c -o "$tmp/$side.pub.test" . >/dev/null)
	(cd "$tree" && go test -c -o "$tmp/$side.chronon.test" ./chronon >/dev/null)
done
for ((r = 1; r <= rounds; r++)); do
	for side in base new; do
		{
			"$tmp/$side.pub.test" -test.run NONE -test.bench . -test.benchtime 200ms
			"$tmp/$side.chronon.test" -test.run NONE -test.bench 'Emit$/u64_bool' -test.benchtime 300ms
		} | awk -v s="$side" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); print s, $1, $3}' >>"$tmp/results"
	done
done
echo "emit cost in ns/op over $rounds alternating rounds: min / median / max (base $(git -C "$repo" rev-parse --short "$base"), new = working tree)"
sort -k2,2 -k1,1 -k3,3g "$tmp/results" | awk '
	function flush() { if (n) printf "%-24s %-4s %6.3f / %6.3f / %6.3f\n", key, side, v[1], (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n]; n = 0 }
	{ if ($2 != key || $1 != side) { flush(); key = $2; side = $1 } v[++n] = $3 + 0 }
	END { flush() }'
