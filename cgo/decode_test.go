package capi

import (
	"fmt"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/schema"
)

// trace is a .ctrace file decoded with the schema package, independently
// of cmd/trace_reader: the tests compare event records exactly.
type trace struct {
	data   []byte
	schema *schema.Schema
	footer *schema.Footer
}

func readTrace(t *testing.T, path string) *trace {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := schema.ParseHeader(data, int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if h.FooterSize == 0 || h.SchemaSize == 0 {
		t.Fatalf("%s: no footer or schema (not closed?)", path)
	}
	s, _, err := schema.DecodeSchema(data[h.SchemaOffset:h.SchemaOffset+h.SchemaSize], int64(h.SchemaOffset))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	f, err := schema.DecodeFooter(data[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &trace{data: data, schema: s, footer: f}
}

// events calls fn for every event, block by block in file order (so a
// unit's events come in emission order).
func (tr *trace) events(fn func(r schema.Record, args []byte) error) error {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return err
	}
	defer dec.Close()
	var buf []byte
	for i, b := range tr.footer.Blocks {
		start := b.DataOffset + schema.BlockHeaderSize
		raw := tr.data[start : start+uint64(b.CompressedSize)]
		if b.CompressedSize != b.UncompressedSize {
			if buf, err = dec.DecodeAll(raw, buf[:0]); err != nil {
				return fmt.Errorf("block %d: %w", i, err)
			}
			raw = buf
		}
		var n uint32
		for off := 0; off < len(raw); n++ {
			r, args, size, ok := schema.DecodeEvent(raw[off:])
			if !ok {
				return fmt.Errorf("block %d: bad event at %d", i, off)
			}
			if err := fn(r, args); err != nil {
				return fmt.Errorf("block %d: %w", i, err)
			}
			off += size
		}
		if n != b.EventCount {
			return fmt.Errorf("block %d: %d events, header says %d", i, n, b.EventCount)
		}
	}
	return nil
}

// multiset returns the events as canonical strings (unit name, cycle,
// format text and types, raw argument bytes) with their counts: two files
// with the same multiset hold the same events whatever the block layout.
func (tr *trace) multiset(t *testing.T) map[string]int {
	t.Helper()
	units := map[uint16]string{}
	for _, u := range tr.schema.Units {
		units[u.ID] = u.Name + "/" + u.TypeName
	}
	formats := map[uint32]string{}
	for _, f := range tr.schema.Formats {
		formats[f.ID] = fmt.Sprintf("%s%v/%d", f.Format, f.ArgTypes, f.Category)
	}
	m := map[string]int{}
	err := tr.events(func(r schema.Record, args []byte) error {
		m[fmt.Sprintf("%s|%d|%s|%d|%x", units[r.SourceID], r.Cycle, formats[r.FormatID], r.ArgCount, args)]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
