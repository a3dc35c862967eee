package chronon_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// A minimal, independent reader for the runtime's tests: it trusts nothing
// but the schema package, checks the structure strictly (the same rules as
// the conformance oracle) and returns every event. The real reader lives in
// mmapio; this one exists so the writer is tested against a second,
// deliberately simple implementation.

type rbEvent struct {
	rec  schema.Record
	args string // raw args bytes
}

func (e rbEvent) key() string {
	return fmt.Sprintf("%d/%d/%d/%d/%d/%x", e.rec.Cycle, e.rec.FormatID, e.rec.Category, e.rec.SourceID, e.rec.ArgCount, e.args)
}

type rbFile struct {
	hdr    schema.Header
	schema *schema.Schema
	footer *schema.Footer
	events []rbEvent
	blocks [][]rbEvent
}

var rbDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))

func readBack(t testing.TB, path string) *rbFile {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	hdr, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	require.NotZero(t, hdr.Flags&schema.FlagHasIndex, "index flag")
	require.NotZero(t, hdr.Flags&schema.FlagHasSchema, "schema flag")
	f := &rbFile{hdr: hdr}
	f.schema, _, err = schema.DecodeSchema(b[hdr.SchemaOffset:hdr.SchemaOffset+hdr.SchemaSize], int64(hdr.SchemaOffset))
	require.NoError(t, err)
	f.footer, err = schema.DecodeFooter(b[hdr.FooterOffset:hdr.FooterOffset+hdr.FooterSize], int64(hdr.FooterOffset))
	require.NoError(t, err)
	prevEnd := hdr.FirstBlockOffset
	var total uint64
	for i, bi := range f.footer.Blocks {
		require.Equal(t, uint32(i), bi.Index)
		require.GreaterOrEqual(t, bi.DataOffset, prevEnd, "block %d overlaps", i)
		inline, ok := schema.DecodeBlockHeader(b[bi.DataOffset:])
		require.True(t, ok)
		require.Equal(t, bi.Inline(), inline, "block %d inline header", i)
		start := bi.DataOffset + schema.BlockHeaderSize
		data := b[start : start+uint64(bi.CompressedSize)]
		if !inline.Raw() {
			require.NotZero(t, hdr.Flags&schema.FlagCompressed)
			data, err = rbDecoder.DecodeAll(data, nil)
			require.NoError(t, err, "block %d", i)
		}
		require.Len(t, data, int(bi.UncompressedSize))
		// Per event, plain comparisons: testify's reflection on every
		// event was most of the CPU of the tests that read back large
		// traces, the race detector's above all.
		var evs []rbEvent
		for off := 0; off < len(data); {
			r, args, n, ok := schema.DecodeEvent(data[off:])
			if !ok {
				t.Fatalf("block %d: truncated event at %d", i, off)
			}
			if r.Cycle < bi.MinCycle || r.Cycle > bi.MaxCycle {
				t.Fatalf("block %d: event at %d has cycle %d outside the block's [%d, %d]", i, off, r.Cycle, bi.MinCycle, bi.MaxCycle)
			}
			evs = append(evs, rbEvent{rec: r, args: string(args)})
			off += n
		}
		require.Len(t, evs, int(bi.EventCount), "block %d", i)
		if bi.Units != nil {
			for _, e := range evs {
				if !slices.Contains(bi.Units, e.rec.SourceID) {
					t.Fatalf("block %d unit set %v lacks unit %d of its event %s", i, bi.Units, e.rec.SourceID, e.key())
				}
			}
		}
		f.blocks = append(f.blocks, evs)
		f.events = append(f.events, evs...)
		total += uint64(len(evs))
		prevEnd = start + uint64(bi.CompressedSize)
	}
	require.Equal(t, total, f.footer.TotalEvents)
	require.GreaterOrEqual(t, hdr.FooterOffset, prevEnd)
	return f
}

// requireSameEvents compares event multisets: both sorted by every field,
// then compared in order (sorting the events themselves, not a formatted
// key per event, which cost more than the rest of a round trip).
func requireSameEvents(t testing.TB, want, got []rbEvent) {
	t.Helper()
	w, g := slices.Clone(want), slices.Clone(got)
	slices.SortFunc(w, cmpEvent)
	slices.SortFunc(g, cmpEvent)
	require.Equal(t, len(w), len(g), "event count")
	for i := range w {
		if cmpEvent(w[i], g[i]) != 0 {
			require.Equal(t, w[i].key(), g[i].key(), "first difference in sorted events at %d", i)
		}
	}
}

// cmpEvent orders events by every field key shows.
func cmpEvent(a, b rbEvent) int {
	return cmp.Or(
		cmp.Compare(a.rec.Cycle, b.rec.Cycle),
		cmp.Compare(a.rec.FormatID, b.rec.FormatID),
		cmp.Compare(a.rec.Category, b.rec.Category),
		cmp.Compare(a.rec.SourceID, b.rec.SourceID),
		cmp.Compare(a.rec.ArgCount, b.rec.ArgCount),
		strings.Compare(a.args, b.args))
}

// oracleCheck runs the conformance oracle on a file when it is available.
// CI installs python3-zstandard, so there it always runs.
func oracleCheck(t testing.TB, path string) {
	t.Helper()
	oracle := oraclePath(t)
	out, err := exec.Command("/usr/bin/python3", oracle, "check", path).CombinedOutput()
	require.NoError(t, err, "oracle rejected %s: %s", path, out)
	require.True(t, bytes.HasPrefix(out, []byte("OK ")), "oracle said %s", out)
}

func oraclePath(t testing.TB) string {
	p, err := ctracetest.Oracle()
	if err != nil {
		t.Skipf("SKIPPED LOUDLY: the conformance oracle cannot run (the repository's ../shared/conformance and /usr/bin/python3 with python3-zstandard): %v", err)
	}
	return p
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// walkFile reads a file the way a crash-recovery reader must: header, the
// schema the header points at, then inline block headers back to back from
// first_block_offset, ignoring any footer. It returns the events of every
// complete block.
func walkFile(t testing.TB, path string) (*schema.Schema, []rbEvent) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	hdr, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	var s *schema.Schema
	if hdr.SchemaSize > 0 {
		s, _, err = schema.DecodeSchema(b[hdr.SchemaOffset:hdr.SchemaOffset+hdr.SchemaSize], int64(hdr.SchemaOffset))
		require.NoError(t, err)
	}
	if hdr.FirstBlockOffset == 0 {
		return s, nil
	}
	end := uint64(len(b))
	if hdr.FooterOffset != 0 {
		end = hdr.FooterOffset
	}
	var evs []rbEvent
	for off := hdr.FirstBlockOffset; off+schema.BlockHeaderSize <= end; {
		h, _ := schema.DecodeBlockHeader(b[off:])
		if n := schemaFrameLen(b[off:end]); n > 0 { // a schema frame: no events
			off += n
			continue
		}
		if h.Plausible() != "" || off+schema.BlockHeaderSize+uint64(h.CompressedSize) > end {
			break
		}
		data := b[off+schema.BlockHeaderSize : off+schema.BlockHeaderSize+uint64(h.CompressedSize)]
		if !h.Raw() {
			data, err = rbDecoder.DecodeAll(data, nil)
			require.NoError(t, err)
		}
		for p := 0; p < len(data); {
			r, args, n, ok := schema.DecodeEvent(data[p:])
			require.True(t, ok)
			evs = append(evs, rbEvent{rec: r, args: string(args)})
			p += n
		}
		off += schema.BlockHeaderSize + uint64(h.CompressedSize)
	}
	return s, evs
}

// schemaFrameLen returns the length of the schema frame (a block of no
// events whose data is a zstd skippable frame) that b starts with, or 0.
func schemaFrameLen(b []byte) uint64 {
	h, ok := schema.DecodeBlockHeader(b)
	if !ok || len(b) < schema.BlockHeaderSize+8 || h != (schema.BlockHeader{CompressedSize: h.CompressedSize}) || h.CompressedSize < 8 {
		return 0
	}
	d := b[schema.BlockHeaderSize:]
	if binary.LittleEndian.Uint32(d)&^0xF != 0x184D2A50 || binary.LittleEndian.Uint32(d[4:]) != h.CompressedSize-8 ||
		uint64(len(b)) < schema.BlockHeaderSize+uint64(h.CompressedSize) {
		return 0
	}
	return schema.BlockHeaderSize + uint64(h.CompressedSize)
}

func hasUnit(s *schema.Schema, name string) bool {
	for _, u := range s.Units {
		if u.Name == name {
			return true
		}
	}
	return false
}

func hasFormat(s *schema.Schema, id uint32) bool {
	for _, f := range s.Formats {
		if f.ID == id {
			return true
		}
	}
	return false
}
