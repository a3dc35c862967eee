package mmapio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// Open keeps no per-block copy of the footer: what stays on the heap grows
// by the seek index alone (byMin, prefMax: 12 bytes per block), not by the
// 64-byte entries and unit lists a decoded footer costs, and what it
// allocates on the way adds only the transient sort keys (24 bytes per
// block). This is what keeps a dump of a multi-gigabyte trace within its
// memory bound.
func TestOpenKeepsNoPerBlockCopy(t *testing.T) {
	evs := ctracetest.W1Events(600000, 16, 1)
	b, lay, err := ctracetest.BuildLayout(ctracetest.W1Schema(16), evs, ctracetest.Options{BlockSize: 4096, PerUnit: true})
	require.NoError(t, err)
	n := len(lay.Blocks)
	require.Greater(t, n, 4500)

	var before, opened, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := OpenBytes("many-blocks", b)
	runtime.ReadMemStats(&opened)
	require.NoError(t, err)
	defer r.Close()
	runtime.GC()
	runtime.ReadMemStats(&kept)
	alloc := int(opened.TotalAlloc - before.TotalAlloc)
	retained := int(kept.HeapAlloc) - int(before.HeapAlloc)
	t.Logf("Open: %d bytes allocated, %d retained, for %d blocks", alloc, retained, n)
	const fixed = 32 << 10 // header, schema, formats, unit names
	require.Less(t, retained, fixed+16*n, "retained per block: %.1f bytes", float64(retained)/float64(n))
	require.Less(t, alloc, fixed+40*n, "allocated per block: %.1f bytes", float64(alloc)/float64(n))
	runtime.KeepAlive(r)

	// The entries read in place are the ones the writer wrote.
	require.Equal(t, n, r.NumBlocks())
	got := r.Blocks()
	require.Len(t, got, n)
	for i := range got {
		want := lay.Blocks[i]
		want.Index = uint32(i)
		require.Equal(t, want, got[i], "block %d", i)
	}
	require.Same(t, &got[0], &r.Blocks()[0], "decoded once")
	require.Equal(t, got, r.Footer().Blocks)

	// Queries over the in-place index still find exactly their events.
	w := &workload{s: ctracetest.W1Schema(16), events: evs, layout: lay}
	ids := r.UnitsNamed("core0.l2")
	require.Len(t, ids, 1)
	checkQuery(t, w, r, randomQuery{q: Query{}.WithUnits(ids...), match: func(e *ctracetest.Event) bool { return e.SourceID == ids[0] }, desc: "unit"})
	a, z := evs[323456].Cycle, evs[323456].Cycle+500
	checkQuery(t, w, r, randomQuery{q: Query{}.WithCycles(a, z).WithUnits(ids...),
		match: func(e *ctracetest.Event) bool { return e.SourceID == ids[0] && e.Cycle >= a && e.Cycle <= z }, desc: "window and unit"})
}

// A query keeps decode state only for the blocks of the segments it has
// built and not consumed, not for every block it plans.
func TestQueryStateIsBoundedBySegments(t *testing.T) {
	n, blockSize := 600000, 4096
	if raceEnabled {
		// The same plan of thousands of blocks from a quarter of the
		// events (stage 5 runs the full size without the race detector).
		n, blockSize = 150000, 1024
	}
	evs := ctracetest.W1Events(n, 16, 1)
	b, _, err := ctracetest.BuildLayout(ctracetest.W1Schema(16), evs, ctracetest.Options{BlockSize: blockSize, PerUnit: true, Compress: true})
	require.NoError(t, err)
	r := openBytesT(t, b, withSegmentBytes(16<<10))
	it := r.Iter(Query{})
	defer it.Close()
	sp := it.sp // the iterator lets go of it at the end
	require.Greater(t, len(sp.plan), 4500)
	got, most := 0, 0
	for it.Next() {
		if got++; got%1000 == 0 {
			sp.mu.Lock()
			most = max(most, len(sp.states))
			sp.mu.Unlock()
		}
	}
	require.NoError(t, it.Err())
	require.Equal(t, len(evs), got)
	t.Logf("at most %d block states for a plan of %d blocks", most, len(sp.plan))
	require.Positive(t, most)
	require.Less(t, most, 200)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	require.Empty(t, sp.states, "the end of the iteration releases every block")
}

// The footer's index is read in place from the mapping, so nothing may
// read it once Close has unmapped the file: queries, Blocks and Footer
// after Close (and a Close racing an iteration) end cleanly instead of
// faulting on unmapped memory.
func TestMappedIndexAfterClose(t *testing.T) {
	evs := ctracetest.W1Events(30000, 16, 1)
	b, _, err := ctracetest.BuildLayout(ctracetest.W1Schema(16), evs, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "w1.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))

	// Blocks decoded before Close stay available; the rest is gone.
	r, err := Open(path, withSegmentBytes(16<<10))
	require.NoError(t, err)
	n := r.NumBlocks()
	blocks := r.Blocks()
	require.Len(t, blocks, n)
	it := r.Iter(Query{})
	require.True(t, it.Next())
	require.NoError(t, r.Close())
	require.False(t, it.Next())
	require.ErrorIs(t, it.Err(), ErrClosed)
	require.Equal(t, blocks, r.Blocks())
	require.Equal(t, n, r.NumBlocks())

	r2, err := Open(path, withSegmentBytes(16<<10))
	require.NoError(t, err)
	require.NoError(t, r2.Close())
	require.Nil(t, r2.Blocks(), "nothing decoded before Close")
	require.NotNil(t, r2.Footer())
	require.Nil(t, r2.Footer().Blocks)
	for range r2.Events(Query{}.WithCycles(evs[100].Cycle, evs[200].Cycle)) {
		t.Fatal("a closed Reader yields no events")
	}
	require.ErrorIs(t, r2.Err(), ErrClosed)
	_, err = writeDump(r2, io.Discard, Query{}.WithUnits(3), 0)
	require.ErrorIs(t, err, ErrClosed)

	// Queries started while another goroutine closes the Reader: each gets
	// its pipeline or ErrClosed, and Close waits for the workers it
	// started (run with -race). Reading events while Close runs is outside
	// the contract (Close must not race with the use of what the Reader
	// returned), so these iterations are only started and closed.
	for range 50 {
		r3, err := Open(path, withSegmentBytes(8<<10))
		require.NoError(t, err)
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := Query{}
				if g == 1 {
					q = q.WithUnits(2)
				}
				it := r3.Iter(q)
				if err := it.Err(); err != nil {
					require.ErrorIs(t, err, ErrClosed)
				}
				it.Close()
				_, err := writeDump(r3, io.Discard, Query{}.WithCycles(evs[0].Cycle, evs[0].Cycle), 1)
				if err != nil {
					require.ErrorIs(t, err, ErrClosed)
				}
			}()
		}
		require.NoError(t, r3.Close())
		wg.Wait()
	}
}

// A footer that is structurally broken anywhere is reported as such, even
// when an earlier entry is also implausible: Open checks the entries while
// it verifies the footer, but reports an implausible entry only once the
// whole footer has verified (the order a full decode gave).
func TestFooterStructuralErrorsComeFirst(t *testing.T) {
	evs := ctracetest.W1Events(50, 2, 1)
	var data []byte
	for _, e := range evs {
		data = schema.AppendEvent(data, e.Record, e.Args)
	}
	lo, hi := evs[0].Cycle, evs[49].Cycle
	bh := schema.BlockHeader{EventCount: 50, MinCycle: lo, MaxCycle: hi, UncompressedSize: uint32(len(data)), CompressedSize: uint32(len(data))}
	sch := schema.BuildSchema(flatbuffers.NewBuilder(0), ctracetest.W1Schema(2))
	h := schema.NewHeader(schema.FlagHasSchema | schema.FlagHasIndex)
	h.SchemaOffset, h.SchemaSize = schema.HeaderSize, uint64(len(sch))
	h.FirstBlockOffset = h.SchemaOffset + h.SchemaSize
	file := append(schema.AppendHeader(nil, h), sch...)
	file = schema.AppendBlockHeader(file, bh)
	file = append(file, data...)
	good := schema.BlockIndex{EventCount: 50, MinCycle: lo, MaxCycle: hi, UncompressedSize: bh.UncompressedSize, CompressedSize: bh.CompressedSize, DataOffset: h.FirstBlockOffset}
	bad := good
	bad.EventCount = 0 // implausible
	foot := schema.BuildFooter(flatbuffers.NewBuilder(0), &schema.Footer{Blocks: []schema.BlockIndex{bad, good, good},
		UnitStats: []schema.UnitStat{{UnitID: 1, Emitted: 5}, {UnitID: 2, Emitted: 7}}})
	h.FooterOffset, h.FooterSize = uint64(len(file)), uint64(len(foot))
	file = append(file, foot...)
	copy(file, schema.AppendHeader(nil, h))
	fo := int(h.FooterOffset)
	diffs := 0
	for i := 0; i < len(foot); i++ {
		for _, v := range []byte{0xff, 0x7f, 0x00, 0x40} {
			f := append([]byte(nil), file...)
			f[fo+i] = v
			_, derr := schema.DecodeFooter(f[fo:], int64(fo))
			if derr == nil {
				continue
			}
			_, oerr := OpenBytes("x.ctrace", f)
			var fe *schema.FormatError
			errors.As(derr, &fe)
			fe.File = "x.ctrace"
			if oerr == nil || oerr.Error() != derr.Error() {
				if diffs++; diffs <= 3 {
					t.Logf("byte %d=%#x:\n  DecodeFooter: %v\n  Open:         %v", i, v, derr, oerr)
				}
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d corruptions: Open reports another error than the footer's structural one", diffs)
	}
}
