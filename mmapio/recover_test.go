package mmapio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// Every crash layout reads back the same events as the complete file (the
// rewrite package's Complete turns it into a complete file).
func TestRecoverLayouts(t *testing.T) {
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
			wr := openBytesT(t, want)
			wantText := dumpText(t, wr, Query{}, 0)

			b, err := ctracetest.Build(s, evs, opts)
			require.NoError(t, err)
			r := openBytesT(t, b)
			st := r.Status()
			require.Equal(t, StateRecovered, st.State, st.String())
			require.Equal(t, len(wr.Blocks()), st.Blocks)
			require.Equal(t, uint64(len(evs)), st.Events)
			require.Zero(t, st.TornBytes)
			require.Equal(t, string(wantText), string(dumpText(t, r, Query{}, 0)))
			require.Equal(t, len(wr.Units()), len(r.Units()))

			// A unit query uses the unit sets recovery found.
			require.True(t, r.HasUnitSets())
			q := Query{}.WithUnits(3)
			require.Equal(t, string(dumpText(t, wr, q, 0)), string(dumpText(t, r, q, 0)))
		})
	}
}

func oracleCheck(t *testing.T, b []byte) {
	t.Helper()
	if _, err := ctracetest.Oracle(); err != nil {
		t.Logf("!!!!! SKIPPING THE ORACLE CHECK: %v !!!!!", err)
		return
	}
	path := filepath.Join(t.TempDir(), "check.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	out, err := ctracetest.RunOracle("check", path)
	require.NoError(t, err)
	require.Contains(t, string(out), "OK events=")
}

// A torn tail (a block cut while being written, garbage, a partial header)
// is ignored and reported to the byte.
func TestRecoverTornTail(t *testing.T) {
	evs := ctracetest.W1Events(2000, 4, 9)
	b, lay, err := ctracetest.BuildLayout(ctracetest.W1Schema(4), evs, ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true, NoFooter: true})
	require.NoError(t, err)
	last := lay.Blocks[len(lay.Blocks)-1]
	end := int64(len(b))
	require.Equal(t, int64(last.DataOffset)+28+int64(last.CompressedSize), end)

	cases := map[string]struct {
		data   []byte
		blocks int
		tornAt int64
		why    string
	}{
		"half a block":  {b[:int64(last.DataOffset)+40], len(lay.Blocks) - 1, int64(last.DataOffset), "past the end of the file"},
		"half a header": {b[:int64(last.DataOffset)+10], len(lay.Blocks) - 1, int64(last.DataOffset), "inside a block header"},
		"zeros after":   {append(bytes.Clone(b), make([]byte, 4096)...), len(lay.Blocks), end, "zero bytes"},
		"garbage after": {append(bytes.Clone(b), bytes.Repeat([]byte{0xff}, 100)...), len(lay.Blocks), end, "no block header"},
		"bad last block": {func() []byte {
			c := bytes.Clone(b)
			c[last.DataOffset+28+10] ^= 0xff
			return c
		}(), len(lay.Blocks) - 1, int64(last.DataOffset), "does not decode"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := openBytesT(t, c.data)
			st := r.Status()
			require.Equal(t, StateRecovered, st.State)
			require.Equal(t, c.blocks, st.Blocks, st.String())
			require.Equal(t, c.tornAt, st.TornOffset, st.String())
			require.Equal(t, int64(len(c.data))-c.tornAt, st.TornBytes)
			require.Contains(t, st.TornReason, c.why)
			require.Contains(t, st.String(), "torn tail")
			var n int
			for range r.Events(Query{}) {
				n++
			}
			require.NoError(t, r.Err())
			var want int
			for i := 0; i < c.blocks; i++ {
				want += int(lay.Blocks[i].EventCount)
			}
			require.Equal(t, want, n)
		})
	}
}

// A file whose schema grew during the run has its final schema after the
// blocks; the header points at it.
func TestFinalSchema(t *testing.T) {
	final := ctracetest.W1Schema(6)
	final.Metadata = []schema.KeyValue{{Key: "host", Value: "node7"}, {Key: "rank", Value: "3"}}
	b, err := ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(500, 4, 2), ctracetest.Options{FinalSchema: final, UnitStats: true, Dropped: map[uint16]uint64{2: 7}})
	require.NoError(t, err)
	r := openBytesT(t, b)
	require.Len(t, r.Units(), 6)
	require.Equal(t, final.Metadata, r.Metadata())
	off, _ := r.f.SchemaSection()
	require.Greater(t, off, int64(r.Blocks()[len(r.Blocks())-1].DataOffset))
	stats := r.UnitStats()
	require.Len(t, stats, 4)
	require.Equal(t, schema.UnitStat{UnitID: 2, Emitted: 132, Written: 125, Dropped: 7}, stats[1])
	require.Equal(t, "core0.rob", r.UnitName(4))
	require.Len(t, r.Categories(), 1)
	require.Equal(t, uint32(1), r.Formats()[0].ID)
	require.Equal(t, []string{"pc", "taken"}, r.Format(1).ArgNames)
	require.Nil(t, r.Format(7))
}

// Recovery steps over schema frames between blocks (and after the last one)
// and finds every block; a frame cut by the end of the file is the torn
// tail, reported as such.
func TestRecoverStepsOverSchemaFrames(t *testing.T) {
	want, b, blocks := killedW1(t)
	wantText := dumpText(t, openBytesT(t, want), Query{}, 0)
	// Frames before blocks 3 and 7 and at the end, inserted back to front
	// so the earlier offsets stay valid.
	b = ctracetest.WithSchemaFrame(b, int64(len(b)), 100)
	b = ctracetest.WithSchemaFrame(b, int64(blocks[7].DataOffset), 5000)
	b = ctracetest.WithSchemaFrame(b, int64(blocks[3].DataOffset), 0)
	r := openBytesT(t, b)
	st := r.Status()
	require.Equal(t, StateRecovered, st.State, st.String())
	// A schema frame is an empty block: Blocks lists it, no query reads it.
	require.Equal(t, len(blocks)+3, st.Blocks)
	require.Equal(t, uint64(killedEvents), st.Events)
	require.Zero(t, st.TornBytes, st.String())
	require.Equal(t, string(wantText), string(dumpText(t, r, Query{}, 0)))

	cut := b[:len(b)-50] // inside the last frame
	r = openBytesT(t, cut)
	st = r.Status()
	require.Equal(t, len(blocks)+2, st.Blocks) // the cut frame is the torn tail
	require.Equal(t, int64(len(cut)-(schema.BlockHeaderSize+8+50)), st.TornOffset, st.String())
	require.Contains(t, st.TornReason, "schema frame")
}
