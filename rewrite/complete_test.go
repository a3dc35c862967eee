package rewrite

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// completeT completes r (created at testTime) and opens the copy, which
// must be complete.
func completeT(t *testing.T, r *mmapio.Reader) (*mmapio.Reader, []byte) {
	t.Helper()
	var out bytes.Buffer
	res, err := Complete(&out, r, testTime)
	require.NoError(t, err)
	require.Equal(t, int64(out.Len()), res.Bytes)
	fixed := openBytesT(t, out.Bytes())
	require.Equal(t, mmapio.StateComplete, fixed.Status().State)
	return fixed, out.Bytes()
}

// Every crash layout, recovered, is completed into a file that reads back
// the same events as the complete file (the oracle accepts it).
func TestCompleteRecoveredLayouts(t *testing.T) {
	evs := ctracetest.W1Events(3000, 8, 5)
	s := ctracetest.W1Schema(8)
	cases := map[string]ctracetest.Options{
		"ours killed":                {BlockSize: 2048, PerUnit: true, Compress: true, NoFooter: true},
		"ours killed, schema room":   {BlockSize: 2048, PerUnit: true, Compress: true, NoFooter: true, SchemaPad: 4096},
		"original killed":            {BlockSize: 4096, Compress: true, ZeroHeader: true},
		"original killed, raw":       {BlockSize: 4096, ZeroHeader: true},
		"original killed, padding":   {BlockSize: 4096, Compress: true, ZeroHeader: true, SchemaPad: 5},
		"original killed, zero room": {BlockSize: 4096, Compress: true, ZeroHeader: true, SchemaPad: 3000},
		"original killed, no schema": {BlockSize: 4096, Compress: true, ZeroHeader: true, NoSchema: true},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			complete := opts
			complete.NoFooter, complete.ZeroHeader = false, false
			want, err := ctracetest.Build(s, evs, complete)
			require.NoError(t, err)
			wantText := dumpText(t, openBytesT(t, want), mmapio.Query{}, 0)

			b, err := ctracetest.Build(s, evs, opts)
			require.NoError(t, err)
			r := openBytesT(t, b)
			require.Equal(t, mmapio.StateRecovered, r.Status().State)
			fixed, out := completeT(t, r)
			require.Equal(t, uint64(testTime.Unix()), fixed.Footer().CreatedTimestamp)
			require.Equal(t, string(wantText), string(dumpText(t, fixed, mmapio.Query{}, 0)))
			oracleCheck(t, out)
		})
	}
}

// A recovered file with empty blocks of every kind (issue 4) is completed
// into one that reads as the file without them.
func TestCompleteEmptyBlocks(t *testing.T) {
	evs := ctracetest.W1Events(3000, 8, 5)
	s := ctracetest.W1Schema(8)
	for name, opts := range map[string]ctracetest.Options{
		"ours":     {BlockSize: 2048, PerUnit: true, Compress: true},
		"original": {BlockSize: 4096, Compress: true, NoUnitSets: true},
		"raw":      {BlockSize: 4096},
	} {
		t.Run(name, func(t *testing.T) {
			plain, err := ctracetest.Build(s, evs, opts)
			require.NoError(t, err)
			wantText := dumpText(t, openBytesT(t, plain), mmapio.Query{}, 0)
			nf, err := ctracetest.WithEmptyBlocks(plain, true)
			require.NoError(t, err)
			rr := openBytesT(t, nf)
			require.Equal(t, mmapio.StateRecovered, rr.Status().State)
			fixed, out := completeT(t, rr)
			require.Equal(t, string(wantText), string(dumpText(t, fixed, mmapio.Query{}, 0)))
			oracleCheck(t, out)
		})
	}
}

// A footer that disagrees with its blocks, read WithRepair (the blocks
// walked), is completed with a correct footer: the copy opens complete and
// reads as the good file.
func TestCompleteRepairedFooters(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, Compress: true})
	want := string(dumpText(t, openBytesT(t, good), mmapio.Query{}, 0))
	for _, lie := range ctracetest.FooterLies() {
		t.Run(lie.Name, func(t *testing.T) {
			b := rewriteFooter(t, bytes.Clone(good), lie.Edit)
			r, err := mmapio.OpenBytes("bad.ctrace", b, mmapio.WithRepair())
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, mmapio.StateRecovered, r.Status().State)
			fixed, _ := completeT(t, r)
			require.Equal(t, want, string(dumpText(t, fixed, mmapio.Query{}, 0)))
		})
	}
}

// A footer entry whose unit set lies: the copy records the units the
// events hold, so it answers unit queries as the good file does.
func TestCompleteRecordsEventUnits(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, PerUnit: true})
	f := mustFooter(t, good)
	real := f.Blocks[0].Units
	require.Len(t, real, 1)
	other := uint16(0)
	for _, b := range f.Blocks {
		if b.Units[0] != real[0] {
			other = b.Units[0]
			break
		}
	}
	require.NotEqual(t, real[0], other)
	r0 := openBytesT(t, good)
	for name, lie := range map[string][]uint16{"one": {other}, "several": {other, 200}} {
		t.Run(name, func(t *testing.T) {
			bad := rewriteFooter(t, good, func(f *schema.Footer) { f.Blocks[0].Units = lie })
			r := openBytesT(t, bad)
			r2, _ := completeT(t, r)
			for _, u := range []uint16{real[0], other} {
				q := mmapio.Query{}.WithUnits(u)
				require.Equal(t, string(dumpText(t, r0, q, 0)), string(dumpText(t, r2, q, 0)))
			}
		})
	}
}

// FuzzComplete opens arbitrary bytes and completes what opens and reads
// without error: the copy opens complete, with the same events.
func FuzzComplete(f *testing.F) {
	seeds, err := ctracetest.FuzzSeeds(refDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := mmapio.OpenBytes("fuzz.ctrace", b)
		if err != nil {
			return
		}
		defer r.Close()
		n := 0
		for range r.Events(mmapio.Query{}) {
			n++
		}
		if r.Err() != nil {
			return
		}
		var out bytes.Buffer
		if _, err := Complete(&out, r, testTime); err != nil {
			t.Fatal(err)
		}
		r2, err := mmapio.OpenBytes("complete.ctrace", out.Bytes())
		if err != nil {
			t.Fatalf("Complete wrote a file that does not open: %v", err)
		}
		defer r2.Close()
		if r2.Status().State != mmapio.StateComplete {
			t.Fatalf("Complete wrote a %v file", r2.Status())
		}
		m := 0
		for range r2.Events(mmapio.Query{}) {
			m++
		}
		if r2.Err() != nil || m != n {
			t.Fatalf("the complete copy has %d events (err %v), want %d", m, r2.Err(), n)
		}
	})
}
