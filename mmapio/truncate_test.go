package mmapio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// For every length L of a small multi-block trace, its first L bytes either
// recover exactly the blocks complete before L or fail with an error naming
// the file, the section and the offset; never a panic or a hang.
func TestTruncationEveryLength(t *testing.T) {
	evs := ctracetest.W1Events(240, 4, 3)
	layouts := map[string]ctracetest.Options{
		"global-zstd":      {BlockSize: 700, Compress: true, UnitStats: true},
		"perunit-raw":      {BlockSize: 500, PerUnit: true},
		"crashed-original": {BlockSize: 700, Compress: true, ZeroHeader: true},
		"crashed-ours-pad": {BlockSize: 600, PerUnit: true, Compress: true, NoFooter: true, SchemaPad: 40},
		"final-schema":     {BlockSize: 900, PerUnit: true, FinalSchema: ctracetest.W1Schema(6)},
	}
	for name, opts := range layouts {
		t.Run(name, func(t *testing.T) {
			full, lay, err := ctracetest.BuildLayout(ctracetest.W1Schema(4), evs, opts)
			require.NoError(t, err)
			require.Greater(t, len(lay.Blocks), 5)
			step := 1
			if testing.Short() || raceEnabled {
				step = 7
			}
			for L := 0; L <= len(full); L += step {
				checkTruncated(t, full[:L:L], lay, evs)
			}
			checkTruncated(t, full, lay, evs)
		})
	}
}

func checkTruncated(t *testing.T, b []byte, lay ctracetest.Layout, evs []ctracetest.Event) {
	L := int64(len(b))
	r, err := OpenBytes("cut.ctrace", b, withDecoders(2))
	if err != nil {
		var fe *schema.FormatError
		require.True(t, errors.As(err, &fe), "L=%d: %v", L, err)
		require.Equal(t, "cut.ctrace", fe.File)
		require.NotEmpty(t, fe.Section)
		require.Contains(t, err.Error(), "cut.ctrace: ")
		return
	}
	defer r.Close()
	complete := 0
	for _, blk := range lay.Blocks {
		if int64(blk.DataOffset)+schema.BlockHeaderSize+int64(blk.CompressedSize) <= L {
			complete++
		}
	}
	st := r.Status()
	require.Equal(t, complete, st.Blocks, "L=%d: %s", L, st)
	if st.State == StateRecovered {
		require.Equal(t, L, st.TornOffset+st.TornBytes, "L=%d", L)
		if complete > 0 {
			last := lay.Blocks[complete-1]
			require.Equal(t, int64(last.DataOffset)+schema.BlockHeaderSize+int64(last.CompressedSize), st.TornOffset, "L=%d", L)
		}
	}
	// The events are those of the complete blocks, in order.
	w := &workload{events: evs, layout: lay}
	want := w.expected(func(e *ctracetest.Event) bool { return true })
	n := 0
	for ev := range r.Events(Query{}) {
		for n < len(want) && lay.EventBlocks[want[n]] >= complete {
			n++ // an event of a block cut off
		}
		// Plain comparisons: testify's helpers walk the stack on every call.
		if n >= len(want) {
			t.Fatalf("L=%d: more events than the complete blocks hold", L)
		}
		if e := &evs[want[n]]; e.Cycle != ev.Cycle || e.SourceID != ev.UnitID || string(e.Args) != string(ev.RawArgs()) {
			t.Fatalf("L=%d: event %d is %+v, want %+v", L, n, ev, *e)
		}
		n++
	}
	require.NoError(t, r.Err(), "L=%d", L)
}

// The same through the mmap path, for a few lengths.
func TestTruncatedFilesOnDisk(t *testing.T) {
	full, lay, err := ctracetest.BuildLayout(ctracetest.W1Schema(4), ctracetest.W1Events(240, 4, 3), ctracetest.Options{BlockSize: 700, Compress: true})
	require.NoError(t, err)
	dir := t.TempDir()
	for _, L := range []int{0, 10, 64, 100, int(lay.Blocks[2].DataOffset) + 5, len(full) - 1, len(full)} {
		path := filepath.Join(dir, fmt.Sprint(L, ".ctrace"))
		require.NoError(t, os.WriteFile(path, full[:L], 0o644))
		r, err := Open(path)
		if L < schema.HeaderSize {
			require.ErrorIs(t, err, ErrNotATrace)
			require.Contains(t, err.Error(), path)
			st, perr := Probe(path)
			require.Error(t, perr)
			require.Equal(t, StateNotATrace, st.State)
			continue
		}
		if err != nil {
			require.Contains(t, err.Error(), path)
			continue
		}
		if L == len(full) {
			require.Equal(t, StateComplete, r.Status().State)
		} else {
			require.Equal(t, StateRecovered, r.Status().State)
		}
		r.Close()
	}
}
