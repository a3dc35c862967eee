//go:build cgo

package tracesql_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// openSpansTrace writes a trace of one block of n span begins on lane 0
// of unit 1, none ever ended, over cycles 0..999.
func openSpansTrace(t *testing.T, n int) string {
	s := &schema.Schema{Version: 1, SimulationName: "open", Writer: "tracesql test",
		Units: []schema.Unit{{ID: 1, Name: "u"}},
		Formats: []schema.Format{{ID: 1, Format: "open lane={}", ArgTypes: []schema.ArgType{schema.ArgType(7)},
			Kind: schema.KindSpanBegin, ArgRoles: []schema.ArgRole{schema.ArgRole(1)}, Name: "open"}}}
	sb := schema.BuildSchema(flatbuffers.NewBuilder(0), s)
	const recSize = 30
	data := make([]byte, n*recSize)
	for i := range n {
		r := data[i*recSize:]
		binary.LittleEndian.PutUint16(r[0:], 4)
		binary.LittleEndian.PutUint64(r[2:], uint64(i*1000/n))
		binary.LittleEndian.PutUint32(r[10:], 1)
		binary.LittleEndian.PutUint16(r[18:], 1)
		r[20] = 1
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	require.NoError(t, err)
	comp := enc.EncodeAll(data, nil)
	h := schema.NewHeader(schema.FlagCompressed | schema.FlagHasIndex | schema.FlagHasSchema)
	h.SchemaOffset, h.SchemaSize = schema.HeaderSize, uint64(len(sb))
	file := make([]byte, schema.HeaderSize)
	file = append(file, sb...)
	for len(file)%8 != 0 {
		file = append(file, 0)
	}
	h.FirstBlockOffset = uint64(len(file))
	last := uint64((n - 1) * 1000 / n)
	bh := schema.BlockHeader{EventCount: uint32(n), MaxCycle: last, UncompressedSize: uint32(len(data)), CompressedSize: uint32(len(comp))}
	f := &schema.Footer{MaxCycle: last, TotalEvents: uint64(n), Blocks: []schema.BlockIndex{{EventCount: bh.EventCount, MaxCycle: last,
		UncompressedSize: bh.UncompressedSize, CompressedSize: bh.CompressedSize, DataOffset: uint64(len(file)), Units: []uint16{1}}}}
	file = schema.AppendBlockHeader(file, bh)
	file = append(file, comp...)
	fb := schema.BuildFooter(flatbuffers.NewBuilder(0), f)
	h.FooterOffset, h.FooterSize = uint64(len(file)), uint64(len(fb))
	copy(file, schema.AppendHeader(nil, h))
	file = append(file, fb...)
	path := filepath.Join(t.TempDir(), "open.ctrace")
	require.NoError(t, os.WriteFile(path, file, 0o644))
	return path
}

// queryErr runs q to its end and returns its error.
func queryErr(db *tracesql.DB, q string) error {
	rs, err := db.Query(q)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
	}
	return rs.Err()
}

// TestOpenSpansKeepTheBudget: spans that begin and never end are held
// open until the trace ends; past a quarter of the memory budget the
// spans table refuses the trace with an error naming the file and the
// budget (both the parallel scan and the serial one), where it grew
// without bound before (2.2 million took 400 MB against 64 MiB). A budget
// that holds them answers.
func TestOpenSpansKeepTheBudget(t *testing.T) {
	n, budget := 200_000, int64(16<<20) // about 18 MB open; the block (13 MB decoded) fits, a quarter (4 MiB) of open spans does not
	if raceEnabled {
		n, budget = 50_000, 4<<20 // the same proportions at a quarter of the size (stage 5 runs the full size)
	}
	path := openSpansTrace(t, n)
	for _, serial := range []bool{false, true} {
		small := open(t, []string{path}, tracesql.WithMemoryBudget(budget))
		tracesql.SetSerialSpans(small, serial)
		err := queryErr(small, "SELECT count(*) FROM spans")
		require.Error(t, err, "serial %v", serial)
		require.Contains(t, err.Error(), path)
		require.Contains(t, err.Error(), "spans open at once")
		require.Contains(t, err.Error(), "memory budget")

		enough := open(t, []string{path}, tracesql.WithMemoryBudget(256<<20))
		tracesql.SetSerialSpans(enough, serial)
		require.Equal(t, strconv.Itoa(n), one(t, enough, "SELECT count(*) FROM spans"), "serial %v", serial)
	}
}
