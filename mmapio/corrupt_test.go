package mmapio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

func sampleTrace(t testing.TB, opts ctracetest.Options) []byte {
	t.Helper()
	b, err := ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(400, 4, 11), opts)
	require.NoError(t, err)
	return b
}

// rewriteFooter is ctracetest.EditFooter: b with its footer changed by edit.
func rewriteFooter(t testing.TB, b []byte, edit func(f *schema.Footer)) []byte {
	t.Helper()
	out, err := ctracetest.EditFooter(b, edit)
	require.NoError(t, err)
	return out
}

func requireFormatError(t *testing.T, err error, section string, offset int64, reason string) {
	t.Helper()
	var fe *schema.FormatError
	require.True(t, errors.As(err, &fe), "want a FormatError, got %v", err)
	require.Equal(t, "bad.ctrace", fe.File)
	require.Equal(t, section, fe.Section, err.Error())
	if offset >= 0 {
		require.Equal(t, offset, fe.Offset, err.Error())
	}
	require.Contains(t, err.Error(), reason)
}

// Bad headers, schemas and footers fail Open with an error naming the file,
// the section and the byte offset.
func TestOpenRejects(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, Compress: true})
	h, _ := schema.DecodeHeader(good)
	le := binary.LittleEndian
	cases := []struct {
		name    string
		edit    func(b []byte) []byte
		section string
		offset  int64
		reason  string
		notCtr  bool
	}{
		{"empty", func(b []byte) []byte { return nil }, "header", 0, "shorter than the 64-byte header", true},
		{"bad magic", func(b []byte) []byte { b[1] = 'X'; return b }, "header", 0, "bad magic", true},
		{"major version 2", func(b []byte) []byte { b[4] = 2; return b }, "header", 4, "unsupported format version 2.1", false},
		{"schema past the end", func(b []byte) []byte { le.PutUint64(b[16:], 1<<40); return b }, "header", 8, "outside", false},
		{"footer inside the header", func(b []byte) []byte { le.PutUint64(b[32:], 10); return b }, "header", 32, "outside", false},
		{"first block inside the header", func(b []byte) []byte { le.PutUint64(b[24:], 3); return b }, "header", 24, "outside", false},
		{"schema not a flatbuffer", func(b []byte) []byte { le.PutUint32(b[h.SchemaOffset:], 1<<30); return b }, "schema", -1, "", false},
		{"schema vector too long", func(b []byte) []byte {
			s := b[h.SchemaOffset : h.SchemaOffset+h.SchemaSize]
			root := le.Uint32(s)
			vt := int(root) - int(int32(le.Uint32(s[root:])))
			fo := le.Uint16(s[vt+4+2*1:]) // formats slot
			vec := int(root) + int(fo) + int(le.Uint32(s[int(root)+int(fo):]))
			le.PutUint32(s[vec:], 1<<28)
			return b
		}, "schema", -1, "vector of 268435456 elements", false},
		{"footer offset out of its buffer", func(b []byte) []byte { le.PutUint32(b[h.FooterOffset:], 1<<31); return b }, "footer", int64(h.FooterOffset), "is outside the", false},
		{"absurd uncompressed size", func(b []byte) []byte {
			return rewriteFooter(t, b, func(f *schema.Footer) { f.Blocks[2].UncompressedSize = 1 << 30 })
		}, "footer", -1, "blocks[2] (block at byte", false},
		{"block past the end", func(b []byte) []byte {
			return rewriteFooter(t, b, func(f *schema.Footer) { f.Blocks[1].DataOffset = 1 << 40 })
		}, "footer", -1, "lies outside the", false},
		{"block with no events", func(b []byte) []byte {
			return rewriteFooter(t, b, func(f *schema.Footer) { f.Blocks[0].EventCount = 0 })
		}, "footer", -1, "event count is zero", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(good))
			r, err := OpenBytes("bad.ctrace", b)
			require.Error(t, err)
			require.Nil(t, r)
			requireFormatError(t, err, c.section, c.offset, c.reason)
			require.Equal(t, c.notCtr, errors.Is(err, ErrNotATrace))
		})
	}
}

// Bad block data is found when the block is read: the iteration stops with
// an error naming the block and its offset, after the events before it.
func TestBlockErrors(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, Compress: true})
	raw := sampleTrace(t, ctracetest.Options{BlockSize: 1024})
	footer := func(b []byte) *schema.Footer {
		h, _ := schema.DecodeHeader(b)
		f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
		require.NoError(t, err)
		return f
	}
	blk := footer(good).Blocks[3]
	rawBlk := footer(raw).Blocks[3]
	le := binary.LittleEndian
	cases := []struct {
		name   string
		base   []byte
		edit   func(b []byte) []byte
		block  schema.BlockIndex
		offset int64
		reason string
	}{
		{"zstd garbage", good, func(b []byte) []byte {
			for i := 8; i < 40; i++ {
				b[blk.DataOffset+28+uint64(i)] ^= 0x5a
			}
			return b
		}, blk, int64(blk.DataOffset) + 28, "zstd"},
		{"not a zstd frame", good, func(b []byte) []byte { b[blk.DataOffset+28] = 0; return b }, blk, int64(blk.DataOffset) + 28, "not a zstd frame"},
		{"frame of another size", good, func(b []byte) []byte {
			usize := blk.UncompressedSize - 26
			le.PutUint32(b[blk.DataOffset+20:], usize)
			return rewriteFooter(t, b, func(f *schema.Footer) { f.Blocks[3].UncompressedSize = usize })
		}, blk, int64(blk.DataOffset) + 28, "the block header declares"},
		{"inline header disagrees", good, func(b []byte) []byte { le.PutUint64(b[blk.DataOffset+4:], blk.MinCycle+1); return b }, blk, int64(blk.DataOffset), "disagrees with the footer"},
		{"event count", raw, func(b []byte) []byte {
			le.PutUint32(b[rawBlk.DataOffset:], rawBlk.EventCount+1)
			return rewriteFooter(t, b, func(f *schema.Footer) { f.Blocks[3].EventCount++; f.TotalEvents++ })
		}, rawBlk, int64(rawBlk.DataOffset), "holds"},
		{"cycle outside the range", raw, func(b []byte) []byte {
			le.PutUint64(b[rawBlk.DataOffset+28+2:], rawBlk.MaxCycle+5)
			return b
		}, rawBlk, int64(rawBlk.DataOffset) + 28, "lies outside the block's range"},
		{"event runs past the block", raw, func(b []byte) []byte {
			le.PutUint16(b[rawBlk.DataOffset+28:], 60000)
			return b
		}, rawBlk, int64(rawBlk.DataOffset) + 28, "past the end of the block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(c.base))
			r, err := OpenBytes("bad.ctrace", b, withDecoders(1))
			require.NoError(t, err, "block data is checked when read")
			defer r.Close()
			n := 0
			for ev := range r.Events(Query{}) {
				require.Less(t, ev.Cycle, c.block.MaxCycle+1)
				n++
			}
			require.Less(t, n, 400)
			requireFormatError(t, r.Err(), "block 3", c.offset, c.reason)

			// The dump stops with the same error.
			r2, _ := OpenBytes("bad.ctrace", b)
			defer r2.Close()
			_, err = writeDump(r2, io.Discard, Query{}, 0)
			requireFormatError(t, err, "block 3", c.offset, c.reason)
			require.Error(t, r2.Err())

			// The iterator reports it through Err.
			it := r.Iter(Query{})
			for it.Next() {
			}
			requireFormatError(t, it.Err(), "block 3", c.offset, c.reason)
			it.Close()
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Option{withDecoders(0), withDecoders(1000), withReadAhead(1), withReadAhead(1 << 31)} {
		_, err := OpenBytes("x", sampleTrace(t, ctracetest.Options{}), o)
		require.Error(t, err)
	}
	_, err := Open("/nonexistent/file.ctrace")
	require.ErrorContains(t, err, "/nonexistent/file.ctrace")
	_, err = Open(t.TempDir())
	require.ErrorContains(t, err, "not a regular file")
}
