#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME (default 10s) each.
# Crashers the fuzzer finds land in the package's testdata/fuzz/ and then run
# as ordinary tests forever after; commit them.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
status=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
		echo "fuzz $pkg $target ($fuzztime)"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/fuzz.$$.log 2>&1; then
			cat /tmp/fuzz.$$.log
			status=1
		fi
	done
done
rm -f /tmp/fuzz.$$.log
exit $status
