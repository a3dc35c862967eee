package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// blockBytes returns each block of the file as it lies there: inline
// header and (compressed) payload, in file order, with its footer entry.
func blockBytes(t *testing.T, path string) ([][]byte, []mmapio.Block) {
	t.Helper()
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out [][]byte
	blocks := r.Blocks()
	for _, b := range blocks {
		out = append(out, data[b.DataOffset:b.DataOffset+schema.BlockHeaderSize+uint64(b.CompressedSize)])
	}
	return out, blocks
}

// Rank files written with disjoint unit ids (WithUnitIDBase(1+16k), the
// same formats: one program) merge by copying: every block of the output
// is an input's block byte for byte, compressed payload included, in file
// order, none re-encoded. The result reads back as the multi-file dump and
// stats, and the oracle accepts it.
func TestMergeDisjointRanksCopiesBlocks(t *testing.T) {
	w, err := workload.RegisterW1()
	require.NoError(t, err)
	dir := t.TempDir()
	const ranks, units = 4, 16
	// Under the race detector, which watches the merge's workers, not how
	// many blocks they copy, 8,000 events per rank (5 blocks per unit,
	// 320 in all, instead of 16 and 1,056): the runtime writing the
	// ranks, the merges, dumps, stats and the oracle all scale with it.
	// make test's stage 5 runs 30,000 without it.
	events := 30_000
	if raceEnabled {
		events = 8_000
	}
	var paths []string
	for k := range ranks {
		p := filepath.Join(dir, fmt.Sprintf("r%d.ctrace", k))
		tr, err := chronon.Create(p, chronon.WithUnitIDBase(uint16(1+units*k)), chronon.WithBlockSize(4096),
			chronon.WithAutoMetadata(false), chronon.WithMetadata("rank", strconv.Itoa(k)))
		require.NoError(t, err)
		us, err := workload.NewW1Units(tr, units)
		require.NoError(t, err)
		require.Equal(t, uint16(1+units*k), us[0].ID())
		st := workload.NewW1State(uint64(k + 1))
		w.Emit(us, &st, 0, events)
		require.NoError(t, tr.Close())
		paths = append(paths, p)
	}

	out := filepath.Join(dir, "merged.ctrace")
	code, stdout, errOut := runTool(append([]string{"merge", "-o", out}, paths...)...)
	require.Equal(t, 0, code, errOut)

	var want [][]byte
	var wantIdx []mmapio.Block
	for _, p := range paths {
		bs, idx := blockBytes(t, p)
		want = append(want, bs...)
		wantIdx = append(wantIdx, idx...)
	}
	got, gotIdx := blockBytes(t, out)
	require.Contains(t, stdout, fmt.Sprintf("%d blocks (%d copied, 0 renumbered)", len(want), len(want)))
	require.Len(t, got, len(want))
	compressed := 0
	for i := range want {
		require.Equal(t, want[i], got[i], "block %d is not the input's bytes", i)
		require.Equal(t, wantIdx[i].Units, gotIdx[i].Units, "block %d's unit set", i)
		if gotIdx[i].CompressedSize < gotIdx[i].UncompressedSize {
			compressed++
		}
	}
	require.Greater(t, compressed, len(want)/2, "the blocks are zstd frames, copied without re-encoding")

	_, timeline, _ := runTool(append([]string{"dump"}, paths...)...)
	code, back, errOut := runTool("dump", out)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, timeline, back)
	require.Contains(t, back, "rank3/core1.")
	_, stats, _ := runTool(append([]string{"stats"}, paths...)...)
	_, mstats, _ := runTool("stats", out)
	require.Equal(t, stats, mstats)

	// --no-verify copies the same bytes without decoding them first.
	fast := filepath.Join(dir, "fast.ctrace")
	code, stdout, errOut = runTool(append([]string{"merge", "--no-verify", "-o", fast}, paths...)...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, fmt.Sprintf("%d blocks (%d copied, 0 renumbered)", len(want), len(want)))
	fastBlocks, _ := blockBytes(t, fast)
	require.Equal(t, got, fastBlocks)
	_, fastDump, _ := runTool("dump", fast)
	require.Equal(t, timeline, fastDump)

	if _, err := ctracetest.Oracle(); err != nil {
		t.Skipf("!!!!! SKIPPING THE ORACLE CHECK: %v !!!!!", err)
	}
	res, err := ctracetest.RunOracle("check", out)
	require.NoError(t, err)
	require.Contains(t, string(res), fmt.Sprintf("OK events=%d blocks=%d", ranks*events, len(want)))
}
