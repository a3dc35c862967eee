#!/usr/bin/env bash
# The fresh-machine check: a clone of this repository's HEAD, with an empty
# GOPATH and GOCACHE, runs `make deps` and `make demo` (TARGETS overrides
# them: TARGETS="deps test" times the test command cold). What a tool
# installed by hand would hide, this finds: every step the README's two
# commands need must be in the project's own files.
#   scripts/fresh_machine.sh [TARGETS...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
targets=${*:-deps demo}
work=$(mktemp -d -t chronon-fresh.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
git clone -q "$here" "$work/clone"
# ../shared beside the clone, as CI has it, when this checkout has one.
[ -d "$here/../shared" ] && ln -s "$(cd "$here/../shared" && pwd)" "$work/shared"
mkdir "$work/gopath" "$work/gocache" "$work/cache"
# The C API tests' compile cache goes under XDG_CACHE_HOME unless this names one.
unset CHRONON_CC_CACHE
cd "$work/clone"
start=$SECONDS
for t in $targets; do
	echo "== fresh-machine: make $t (GOPATH and GOCACHE empty at the start)"
	t0=$SECONDS
	# XDG_CACHE_HOME: staticcheck keeps its own cache there (~/.cache).
	GOPATH="$work/gopath" GOCACHE="$work/gocache" XDG_CACHE_HOME="$work/cache" GOFLAGS=-modcacherw make "$t"
	echo "== fresh-machine: make $t took $((SECONDS - t0))s"
done
echo "== fresh-machine: $targets passed in $((SECONDS - start))s"
