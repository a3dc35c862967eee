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
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$tmp/base-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$repo" worktree add --detach "$tmp/base-tree" "$base" >/dev/null 2>&1
(cd "$repo" && go run ./cmd/pipesim -n 20000 -o "$tmp/pipe.ctrace" >/dev/null)
for side in base new; do
	tree=$repo
	[ "$side" = base ] && tree=$tmp/base-tree
	mkdir -p "$tmp/$side"
	cp "$repo/scripts/exportcompare/export_test.go" "$tmp/$side/"
	cp "$tree/go.sum" "$tmp/$side/"
	cat >"$tmp/$side/go.mod" <<MOD
module exportcompare
go 1.24
require github.com/chronon-sim/chronon-go v0.0.0
replace github.com/chronon-sim/chronon-go => $tree
MOD
	(cd "$tmp/$side" && GOFLAGS=-mod=mod go test -c -o "$tmp/$side.test" . >/dev/null)
done
for ((r = 1; r <= rounds; r++)); do
	for side in base new; do
		EXPORTCOMPARE_TRACE=$tmp/pipe.ctrace "$tmp/$side.test" -test.run NONE -test.bench . -test.benchtime 30x |
			awk -v s="$side" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); for (i = 1; i <= NF; i++) if ($(i+1) == "Mevents/s") print s, $1, $i}' >>"$tmp/results"
	done
done
echo "export speed in M events/s over $rounds alternating rounds: min / median / max (base $(git -C "$repo" rev-parse --short "$base"), new = working tree)"
sort -k2,2 -k1,1 -k3,3g "$tmp/results" | awk '
	function flush() { if (n) printf "%-28s %-4s %6.2f / %6.2f / %6.2f\n", key, side, v[1], (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n]; n = 0 }
	{ if ($2 != key || $1 != side) { flush(); key = $2; side = $1 } v[++n] = $3 + 0 }
	END { flush() }'
