package mmapio

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

func withSegmentBytes(n int) Option {
	return func(o *options) error { o.segmentBytes = n; return nil }
}

// workload is a random trace: its schema, events, writer options, and
// where the writer put each event.
type workload struct {
	s      *schema.Schema
	events []ctracetest.Event
	opts   ctracetest.Options
	data   []byte
	layout ctracetest.Layout
	minC   uint64
	maxC   uint64
}

var fixedTypes = []schema.ArgType{schema.ArgInt8, schema.ArgInt16, schema.ArgInt32, schema.ArgInt64, schema.ArgUInt8,
	schema.ArgUInt16, schema.ArgUInt32, schema.ArgUInt64, schema.ArgFloat, schema.ArgDouble, schema.ArgPointer, schema.ArgBool}

func randomWorkload(t testing.TB, seed uint64) *workload {
	rng := ctracetest.SplitMix64{State: seed}
	rnd := func(n int) int { return int(rng.Next() % uint64(n)) }
	w := &workload{s: &schema.Schema{SimulationName: fmt.Sprint("random-", seed)}}
	nUnits := 1 + rnd(20)
	for u := 1; u <= nUnits; u++ {
		name := fmt.Sprintf("core%d.u%d", u/4, u)
		if rnd(8) == 0 {
			name = "" // a unit without a name
		}
		w.s.Units = append(w.s.Units, schema.Unit{ID: uint16(u), Name: name})
	}
	nFormats := 1 + rnd(5)
	for f := 1; f <= nFormats; f++ {
		var types []schema.ArgType
		text := fmt.Sprintf("f%d", f)
		for range rnd(4) {
			typ := fixedTypes[rnd(len(fixedTypes))]
			if rnd(5) == 0 {
				typ = schema.ArgString
			}
			types = append(types, typ)
			text += " a={}"
		}
		w.s.Formats = append(w.s.Formats, schema.Format{ID: uint32(f), Format: text, ArgTypes: types})
	}
	n := rnd(3000)
	sorted := rnd(4) != 0
	cycle := uint64(rnd(1000))
	if rnd(10) == 0 {
		cycle = math.MaxUint64 - 100000 // cycles near the top of the range
	}
	w.minC, w.maxC = math.MaxUint64, 0
	for i := 0; i < n; i++ {
		if sorted {
			if rnd(3) == 0 {
				cycle += uint64(rnd(5))
			}
		} else {
			cycle = uint64(rnd(5000))
		}
		f := &w.s.Formats[rnd(nFormats)]
		var args ctracetest.Args
		for _, typ := range f.ArgTypes {
			switch {
			case typ == schema.ArgString:
				args = args.Str(fmt.Sprint("s", rnd(1000)))
			default:
				for range typ.Size() {
					args = append(args, byte(rng.Next()))
				}
			}
		}
		unit := uint16(rnd(nUnits + 2)) // ids 0 and nUnits+1 are not in the schema
		fid := f.ID
		if rnd(50) == 0 {
			fid = 99 // unknown format
		}
		w.events = append(w.events, ctracetest.Event{Record: schema.Record{Cycle: cycle, FormatID: fid, Category: uint32(rnd(8)),
			SourceID: unit, ArgCount: uint8(len(f.ArgTypes))}, Args: args})
		w.minC, w.maxC = min(w.minC, cycle), max(w.maxC, cycle)
	}
	w.opts = ctracetest.Options{BlockSize: 64 + rnd(4096), PerUnit: rnd(2) == 0, Compress: rnd(2) == 0,
		NoUnitSets: rnd(4) == 0, SchemaPad: rnd(2) * rnd(300)}
	var err error
	w.data, w.layout, err = ctracetest.BuildLayout(w.s, w.events, w.opts)
	require.NoError(t, err)
	return w
}

// expected returns the indices of the events a query selects, in the order
// the reader must return them: by cycle, then block (our writer's blocks are
// in file order), then the order they were added (their place in the block).
func (w *workload) expected(match func(ev *ctracetest.Event) bool) []int {
	var idx []int
	for i := range w.events {
		if match(&w.events[i]) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(w.events[a].Cycle, w.events[b].Cycle); c != 0 {
			return c
		}
		return cmp.Compare(w.layout.EventBlocks[a], w.layout.EventBlocks[b])
	})
	return idx
}

type randomQuery struct {
	q     Query
	match func(ev *ctracetest.Event) bool
	desc  string
}

func (w *workload) randomQuery(rng *ctracetest.SplitMix64) randomQuery {
	rnd := func(n int) int { return int(rng.Next() % uint64(n)) }
	rq := randomQuery{match: func(*ctracetest.Event) bool { return true }, desc: "all"}
	span := w.maxC - w.minC + 1
	if w.minC > w.maxC {
		span = 1000
	}
	pick := func() uint64 { return w.minC - min(w.minC, 10) + rng.Next()%(span+20) }
	switch rnd(4) {
	case 1:
		a := pick()
		b := a + rng.Next()%(span/4+1)
		rq.q = rq.q.WithCycles(a, b)
		rq.match = func(ev *ctracetest.Event) bool { return ev.Cycle >= a && ev.Cycle <= b }
		rq.desc = fmt.Sprintf("cycles %d-%d", a, b)
	case 2:
		a := pick()
		rq.q = rq.q.WithCyclesFrom(a)
		rq.match = func(ev *ctracetest.Event) bool { return ev.Cycle >= a }
		rq.desc = fmt.Sprintf("cycles %d-", a)
	case 3:
		a := pick()
		rq.q = rq.q.WithCycles(a, a)
		rq.match = func(ev *ctracetest.Event) bool { return ev.Cycle == a }
		rq.desc = fmt.Sprintf("cycle %d", a)
	}
	if rnd(2) == 0 {
		set := bitset.New(1 << 16)
		for range rnd(4) {
			set.Set(uint(rnd(len(w.s.Units) + 2)))
		}
		rq.q = rq.q.WithUnitSet(set)
		cyc := rq.match
		rq.match = func(ev *ctracetest.Event) bool { return cyc(ev) && set.Test(uint(ev.SourceID)) }
		rq.desc += fmt.Sprintf(" units %v", set.String())
	}
	return rq
}

func checkQuery(t *testing.T, w *workload, r *Reader, rq randomQuery) {
	want := w.expected(rq.match)
	var got []Event
	for ev := range r.Events(rq.q) {
		got = append(got, ev.Clone())
	}
	require.NoError(t, r.Err())
	require.Len(t, got, len(want), rq.desc)
	var text []byte
	for i, wi := range want {
		e, g := &w.events[wi], &got[i]
		if e.Cycle != g.Cycle || e.SourceID != g.UnitID || e.FormatID != g.FormatID || e.Category != g.Category ||
			e.ArgCount != g.ArgCount || string(e.Args) != string(g.RawArgs()) {
			t.Fatalf("%s: event %d: got %+v, want event %d %+v", rq.desc, i, *g, wi, *e)
		}
		text = appendLine(r, text, g)
	}
	require.Equal(t, string(text), string(dumpText(t, r, rq.q, 0)), rq.desc)
	if len(want) > 2 {
		limit := 1 + int(uint64(len(want)*7)%uint64(len(want)-1))
		lines := dumpText(t, r, rq.q, limit)
		require.Equal(t, string(cutLines(text, limit)), string(lines), "%s limit %d", rq.desc, limit)
	}
}

// Property: a query returns exactly the matching events, in cycle order
// (ties by block, then position), whatever the layout, compression, block
// size, segment size and number of decoders.
func TestRoundTripRandom(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	} else if raceEnabled {
		// A randomized campaign: under the race detector 40 seeds still
		// draw every layout, compression, segment size and 1 to 4
		// decoders; make test's stage without it runs all 150.
		n = 40
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		w := randomWorkload(t, seed)
		rng := ctracetest.SplitMix64{State: seed * 7919}
		opts := []Option{withDecoders(1 + int(rng.Next()%4)), withSegmentBytes(1 + int(rng.Next()%20000))}
		r, err := OpenBytes("random.ctrace", w.data, opts...)
		require.NoError(t, err, "seed %d", seed)
		require.Equal(t, StateComplete, r.Status().State)
		require.Equal(t, uint64(len(w.events)), r.Status().Events)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			for range 6 {
				checkQuery(t, w, r, w.randomQuery(&rng))
			}
		})
		r.Close()
	}
}

// A W1 trace one unit per block: blocks of different units overlap, so
// reading it back merges them; a unit query decodes only that unit's
// blocks, a cycle query only the blocks overlapping the range.
func TestSeekDecodesOnlyNeededBlocks(t *testing.T) {
	evs := ctracetest.W1Events(40000, 16, 1)
	b, lay, err := ctracetest.BuildLayout(ctracetest.W1Schema(16), evs, ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true})
	require.NoError(t, err)
	r := openBytesT(t, b, withSegmentBytes(8192))
	require.True(t, r.HasUnitSets())
	w := &workload{s: ctracetest.W1Schema(16), events: evs, layout: lay}

	ids := r.UnitsNamed("core1.dram")
	require.Equal(t, []uint16{16}, ids)
	checkQuery(t, w, r, randomQuery{q: Query{}.WithUnits(ids...), match: func(e *ctracetest.Event) bool { return e.SourceID == 16 }, desc: "unit 16"})
	unitBlocks := 0
	for _, blk := range lay.Blocks {
		if blk.Units[0] == 16 {
			unitBlocks++
		}
	}
	before := r.f.Decodes()
	dumpText(t, r, Query{}.WithUnits(ids...), 0)
	require.Equal(t, int64(unitBlocks), r.f.Decodes()-before, "a unit query decodes the unit's blocks only")

	a, z := evs[20000].Cycle, evs[20000].Cycle+100
	overlap := 0
	for _, blk := range lay.Blocks {
		if blk.MaxCycle >= a && blk.MinCycle <= z {
			overlap++
		}
	}
	before = r.f.Decodes()
	var n int
	for range r.Events(Query{}.WithCycles(a, z)) {
		n++
	}
	require.Equal(t, int64(overlap), r.f.Decodes()-before)
	require.Less(t, overlap, len(lay.Blocks)/10)
	require.NotZero(t, n)
	checkQuery(t, w, r, randomQuery{q: Query{}.WithCycles(a, z), match: func(e *ctracetest.Event) bool { return e.Cycle >= a && e.Cycle <= z }, desc: "window"})

	// No unit matches: nothing is decoded.
	before = r.f.Decodes()
	for range r.Events(Query{}.WithUnits()) {
		t.Fatal("an empty unit set selects nothing")
	}
	require.Equal(t, before, r.f.Decodes())
}

// Reference files record no unit sets: a unit query reads every block and
// still returns exactly the unit's events.
func TestUnitQueryWithoutUnitSets(t *testing.T) {
	r := openT(t, refPath("multiblock.ctrace"))
	require.False(t, r.HasUnitSets())
	ids := r.UnitsNamed("core1.rob")
	require.Len(t, ids, 1)
	all := refDump(t, "multiblock.dump.txt.gz")
	var want []byte
	for _, line := range splitLines(all) {
		if containsBytes(line, []byte("] core1.rob: ")) {
			want = append(want, line...)
		}
	}
	require.NotEmpty(t, want)
	require.Equal(t, string(want), string(dumpText(t, r, Query{}.WithUnits(ids...), 0)))
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i < len(b) {
			i++
		}
		out = append(out, b[:i])
		b = b[i:]
	}
	return out
}

func containsBytes(b, sub []byte) bool {
	return string(b) != "" && len(sub) > 0 && indexBytes(b, sub) >= 0
}

func indexBytes(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// A footer whose entries are not in file order is rejected, as the
// conformance oracle rejects it; WithRepair reads the blocks in file order
// and the output does not change.
func TestFooterOrderDoesNotMatter(t *testing.T) {
	evs := ctracetest.W1Events(20000, 16, 4)
	b, err := ctracetest.Build(ctracetest.W1Schema(16), evs, ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true})
	require.NoError(t, err)
	want := dumpText(t, openBytesT(t, b), Query{}, 0)
	shuffled := rewriteFooter(t, b, func(f *schema.Footer) {
		rng := ctracetest.SplitMix64{State: 3}
		for i := len(f.Blocks) - 1; i > 0; i-- {
			j := int(rng.Next() % uint64(i+1))
			f.Blocks[i], f.Blocks[j] = f.Blocks[j], f.Blocks[i]
		}
	})
	_, err = OpenBytes("test.ctrace", shuffled)
	require.ErrorContains(t, err, "test.ctrace: footer at byte ")
	r := openBytesT(t, shuffled, withSegmentBytes(4096), WithRepair())
	require.Equal(t, StateRecovered, r.Status().State)
	require.Equal(t, string(want), string(dumpText(t, r, Query{}, 0)))
	require.Equal(t, string(want), string(iterText(t, r, Query{})))
}
