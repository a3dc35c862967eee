package mmapio

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	wl "github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/schema"
)

// The walk of a footer-less file leaves out a block that fails its zstd
// content checksum when a good one follows (a flipped bit, not a cut), says
// so, and goes on, and so for a whole last block; a block that fails
// otherwise (no zstd frame) is where the torn tail starts, as before.
func TestRecoverWalkSkipsDamagedBlock(t *testing.T) {
	_, killed, blocks := killedW1(t)

	damage := func(i int) []byte {
		b := append([]byte(nil), killed...)
		require.NotEqual(t, blocks[i].CompressedSize, blocks[i].UncompressedSize, "block %d is raw", i)
		b[blocks[i].DataOffset+schema.BlockHeaderSize+uint64(blocks[i].CompressedSize)-2] ^= 8 // in its checksum
		return b
	}
	r := openBytesT(t, damage(2))
	st := r.Status()
	require.Equal(t, StateRecovered, st.State)
	require.Len(t, st.Damaged, 1, st.String())
	require.Contains(t, st.Damaged[0], "block at byte "+itoa(int(blocks[2].DataOffset))+" does not decode")
	require.Contains(t, st.Damaged[0], "checksum mismatch")
	require.Zero(t, st.TornBytes, st.String())
	require.Equal(t, len(blocks)-1, st.Blocks)
	require.Equal(t, killedEvents-uint64(blocks[2].EventCount), st.Events)
	require.Contains(t, st.String(), "1 damaged block left out")
	n := 0
	for range r.Events(Query{}) {
		n++
	}
	require.NoError(t, r.Err())
	require.Equal(t, st.Events, uint64(n))

	// A whole last block (a cut leaves one whose data runs past the end)
	// that fails its checksum is damaged too, not a torn tail.
	last := len(blocks) - 1
	r = openBytesT(t, damage(last))
	st = r.Status()
	require.Len(t, st.Damaged, 1, st.String())
	require.Zero(t, st.TornBytes, st.String())
	require.Equal(t, last, st.Blocks)

	// A block whose frame does not decode at all is where the walk ends.
	b := append([]byte(nil), killed...)
	binary.LittleEndian.PutUint32(b[blocks[2].DataOffset+schema.BlockHeaderSize:], 0xdeadbeef) // no zstd magic
	r = openBytesT(t, b)
	st = r.Status()
	require.Empty(t, st.Damaged, st.String())
	require.Equal(t, int64(blocks[2].DataOffset), st.TornOffset)
	require.Equal(t, 2, st.Blocks)
}

// A block that fails otherwise than by its checksum ends the walk whatever
// the verifying goroutines did meanwhile: the good blocks past it, decoded
// in parallel before the failure was seen, were once read as good and the
// failing block (and any not decoded between) as "damaged", so the same
// file gave 2 blocks or all but one from one run to the next.
func TestRecoverWalkEndsAtUndecodableBlockEveryTime(t *testing.T) {
	evs := ctracetest.W1Events(3000, 8, 5)
	s := ctracetest.W1Schema(8)
	opts := ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true, NoFooter: true}
	killed, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	blocks := openBytesT(t, killed).Blocks()
	require.Greater(t, len(blocks), 8)
	for _, at := range []int{0, 2} {
		b := append([]byte(nil), killed...)
		binary.LittleEndian.PutUint32(b[blocks[at].DataOffset+schema.BlockHeaderSize:], 0xdeadbeef) // no zstd magic
		for run := range 200 {
			st := openBytesT(t, b, withDecoders(8)).Status()
			require.Empty(t, st.Damaged, "block %d, run %d: %s", at, run, st)
			require.Equal(t, at, st.Blocks, "block %d, run %d: %s", at, run, st)
			require.Equal(t, int64(blocks[at].DataOffset), st.TornOffset, "block %d, run %d", at, run)
		}
	}
}

// Hostile-review finding: a flipped bit in the sizes of a footer-less
// file's inline block header ended the walk there as a "torn tail": every
// later block was lost and no command said a word (246 of 504 header flips
// in a campaign). The walk now goes on at the next block that decodes and
// names the bytes it left out; a cut (no whole block after it) is still a
// torn tail.
func TestRecoverWalkResyncsAfterADamagedHeader(t *testing.T) {
	_, killed, blocks := killedW1(t)

	for _, c := range []struct {
		name  string
		field int // byte offset in the 28-byte inline header
		bit   byte
	}{{"event count", 2, 0x40}} { // compressed_size: TestRecoverWalkSkipsABlockWhoseHeaderLiesAboutItsDataSize
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), killed...)
			at := int(blocks[3].DataOffset) + c.field
			b[at] ^= c.bit
			st := openBytesT(t, b).Status()
			require.Len(t, st.Damaged, 1, st.String())
			require.Contains(t, st.Damaged[0], "bytes "+itoa(int(blocks[3].DataOffset))+" to "+itoa(int(blocks[4].DataOffset))+" hold no block")
			require.Zero(t, st.TornBytes, st.String())
			require.Equal(t, len(blocks)-1, st.Blocks)
			require.Equal(t, killedEvents-uint64(blocks[3].EventCount), st.Events)
		})
	}
	// A cut inside the last block: a torn tail, nothing damaged.
	cut := killed[:int(blocks[len(blocks)-1].DataOffset)+40]
	st := openBytesT(t, cut).Status()
	require.Empty(t, st.Damaged, st.String())
	require.Positive(t, st.TornBytes)
	require.Equal(t, len(blocks)-1, st.Blocks)
}

// Hostile-review finding: a flipped bit in the uncompressed size of a
// footer-less file's inline block header that left the header plausible
// ended the walk there as a "torn tail" (zstd frame holds 2030 bytes, the
// block header declares 67566): recover kept none of the blocks after it,
// though their data, and the damaged block's, are whole (a cut leaves a
// block whose data runs past the end). A block whose whole frames hold
// another size than its header declares is damaged, as one failing its
// checksum is: left out and named, and the walk goes on; the last block
// too.
func TestRecoverWalkSkipsABlockWhoseHeaderLiesAboutItsSize(t *testing.T) {
	_, killed, blocks := killedW1(t)

	for _, c := range []struct {
		name string
		at   int // the block
		byte int // in its 28-byte inline header (uncompressed_size is bytes 20..24)
		bit  byte
	}{{"first, +64 KiB", 0, 22, 0x01}, {"middle, +1", 3, 20, 0x01}, {"middle, +16 MiB", 3, 23, 0x01}, {"last, +16 MiB", len(blocks) - 1, 23, 0x01}} {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), killed...)
			blk := blocks[c.at]
			require.NotEqual(t, blk.CompressedSize, blk.UncompressedSize, "block %d is raw", c.at)
			b[int(blk.DataOffset)+c.byte] ^= c.bit
			requireSkippedAsDamaged(t, openBytesT(t, b).Status(), blk, "declare", len(blocks)-1) // "the block header declares", "cannot hold the declared"
		})
	}
}

// Hostile-review finding: the same for an inline header whose event count
// or cycle range no longer fits its events (one more event than the data
// holds; a max cycle below the last event's): the frame's content checksum
// vouched for the data, so the header is what is damaged, yet the walk
// ended there and recover kept nothing after it. A block whose zstd frame
// passed its content checksum and whose events disagree with its header is
// damaged: left out and named, and the walk goes on.
func TestRecoverWalkSkipsABlockWhoseHeaderLiesAboutItsEvents(t *testing.T) {
	_, killed, blocks := killedW1(t)

	for _, c := range []struct {
		name string
		at   int
		edit func(h []byte) // the 28-byte inline header
		want string
	}{
		{"first, one event more", 0, func(h []byte) { binary.LittleEndian.PutUint32(h, binary.LittleEndian.Uint32(h)+1) }, "events, its header says"},
		{"middle, max cycle one less", 3, func(h []byte) { binary.LittleEndian.PutUint64(h[12:], binary.LittleEndian.Uint64(h[12:])-1) }, "lies outside the block's range"},
		{"middle, min cycle one more", 3, func(h []byte) { binary.LittleEndian.PutUint64(h[4:], binary.LittleEndian.Uint64(h[4:])+1) }, "lies outside the block's range"},
		{"last, max cycle one less", len(blocks) - 1, func(h []byte) { binary.LittleEndian.PutUint64(h[12:], binary.LittleEndian.Uint64(h[12:])-1) }, "lies outside the block's range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), killed...)
			blk := blocks[c.at]
			require.NotEqual(t, blk.CompressedSize, blk.UncompressedSize, "block %d is raw", c.at)
			c.edit(b[blk.DataOffset : blk.DataOffset+schema.BlockHeaderSize])
			st := openBytesT(t, b).Status()
			require.Len(t, st.Damaged, 1, st.String())
			require.Contains(t, st.Damaged[0], "block at byte "+itoa(int(blk.DataOffset))+" does not decode")
			require.Contains(t, st.Damaged[0], c.want)
			require.Zero(t, st.TornBytes, st.String())
			require.Equal(t, len(blocks)-1, st.Blocks)
			require.Equal(t, killedEvents-uint64(blk.EventCount), st.Events)
		})
	}
}

// Campaign finding (issue 21): a flipped bit in the compressed_size of a
// footer-less file's last inline block header was read as a torn tail
// without a word (a block still being written): the block's events were
// lost silently (data past the end of the file), and one in a middle
// block that kept the data inside the file ended the walk there (its
// frame does not fill the data it was given). So was a flip that made the
// last header implausible (nothing after it to resync at). The block's
// zstd frame says where its data ends and how large it is, and its
// content checksum vouches for its events: a block whose whole frame
// disagrees with its header is damaged, left out and named, and the walk
// goes on after the frame. A cut in the frame is still a torn tail.
func TestRecoverWalkSkipsABlockWhoseHeaderLiesAboutItsDataSize(t *testing.T) {
	_, killed, blocks := killedW1(t)
	last := len(blocks) - 1
	for _, c := range []struct {
		name string
		at   int  // the block
		byte int  // in its 28-byte inline header (compressed_size is bytes 24..28)
		bit  byte // flipped
	}{
		{"last, past the end", last, 26, 0x80},
		{"last, past the end by 1 KiB", last, 25, 0x04},
		{"last, bit 0", last, 24, 0x01},
		{"first, bit 0", 0, 24, 0x01},
		{"middle, bit 0", 3, 24, 0x01},
		{"middle, bit 3", 3, 24, 0x08},
		{"middle, past the end", 3, 26, 0x80},
		// The last block's header made implausible: no block follows to
		// resync at (a middle one's bytes are stepped over by the resync).
		{"last, 16M more events", last, 3, 0x01},
		{"last, min cycle past max", last, 11, 0x80},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), killed...)
			blk := blocks[c.at]
			require.NotEqual(t, blk.CompressedSize, blk.UncompressedSize, "block %d is raw", c.at)
			b[int(blk.DataOffset)+c.byte] ^= c.bit
			requireSkippedAsDamaged(t, openBytesT(t, b).Status(), blk, "is damaged: its whole zstd frame (its content checksum good) holds {events "+itoa(int(blk.EventCount)), len(blocks)-1)
		})
	}
	// A cut inside the last block's frame is a torn tail, nothing damaged.
	for _, cut := range []int{40, int(blocks[last].CompressedSize) / 2, int(blocks[last].CompressedSize) + schema.BlockHeaderSize - 1} {
		st := openBytesT(t, killed[:int(blocks[last].DataOffset)+cut]).Status()
		require.Empty(t, st.Damaged, "cut at %d: %s", cut, st)
		require.Positive(t, st.TornBytes)
		require.Equal(t, last, st.Blocks)
	}
}

// The same for the uncompressed size, made implausible in the last block:
// the frames of our writer record their content size, which says what the
// header should. (The frames of the file above, as the original writer's,
// do not: their header's size must be right.)
func TestRecoverWalkSkipsALastBlockWhoseHeaderLiesAboutItsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w1.ctrace")
	_, err := wl.Run("w1", path, 4000, 4, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	complete, err := os.ReadFile(path)
	require.NoError(t, err)
	blocks := openBytesT(t, complete).Blocks()
	h, err := schema.ParseHeader(complete, int64(len(complete)))
	require.NoError(t, err)
	end := h.FooterOffset // the killed file: no footer
	h.FooterOffset, h.FooterSize = 0, 0
	killed := append(schema.AppendHeader(nil, h), complete[schema.HeaderSize:end]...)
	blk := blocks[len(blocks)-1]
	killed[int(blk.DataOffset)+23] ^= 0x04 // uncompressed_size + 64 MiB
	st := openBytesT(t, killed).Status()
	require.Len(t, st.Damaged, 1, st.String())
	require.Contains(t, st.Damaged[0], "block at byte "+itoa(int(blk.DataOffset))+" does not decode")
	require.Contains(t, st.Damaged[0], "is damaged: its whole zstd frame (its content checksum good) holds {events "+itoa(int(blk.EventCount)))
	require.Zero(t, st.TornBytes, st.String())
	require.Equal(t, len(blocks)-1, st.Blocks)
}

// Campaign finding (issue 21): a flipped bit that widened a footer-less
// block's cycle range (a min cycle lower, a max cycle higher) kept every
// event inside it, and info printed the file's cycles from the blocks'
// ranges: a wrong range read without a word. The frame's content checksum
// vouches for the events, and our writers record their exact first and
// last cycle: a range that is not the events' own is a damaged header.
func TestRecoverWalkSkipsABlockWhoseHeaderWidensItsRange(t *testing.T) {
	_, killed, blocks := killedW1(t)
	last := len(blocks) - 1
	for _, c := range []struct {
		name string
		at   int
		byte int // in its 28-byte inline header (min_cycle 4..12, max_cycle 12..20)
		bit  byte
	}{
		{"first, min cycle bit 3", 0, 4, 0x08},
		{"middle, max cycle bit 40", 3, 17, 0x01},
		{"last, max cycle bit 63", last, 19, 0x80},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), killed...)
			blk := blocks[c.at]
			b[int(blk.DataOffset)+c.byte] ^= c.bit
			h, _ := schema.DecodeBlockHeader(b[blk.DataOffset:])
			require.True(t, h.MinCycle < blk.MinCycle || h.MaxCycle > blk.MaxCycle, "the range is widened: %+v", h)
			requireSkippedAsDamaged(t, openBytesT(t, b).Status(), blk, "its inline header says", len(blocks)-1)
		})
	}
}

const killedEvents = 3000

// killedW1 is the recovery tests' trace (3,000 W1 events of 8 units in
// blocks of 2 KiB per unit, zstd frames with content checksums) built
// twice: complete, and as a killed writer leaves it (no footer); blocks
// are the complete file's, where the killed file's blocks are too.
func killedW1(t *testing.T) (complete, killed []byte, blocks []Block) {
	t.Helper()
	evs := ctracetest.W1Events(killedEvents, 8, 5)
	s := ctracetest.W1Schema(8)
	opts := ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true}
	complete, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	blocks = openBytesT(t, complete).Blocks()
	require.Greater(t, len(blocks), 10)
	opts.NoFooter = true
	killed, err = ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	return complete, killed, blocks
}

// requireSkippedAsDamaged asserts that the walk of a killed W1 file
// (killedW1) left out block blk alone, as damaged, its message saying why
// (want), and kept the other blocks (blocks of them) and their events.
func requireSkippedAsDamaged(t *testing.T, st Status, blk Block, want string, blocks int) {
	t.Helper()
	require.Len(t, st.Damaged, 1, st.String())
	require.Contains(t, st.Damaged[0], "block at byte "+itoa(int(blk.DataOffset))+" does not decode")
	require.Contains(t, st.Damaged[0], want)
	require.Zero(t, st.TornBytes, st.String())
	require.Equal(t, blocks, st.Blocks)
	require.Equal(t, killedEvents-uint64(blk.EventCount), st.Events)
}
