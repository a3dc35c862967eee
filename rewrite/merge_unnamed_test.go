package rewrite

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// unnamedFile writes a file whose schema names units 1..named and whose
// events also use the ids in extra, which nothing names (possible only
// without unit sets, as the original writer writes).
func unnamedFile(t *testing.T, path string, named int, extra []uint16, perUnit bool) {
	t.Helper()
	sch := &schema.Schema{Formats: []schema.Format{{ID: 1, Format: "v={}", ArgTypes: []schema.ArgType{schema.ArgUInt64}}}}
	for id := 1; id <= named; id++ {
		sch.Units = append(sch.Units, schema.Unit{ID: uint16(id), Name: "core" + string(rune('0'+id))})
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := ctracetest.NewWriter(f, sch, ctracetest.Options{BlockSize: 4 << 10, PerUnit: perUnit, NoUnitSets: !perUnit, Compress: true})
	require.NoError(t, err)
	ids := append([]uint16{}, extra...)
	for id := 1; id <= named; id++ {
		ids = append(ids, uint16(id))
	}
	for c := range 3000 {
		id := ids[c%len(ids)]
		require.NoError(t, w.Add(schema.Record{Cycle: uint64(c), FormatID: 1, SourceID: id, ArgCount: 1}, binary.LittleEndian.AppendUint64(nil, uint64(c))))
	}
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
}

// An event whose unit id its file does not name prints unnamed when the
// files are read together; in the merged file it must not take the name of
// another file's unit with that id. Merge refuses such a clash (naming the
// file, the block and the id) and merges the files when the id is free.
func TestMergeUnnamedUnitIDs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.ctrace")
	unnamedFile(t, a, 5, nil, true)

	// b names 1 and 2 (clashing with a's: renumbered, its blocks
	// rewritten) and uses 4, which a names: refused.
	b := filepath.Join(dir, "b.ctrace")
	unnamedFile(t, b, 2, []uint16{4}, false)
	// c names nothing that clashes... its 1 is renumbered too; it uses 9,
	// which no file names: merged, and printed unnamed as read together.
	c := filepath.Join(dir, "c.ctrace")
	unnamedFile(t, c, 1, []uint16{9}, false)
	// d has no clashing named id at all (its blocks are copied) and uses 3.
	d := filepath.Join(dir, "d.ctrace")
	unnamedFile(t, d, 0, []uint16{3}, false)

	for _, bad := range [][]string{{a, b}, {a, d}} {
		m, err := mmapio.OpenAll(bad)
		require.NoError(t, err)
		for _, workers := range []int{1, 3} {
			_, err = Merge(&failingWriter{limit: 1 << 40}, m, MergeOptions{Workers: workers})
			require.Error(t, err, "%v workers %d", bad, workers)
			require.Contains(t, err.Error(), bad[1])
			require.Contains(t, err.Error(), "block ")
			require.Contains(t, err.Error(), "do not name")
		}
		require.NoError(t, m.Close())
	}

	m, err := mmapio.OpenAll([]string{a, c})
	require.NoError(t, err)
	defer m.Close()
	want := multiDump(t, m)
	require.True(t, strings.Contains(want, "] v="), "c's unit 9 prints unnamed when the files are read together")
	r, _ := mergeT(t, m, MergeOptions{})
	var got bytes.Buffer
	_, err = tracetext.WriteDump(&got, r, mmapio.Query{}, 0)
	require.NoError(t, err)
	require.True(t, want == got.String(), "the merged dump differs from the files read together")
}
