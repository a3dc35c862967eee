#!/usr/bin/env bash
# make test: every check of the project, one line per stage, and a summary.
# The stages: vet, staticcheck, cross builds (macOS, Windows), every test under the race detector (package
# by package as they finish; the C API's tests beside them without it, one by one), the memory
# and allocation bounds again without it (its shadow memory would swamp them),
# and a short run of every fuzz target. FUZZTIME sets the fuzz time per target.
# GORACE atexit_sleep_ms=0: a binary built with -race sleeps a second as it
# exits by default (to let racing goroutines report); 38 test binaries and
# every child process the tests start paid it.
export GORACE="${GORACE:+$GORACE }atexit_sleep_ms=0"
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PY=${PY:-/usr/bin/python3}
STATICCHECK=${STATICCHECK:-bin/tools/staticcheck-v0.8.2/staticcheck}  # make test passes the pinned one
# -trimpath: without it the build cache keys every package by the directory
# it sits in, so a fresh clone (as CI makes for each run) recompiled every
# package of the project and of the module cache, plain, with -race and for
# fuzzing, whatever the cache held. With it a package compiled once is found
# again from any clone; only packages whose cgo flags name their own
# directory (${SRCDIR}) are rebuilt.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
failed=()
start=$SECONDS
stage() { echo; echo "==> $* [$((SECONDS - start))s]"; }

stage "1/6 go vet ./... and gofmt"
$GO vet ./... || failed+=(vet)
unformatted=$(gofmt -l $($GO list -f '{{.Dir}}' ./...))
[ -z "$unformatted" ] || { echo "  gofmt -l: not formatted: $unformatted"; failed+=(gofmt); }

stage "2/6 staticcheck ./..."
if [ -x "$STATICCHECK" ]; then
	"$STATICCHECK" ./... && echo "  staticcheck: no findings" || failed+=(staticcheck)
else
	echo "  STATICCHECK MISSING ($STATICCHECK): run make deps"; failed+=(staticcheck)
fi

stage "3/6 builds: every command for this machine (the tests below run these), and for macOS and Windows (no cgo) with every package vetted there"
testbin=$(mktemp -d) cgolog=$(mktemp)
trap 'rm -rf "$cgolog" "$testbin"' EXIT
$GO build -o "$testbin/" ./cmd/... && export CHRONON_TEST_BIN=$testbin || failed+=(build)
make -s cross GO="$GO" || failed+=(cross)

# -vet=off below: stage 1 vetted every package, tests included.
stage "4/6 go test -race ./... (per package as it finishes; the C API's tests alongside, one by one)"
# cgo/'s tests build libchronon and run C and C++ programs in subprocesses:
# the race detector would instrument only the harness that reads their
# files (the library is built without it), so they run without -race,
# beside the race run; ThreadSanitizer watches the C side (TestThreadsTSan).
$GO test -vet=off -count=1 -timeout 15m -json ./cgo >"$cgolog" 2>&1 &
cgopid=$!
# The packages whose tests take longest first (go test starts them in the
# order given, two at a time): one of them started last kept a core busy
# alone for minutes at the end.
heavy="./tracesql ./cmd/trace_reader ./mmapio ./chronon ./export ./rewrite"
$GO test -vet=off -race -count=1 -timeout 15m -json $($GO list $heavy ./... | grep -v '/cgo$') | $PY scripts/gotest_summary.py || failed+=(go-test)
wait $cgopid
echo "  the C API (./cgo, no -race: its subjects are C programs):"
$PY scripts/gotest_summary.py --verbose=/cgo <"$cgolog" || failed+=(go-test-cgo)

# The race detector's shadow memory and allocations would swamp the memory
# and allocation bounds, so under -race they check less (or, for
# allocations, nothing); and tests whose cost is the size of a randomized
# campaign or input run smaller under -race (their package's raceEnabled).
# Here both run as users build, at full size. Every test that reads
# raceEnabled to shrink is named below, by package (docs/testing.md).
full=(
	"./chronon TestIdleUnitsCostNoRing TestGateSetMaskFromAnotherGoroutine TestRandomWorkloadsRoundTrip TestConcurrentProducers TestSharedUnitManyGoroutines TestOracleAcceptsVariants TestSharedUnitMaskRaceCountsAddUp"
	"./rewrite TestMergeRewriteAllocations TestMergeFailingWriterStopsThePipeline"
	"./mmapio TestQueryStateIsBoundedBySegments TestWindowedDumpPeakRSS TestTruncationEveryLength TestSpilledWriterFileDecodesAtMostTwice TestMemoryBudgetWindows TestMemoryBudgetWindowsInsideCycles TestSpilledInsideCycles TestRoundTripRandom TestCloseDuringWindows TestSpilledMerge TestSpilledBadBlock TestSpillFallsBackToWindows TestCloseDuringSpill TestRunCheckpoints TestFooterUnitsCheckedInWindows TestSpilledLiveHeapWithinBudget"
	"./internal/zrec TestMatchAsmMatchesGo TestHostileInputsRoundTrip"
	"./internal/zdec TestDecodeVerifiesContentChecksum"
	"./internal/workload TestTaskWorkloads TestTaskSimMemory"
	"./export TestRunsKanata"
	"./tracesql TestScanHeapStaysInBudget TestOpenSpansKeepTheBudget TestPushdownAnswersAsAFullScan TestTablesMatchMmapio TestExportParquet TestAsyncSpans TestSpansWindowKeepsOpenSpans TestParallelSpansEqualSerial TestTimeColumn TestSpansTime TestSpansParentID TestDatasetDamagedFile"
	"./cmd/trace_reader TestMemoryBoundDumpRSS TestDiffMemoryBoundRSS TestBitFlipCampaign TestDiffScalesWithUnits TestMergeDisjointRanksCopiesBlocks TestKanataOfSeveralRuns TestProgressOnTerminal TestDiffMemoryAlternatesWithinBudget TestFollowGrowingDamagedFileMatchesDump"
)
fullpkgs=() fullnames=()
for line in "${full[@]}"; do
	read -r pkg names <<<"$line"
	fullpkgs+=("$pkg")
	fullnames+=($names)
done
fullrun="^($(IFS='|'; echo "${fullnames[*]}"))\$"
stage "5/6 memory and allocation bounds, and the tests that run smaller under the race detector at full size, without it (${#fullnames[@]} tests)"
$GO test -vet=off -count=1 -timeout 10m -json -run "$fullrun" "${fullpkgs[@]}" | $PY scripts/gotest_summary.py || failed+=(full-size)

stage "6/6 fuzz targets, ${FUZZTIME:-10s} each"
FUZZTIME=${FUZZTIME:-10s} scripts/fuzz.sh || failed+=(fuzz)

echo
if [ ${#failed[@]} -eq 0 ]; then
	echo "make test: all 6 stages passed in $((SECONDS - start))s"
else
	echo "make test: FAILED stages: ${failed[*]} ($((SECONDS - start))s)"
	exit 1
fi
