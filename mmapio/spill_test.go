package mmapio

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// spilled reports whether an iteration of q over r goes through a
// temporary file, and whether any file is left in dir once it has
// started (the file is removed as soon as it is made).
func spilled(t *testing.T, r *Reader, q Query, dir string) bool {
	t.Helper()
	it := r.Iter(q)
	defer it.Close()
	for range 100 {
		if !it.Next() {
			break
		}
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "the temporary file is removed at once")
	return it.sp != nil && it.sp.spill != nil
}

// eventsUntilErr is every event q selects with its block, as text, and
// the error the iteration ended with.
func eventsUntilErr(r *Reader, q Query) ([]byte, error) {
	it := r.Iter(q)
	defer it.Close()
	var buf []byte
	for it.Next() {
		ev := it.Event()
		buf = binary.LittleEndian.AppendUint32(buf, uint32(ev.Block))
		buf = appendLine(r, buf, &ev)
	}
	return buf, it.Err()
}

// Issue 21 item 5: when the blocks overlapping the merge point do not fit
// in the budget, the iteration goes on through a temporary file: the same
// events in the same order, each block decoded at most twice (once by a
// segment before the switch, once to spill it), within the budget.
// (Windows decoded every block again for every window it overlapped:
// TestMemoryBudgetWindows.)
func TestSpilledMerge(t *testing.T) {
	b, err := overlapTrace()
	require.NoError(t, err)
	full := openBytesT(t, b, WithMemoryBudget(MaxMemoryBudget))
	queries := []Query{{}, Query{}.WithUnits(3, 9), Query{}.WithCycles(50_000, 90_000)}
	for _, budget := range []int64{4 << 20, MinMemoryBudget} {
		dir := t.TempDir()
		small := openBytesT(t, b, WithMemoryBudget(budget), WithSpillDir(dir))
		require.True(t, spilled(t, small, Query{}, dir), "budget %d", budget)
		for _, q := range queries {
			want := eventText(t, full, q)
			require.NotEmpty(t, want)
			before := small.f.Decodes()
			require.Equal(t, string(want), string(eventText(t, small, q)), "budget %d, query %+v", budget, q)
			require.LessOrEqual(t, small.memPeak.Load(), budget)
			require.LessOrEqual(t, small.f.Decodes()-before, 2*int64(small.NumBlocks()), "budget %d, query %+v", budget, q)
		}
		if budget < 4<<20 {
			continue // a dump also holds its text: a block does not fit beside it (as in windows)
		}
		want := dumpText(t, full, Query{}, 0)
		require.Equal(t, string(want), string(dumpText(t, small, Query{}, 0)))
		require.Equal(t, string(cutLines(want, 12345)), string(dumpText(t, small, Query{}, 12345)))
		require.LessOrEqual(t, small.memPeak.Load(), budget)
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, ents)
	}
}

// A writer's file of many units and large blocks, the case of issue 21
// (1,000 units, 1 MiB blocks: 30,225 decodes of 3,000 blocks), in small:
// each block is decoded at most twice, and the output is the same.
func TestSpilledWriterFileDecodesAtMostTwice(t *testing.T) {
	units, events, budget := 200, 400_000, int64(8<<20)
	if raceEnabled {
		units, events, budget = 100, 200_000, 4<<20 // half of everything: 52 s under the race detector
	}
	b, err := ctracetest.Build(ctracetest.W1Schema(units), ctracetest.W1Events(events, units, 5),
		ctracetest.Options{BlockSize: 64 << 10, PerUnit: true, Compress: true})
	require.NoError(t, err)
	full := openBytesT(t, b, WithMemoryBudget(MaxMemoryBudget))
	want := dumpText(t, full, Query{}, 0)
	require.Equal(t, int64(full.NumBlocks()), full.f.Decodes())
	require.Greater(t, full.memPeak.Load(), budget, "the blocks at the merge point do not fit in the small budget")

	for _, c := range []struct {
		spill  bool
		atMost int64
	}{{true, 2}, {false, 1 << 20}} {
		dir := t.TempDir()
		if !c.spill {
			dir = ""
		}
		r := openBytesT(t, b, WithMemoryBudget(budget), WithSpillDir(dir))
		require.Equal(t, string(want), string(dumpText(t, r, Query{}, 0)), "spill %v", c.spill)
		t.Logf("spill %v: %d decodes of %d blocks, %d MiB accounted at most", c.spill, r.f.Decodes(), r.NumBlocks(), r.memPeak.Load()>>20)
		require.LessOrEqual(t, r.memPeak.Load(), budget)
		if c.spill {
			require.LessOrEqual(t, r.f.Decodes(), c.atMost*int64(r.NumBlocks()))
		} else {
			require.Greater(t, r.f.Decodes(), 2*int64(r.NumBlocks()), "windows decode again (what the temporary file avoids)")
		}
	}
}

// A crafted file whose blocks all overlap and each fill much of the
// budget: through the temporary file each is decoded once (windows
// decoded each about once per window: quadratic time), cycles cut inside
// by merge key; the output is the same.
func TestSpilledOverlapBomb(t *testing.T) {
	b, err := ctracetest.OverlapBomb(6, 2<<20, 1<<20) // every event of a block in one cycle
	require.NoError(t, err)
	full := openBytesT(t, b, WithMemoryBudget(MaxMemoryBudget))
	want := dumpText(t, full, Query{}, 0)
	dir := t.TempDir()
	r := openBytesT(t, b, WithMemoryBudget(8<<20), WithSpillDir(dir))
	require.Equal(t, string(want), string(dumpText(t, r, Query{}, 0)))
	require.Equal(t, int64(r.NumBlocks()), r.f.Decodes())
	require.LessOrEqual(t, r.memPeak.Load(), int64(8<<20))
	require.Equal(t, string(eventText(t, full, Query{}.WithUnits(2, 5))), string(eventText(t, r, Query{}.WithUnits(2, 5))))
}

// Cycles cut inside, blocks whose events are out of order, the smallest
// budget: the same as with no budget, each block decoded at most twice.
func TestSpilledInsideCycles(t *testing.T) {
	perCycle := 40_000
	if raceEnabled {
		// As in TestMemoryBudgetWindowsInsideCycles: cycles of 20,000
		// events still overflow the smallest budget and spill; make test's
		// stage without the race detector runs 40,000.
		perCycle = 20_000
	}
	evs := ctracetest.W1Events(3*perCycle, 8, 7)
	for i := range evs {
		evs[i].Cycle = uint64(i / perCycle) // three cycles of perCycle events
		if i%3 == 0 {
			evs[i].Cycle = uint64(2 - i/perCycle) // out of order inside blocks
		}
	}
	b, err := ctracetest.Build(ctracetest.W1Schema(8), evs, ctracetest.Options{BlockSize: 128 << 10, PerUnit: true, Compress: true})
	require.NoError(t, err)
	full := openBytesT(t, b, WithMemoryBudget(MaxMemoryBudget))
	dir := t.TempDir()
	small := openBytesT(t, b, WithMemoryBudget(MinMemoryBudget), WithSpillDir(dir))
	require.True(t, spilled(t, small, Query{}, dir))
	for _, q := range []Query{{}, Query{}.WithUnits(2, 5), Query{}.WithCycles(1, 1)} {
		before := small.f.Decodes()
		want := eventText(t, full, q)
		require.NotEmpty(t, want)
		require.Equal(t, string(want), string(eventText(t, small, q)))
		require.LessOrEqual(t, small.memPeak.Load(), int64(MinMemoryBudget))
		require.LessOrEqual(t, small.f.Decodes()-before, 2*int64(small.NumBlocks()))
	}
}

// A block that does not decode ends a spilled iteration as it ends any:
// after the events before it in cycle order, with its error.
func TestSpilledBadBlock(t *testing.T) {
	good, err := overlapTrace()
	require.NoError(t, err)
	f := mustFooter(t, good)
	// A block well after the merge point: the one starting latest.
	bi := 0
	for i, blk := range f.Blocks {
		if blk.MinCycle > f.Blocks[bi].MinCycle {
			bi = i
		}
	}
	bad := slices.Clone(good)
	bad[f.Blocks[bi].DataOffset+28] = 0 // not a zstd frame
	full, err := OpenBytes("bad.ctrace", bad, WithMemoryBudget(MaxMemoryBudget))
	require.NoError(t, err)
	defer full.Close()
	want, wantErr := eventsUntilErr(full, Query{})
	require.Error(t, wantErr)
	require.NotEmpty(t, want)
	dir := t.TempDir()
	small, err := OpenBytes("bad.ctrace", bad, WithMemoryBudget(4<<20), WithSpillDir(dir))
	require.NoError(t, err)
	defer small.Close()
	require.True(t, spilled(t, small, Query{}, dir))
	got, err := eventsUntilErr(small, Query{})
	requireFormatError(t, err, "block "+itoa(bi), int64(f.Blocks[bi].DataOffset)+28, "not a zstd frame")
	require.Equal(t, wantErr.Error(), err.Error())
	require.Equal(t, string(want), string(got))

	var buf bytes.Buffer
	_, err = writeDump(small, &buf, Query{}, 0)
	require.Equal(t, wantErr.Error(), err.Error())
	var wbuf bytes.Buffer
	_, _ = writeDump(full, &wbuf, Query{}, 0)
	require.Equal(t, wbuf.String(), buf.String())
}

// Without a temporary file (its directory gone), the iteration goes on in
// windows: slower, the same events.
func TestSpillFallsBackToWindows(t *testing.T) {
	b, err := overlapTrace()
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.Mkdir(dir, 0o700))
	r := openBytesT(t, b, WithMemoryBudget(4<<20), WithSpillDir(dir))
	require.NoError(t, os.Remove(dir))
	full := openBytesT(t, b, WithMemoryBudget(MaxMemoryBudget))
	it := r.Iter(Query{})
	require.True(t, it.Next())
	require.NotNil(t, it.sp.win, "windowed")
	it.Close()
	require.Equal(t, string(dumpText(t, full, Query{}, 0)), string(dumpText(t, r, Query{}, 0)))

	_, err = OpenBytes("x.ctrace", b, WithSpillDir(filepath.Join(dir, "nothere")))
	require.ErrorContains(t, err, "WithSpillDir")
}

// Closing the Reader ends a spilled iteration cleanly, also while runs are
// being spilled; the temporary file goes with it.
func TestCloseDuringSpill(t *testing.T) {
	b, err := overlapTrace()
	require.NoError(t, err)
	for range 3 {
		dir := t.TempDir()
		r := openBytesT(t, b, WithMemoryBudget(MinMemoryBudget), WithSpillDir(dir))
		it := r.Iter(Query{})
		require.True(t, it.Next())
		require.NotNil(t, it.sp.spill)
		sp := it.sp
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Close()
		}()
		for it.Next() {
		}
		<-done
		if it.Err() != nil {
			require.ErrorIs(t, it.Err(), ErrClosed)
		}
		require.Error(t, sp.spill.file.f.Close(), "closed by the iteration's end")
		_, err := writeDump(r, &bytes.Buffer{}, Query{}, 0)
		require.ErrorIs(t, err, ErrClosed)
	}
}

// The run written for a block reads back as the block's events, with
// checkpoints at most maxCheckpoints, each at an event.
func TestRunCheckpoints(t *testing.T) {
	b, err := overlapTrace()
	require.NoError(t, err)
	dir := t.TempDir()
	r := openBytesT(t, b, WithMemoryBudget(MinMemoryBudget), WithSpillDir(dir))
	it := r.Iter(Query{})
	defer it.Close()
	require.True(t, it.Next())
	s := it.sp.spill
	require.NotNil(t, s)
	if s.inflight > 0 { // a run spilled (the merge may have waited for them all)
		require.True(t, it.sp.collect(true))
	}
	var rn *run
	for _, x := range s.runs {
		if x.ready && x.n > 0 {
			rn = x
			break
		}
	}
	require.NotNil(t, rn)
	require.LessOrEqual(t, len(rn.ck), maxCheckpoints+1)
	require.Equal(t, ckpt{rn.first, 0, 0}, rn.ck[0])
	data := make([]byte, rn.size)
	_, err = s.file.f.ReadAt(data, rn.off)
	require.NoError(t, err)
	bd := tracefile.NewDecoded()
	defer tracefile.Release(bd)
	sel := *it.sp.sel
	sel.Start, sel.All = s.from, false
	require.NoError(t, r.f.Decode(rn.block, &sel, bd))
	require.Len(t, bd.Recs, int(rn.n))
	p, ck := 0, 0
	for i, rc := range bd.Recs {
		if ck < len(rn.ck) && rn.ck[ck].idx == uint32(i) {
			require.Equal(t, uint32(p), rn.ck[ck].off)
			require.Equal(t, rc.Cycle, rn.ck[ck].cycle)
			ck++
		}
		n := 26 + int(rc.ArgLen)
		require.Equal(t, rc.Cycle, binary.LittleEndian.Uint64(data[p+2:]))
		require.Equal(t, bd.Args(&rc), data[p+26:p+n])
		p += n
	}
	require.Equal(t, len(rn.ck), ck)
	require.Equal(t, int(rn.size), p)
}

// memWriterAt is an in-memory io.WriterAt counting its writes.
type memWriterAt struct {
	b      []byte
	writes int
}

func (m *memWriterAt) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	m.writes++
	return copy(m.b[off:], p), nil
}

// A run is written as the spans of the block its events cover, small ones
// gathered, large ones straight from the block, in order, at the run's
// offset.
func TestRunWriterSpans(t *testing.T) {
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i * 7)
	}
	spans := [][2]int{{0, 10}, {10, 30}, {40, 41}, {41, 300_000}, {300_100, 300_200}, {500_000, 1 << 20}}
	for _, chunk := range []int{256 << 10, 4096} {
		m := &memWriterAt{}
		w := runWriter{f: m, off: 5, out: make([]byte, 0, chunk), src: src}
		var want []byte
		for _, sp := range spans {
			if sp[0] != w.hi {
				require.NoError(t, w.flushSpan())
				w.lo = sp[0]
			}
			w.hi = sp[1]
			want = append(want, src[sp[0]:sp[1]]...)
			require.Equal(t, int64(len(want)), w.pos())
		}
		require.NoError(t, w.flushSpan())
		require.NoError(t, w.flush())
		require.Equal(t, 5+len(want), len(m.b), "chunk %d", chunk)
		require.True(t, bytes.Equal(want, m.b[5:]), "chunk %d", chunk)
		require.LessOrEqual(t, m.writes, 6, "chunk %d: large spans go out whole", chunk)
	}
}
