# compare_lib.sh: what scripts/emitcompare.sh and scripts/exportcompare.sh
# share. Sourced, not run. Compares a benchmark in the working tree with
# commit BASE on this noisy host: the same public-API benchmark source is
# compiled against both trees (a module that replaces chronon-go by each),
# the two binaries run alternately, and each side's min / median / max is
# printed.
#
#   compare_setup BASE           sets repo and tmp, checks BASE out in $tmp/base-tree
#   compare_build DIR            builds scripts/DIR/*_test.go against both
#                                trees: $tmp/base.pub.test, $tmp/new.pub.test
#   compare_tree SIDE            the tree of side base or new
#   compare_summary FMT          prints $tmp/results ("side benchmark value"
#                                lines) as min / median / max, values in FMT

compare_setup() {
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	tmp=$(mktemp -d)
	trap 'git -C "$repo" worktree remove --force "$tmp/base-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
	git -C "$repo" worktree add --detach "$tmp/base-tree" "$1" >/dev/null 2>&1
}

compare_tree() {
	if [ "$1" = base ]; then echo "$tmp/base-tree"; else echo "$repo"; fi
}

compare_build() {
	local side tree
	for side in base new; do
		tree=$(compare_tree "$side")
		mkdir -p "$tmp/$side"
		cp "$repo"/scripts/"$1"/*_test.go "$tmp/$side/"
		cp "$tree/go.sum" "$tmp/$side/"
		cat >"$tmp/$side/go.mod" <<MOD
module $1
go 1.24
require github.com/chronon-sim/chronon-go v0.0.0
replace github.com/chronon-sim/chronon-go => $tree
MOD
		(cd "$tmp/$side" && GOFLAGS=-mod=mod go test -c -o "$tmp/$side.pub.test" . >/dev/null)
	done
}

compare_summary() {
	sort -k2,2 -k1,1 -k3,3g "$tmp/results" | awk -v fmt="$1" '
		function flush() { if (n) printf "%-28s %-4s " fmt " / " fmt " / " fmt "\n", key, side, v[1], (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n]; n = 0 }
		{ if ($2 != key || $1 != side) { flush(); key = $2; side = $1 } v[++n] = $3 + 0 }
		END { flush() }'
}
