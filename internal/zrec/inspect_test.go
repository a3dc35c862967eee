package zrec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// inspectFrame walks a frame's headers and counts the features used
// (block types, literal encodings, sequence modes), so tests can check that
// every code path is exercised. It is not a decoder.
func inspectFrame(t testing.TB, frame []byte, features map[string]int) {
	t.Helper()
	if !bytes.HasPrefix(frame, []byte{0x28, 0xB5, 0x2F, 0xFD}) {
		t.Fatalf("bad magic")
	}
	fhd := frame[4]
	if fhd&(1<<5) == 0 || fhd&(1<<2) == 0 || fhd&0x1B != 0 {
		t.Fatalf("frame header descriptor %#x: want single segment, content checksum, no dictionary", fhd)
	}
	fcsLen := []int{1, 2, 4, 8}[fhd>>6]
	features[fmt.Sprintf("fcs:%d", fcsLen)]++
	p := 5 + fcsLen
	nblocks := 0
	for {
		h := uint32(frame[p]) | uint32(frame[p+1])<<8 | uint32(frame[p+2])<<16
		p += 3
		last, typ, size := h&1 == 1, (h>>1)&3, int(h>>3)
		nblocks++
		switch typ {
		case blockRaw:
			features["block:raw"]++
		case blockCompressed:
			features["block:compressed"]++
			inspectBlock(t, frame[p:p+size], features)
		default:
			t.Fatalf("unexpected block type %d", typ)
		}
		p += size
		if last {
			break
		}
	}
	if p+checksumLen != len(frame) {
		t.Fatalf("frame has %d bytes after its last block, want the %d of the checksum", len(frame)-p, checksumLen)
	}
	features["checksum"]++
	if nblocks > 1 {
		features["multi-block"]++
	}
}

func inspectBlock(t testing.TB, b []byte, features map[string]int) {
	typ, sf := b[0]&3, (b[0]>>2)&3
	var hdr, size int
	switch typ {
	case litRaw, litRLE:
		name := map[byte]string{litRaw: "lit:raw", litRLE: "lit:rle"}[typ]
		switch sf {
		case 0, 2:
			hdr, size = 1, int(b[0]>>3)
		case 1:
			hdr, size = 2, int(b[0]>>4)|int(b[1])<<4
		case 3:
			hdr, size = 3, int(b[0]>>4)|int(b[1])<<4|int(b[2])<<12
		}
		features[fmt.Sprintf("%s-%dB", name, hdr)]++
		if typ == litRLE {
			size = 1
		}
	case litCompressed:
		v := binary.LittleEndian.Uint64(append(b[:5:5], 0, 0, 0))
		switch sf {
		case 0:
			hdr, size = 3, int(v>>14)&0x3FF
			features["lit:huff1"]++
		case 2:
			hdr, size = 4, int(v>>18)&0x3FFF
			features["lit:huff4-4B"]++
		case 3:
			hdr, size = 5, int(v>>22)&0x3FFFF
			features["lit:huff4-5B"]++
		default:
			t.Fatalf("unexpected literal size format %d", sf)
		}
	default:
		t.Fatalf("unexpected literal type %d", typ)
	}
	s := b[hdr+size:]
	var n int
	switch {
	case s[0] < 128:
		n, s = int(s[0]), s[1:]
		features["nseq:1B"]++
	case s[0] < 255:
		n, s = int(s[0]-128)<<8|int(s[1]), s[2:]
		features["nseq:2B"]++
	default:
		n, s = 0x7F00+int(s[1])|int(s[2])<<8, s[3:]
		features["nseq:3B"]++
	}
	if n == 0 {
		features["seq:none"]++
		return
	}
	modes := s[0]
	for i, name := range []string{"LL", "OF", "ML"} {
		m := modes >> (6 - 2*i) & 3
		features[fmt.Sprintf("%s:%s", name, []string{"predef", "rle", "fse", "repeat"}[m])]++
	}
}

// TestFeatureCoverage checks that the test inputs exercise every encoding
// path: block types, all literal header forms, sequence count forms and
// all three table modes.
func TestFeatureCoverage(t *testing.T) {
	e := newTestEncoder()
	features := map[string]int{}
	for _, c := range coverageInputs() {
		f := roundTrip(t, e, c.src)
		inspectFrame(t, f, features)
	}
	f := manySequencesFrame(e)
	roundTripFrame(t, f, manySequencesSrc())
	inspectFrame(t, f, features)
	t.Log(features)
	for _, want := range []string{
		"fcs:1", "fcs:2", "fcs:4", "checksum", "block:raw", "block:compressed", "multi-block",
		"lit:raw-1B", "lit:raw-2B", "lit:raw-3B", "lit:rle-2B", "lit:huff1", "lit:huff4-4B", "lit:huff4-5B",
		"nseq:1B", "nseq:2B", "nseq:3B",
		"LL:rle", "LL:fse", "LL:predef", "OF:rle", "OF:fse", "OF:predef", "ML:rle", "ML:fse", "ML:predef",
	} {
		if features[want] == 0 {
			t.Errorf("no test input exercises %q", want)
		}
	}
}

// TestFrameHeaderSizes checks the Frame_Content_Size field forms,
// including the 8-byte one no test input is large enough to reach.
func TestFrameHeaderSizes(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 65791, 65792, 1 << 20, 1<<32 - 1, 1 << 32, 1<<40 + 5} {
		var h zstd.Header
		b := appendFrameHeader(nil, n)
		b = appendBlockHeader(b, true, blockRaw, 0)
		if err := h.Decode(b); err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		if !h.HasFCS || h.FrameContentSize != uint64(n) || !h.SingleSegment || !h.HasCheckSum {
			t.Fatalf("size %d: decoded header %+v", n, h)
		}
	}
}

// manySequencesSrc is a period-3 pattern filling one zstd block.
func manySequencesSrc() []byte { return bytes.Repeat([]byte("abc"), maxBlockSize/3) }

// manySequencesFrame encodes manySequencesSrc as 3 literals followed by
// 43689 three-byte matches with no literals in between: more sequences
// than any event block produces (3-byte Number_of_Sequences) and a
// workout for the literal-length-0 repeat-offset rules. The sequences are
// given directly, bypassing the event parser.
func manySequencesFrame(e *Encoder) []byte {
	src := manySequencesSrc()
	e.resetFrame()
	n := len(src)/3 - 1
	raw := make([]rawSeq, n)
	for i := range raw {
		raw[i] = rawSeq{ml: 3, off: 3 * uint32(1+i%3)}
		if i == 0 {
			raw[i].ll, raw[i].off = 3, 3
		}
	}
	e.findSequences(src, 0) // sizes the buffers
	e.lits = append(e.lits[:0], src[:3]...)
	e.seqs = make([]seq, n)
	reps := e.reps
	e.codeSequences(raw)
	frame := appendFrameHeader(nil, len(src))
	return appendChecksum(e.appendBlock(frame, src, true, reps), src)
}

func roundTripFrame(t testing.TB, frame, want []byte) {
	t.Helper()
	got, err := testDecoder.DecodeAll(frame, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("round trip failed: %v", err)
	}
}

// rawSeq is a sequence as found: literal length, match length, offset.
type rawSeq struct {
	ll, ml, off uint32
}

// codeSequences codes sequences given directly, as the match finder would
// have (tests that need shapes no event block produces).
func (e *Encoder) codeSequences(raw []rawSeq) {
	e.llHist, e.mlHist, e.ofHist = [maxSymbolSize]uint32{}, [maxSymbolSize]uint32{}, [maxSymbolSize]uint32{}
	seqs := e.seqs[:len(raw)]
	for i, r := range raw {
		e.codeSeq(&seqs[i], r.ll, r.ml-minMatch, r.off)
	}
	e.seqs = seqs
}
