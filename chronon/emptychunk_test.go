package chronon

import (
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

// requireNoEmptyBlocks reads the footer and every inline block header of a
// finished file: each block must hold events. A block of no events is one
// trace_reader and recover refuse (the whole trace with it).
func requireNoEmptyBlocks(t *testing.T, path string) (blocks int, events uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	hdr, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	footer, err := schema.DecodeFooter(b[hdr.FooterOffset:hdr.FooterOffset+hdr.FooterSize], int64(hdr.FooterOffset))
	require.NoError(t, err)
	for i, bi := range footer.Blocks {
		inline, ok := schema.DecodeBlockHeader(b[bi.DataOffset:])
		require.True(t, ok, "block %d", i)
		require.NotZero(t, bi.EventCount, "block %d in the footer holds no events", i)
		require.NotZero(t, inline.EventCount, "block %d's inline header says no events", i)
		require.NotZero(t, inline.UncompressedSize, "block %d is empty", i)
		events += uint64(bi.EventCount)
	}
	require.Equal(t, footer.TotalEvents, events)
	return len(footer.Blocks), events
}

// An empty chunk sealed into the ring (what a second goroutine emitting into
// the same unit does when it seals a chunk the first has just taken, or a
// buggy C producer) is released without becoming a block of 0 events. The
// test drives the producer state as the racing goroutine leaves it.
func TestEmptyChunkWritesNoBlock(t *testing.T) {
	path := t.TempDir() + "/empty.ctrace"
	tr, err := Create(path, WithAutoMetadata(false), WithBlockSize(4096), WithRingSize(8192))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	ioFmt.Emit(u, 1, 1, 1)
	u.Flush()                     // chunk 0: one event
	require.True(t, u.acquire(0)) // chunk 1, taken ...
	u.seal()                      // ... and sealed empty, as the misusing goroutine does
	require.True(t, u.acquire(0)) // chunk 0 again once the writer released it: the ring keeps turning
	u.seal()
	for i := uint64(2); i < 1000; i++ { // several full chunks after the empty ones
		ioFmt.Emit(u, i, i, 1)
	}
	require.NoError(t, tr.Close())
	_, events := requireNoEmptyBlocks(t, path)
	require.Equal(t, uint64(999), events)
	st := tr.Stats().Units[0]
	require.Equal(t, uint64(999), st.Written)
	require.Equal(t, st.Emitted, st.Written)
}

// The same for a foreign unit: a C producer that publishes a chunk of
// length 0.
func TestEmptyForeignChunkWritesNoBlock(t *testing.T) {
	path := t.TempDir() + "/empty_foreign.ctrace"
	tr, err := Create(path, WithAutoMetadata(false), WithBlockSize(4096), WithRingSize(8192))
	require.NoError(t, err)
	u, ringAddr, err := tr.newForeignUnit("c")
	require.NoError(t, err)
	h := (*ringHdr)(ringAddr)
	r := u.ring
	// Publish chunk 0 with length 0, exactly as docs/ring.md's seal does.
	r.lens[0] = 0
	h.headLocal = 1
	h.head.Store(1)
	require.NoError(t, tr.Flush())
	require.Equal(t, uint64(1), h.tail.Load(), "the empty chunk is released")
	// Then one real event in chunk 1.
	ev := make([]byte, schema.EventHeaderSize+12)
	*(*uint16)(unsafe.Pointer(&ev[0])) = 12
	*(*uint64)(unsafe.Pointer(&ev[2])) = 5
	*(*uint64)(unsafe.Pointer(&ev[10])) = uint64(ioFmt.id) | uint64(uint32(ioFmt.category))<<32
	*(*uint64)(unsafe.Pointer(&ev[18])) = h.srcWord | ioFmt.argcWord
	copy(r.data[r.chunkSize:], ev)
	r.lens[1] = uint32(len(ev))
	h.headLocal = 2
	h.head.Store(2)
	require.NoError(t, tr.Close())
	blocks, events := requireNoEmptyBlocks(t, path)
	require.Equal(t, 1, blocks)
	require.Equal(t, uint64(1), events)
	require.NoError(t, tr.free())
}

// A chunk that does not parse (a buggy C producer, or two goroutines
// writing one Go chunk) is an error Close returns, not a crash: the worker
// used to put its pooled buffer back emptied (capacity 0), and the next
// block encoded with it panicked on slice bounds.
func TestMalformedChunkDoesNotCrashTheWriter(t *testing.T) {
	path := t.TempDir() + "/malformed.ctrace"
	tr, err := Create(path, WithAutoMetadata(false), WithBlockSize(4096), WithRingSize(8192), WithCompressionWorkers(1))
	require.NoError(t, err)
	u, ringAddr, err := tr.newForeignUnit("c")
	require.NoError(t, err)
	h := (*ringHdr)(ringAddr)
	r := u.ring
	for seq := uint64(0); seq < 6; seq++ {
		slot := seq & (r.nChunks - 1)
		for h.headLocal-h.tail.Load() >= r.nChunks { // wait for room, as a C producer would
			require.NoError(t, waitForRoom(ringAddr))
		}
		chunk := r.data[slot*uint64(r.chunkSize):]
		if seq%2 == 0 { // a torn event: args_size runs past the chunk's end
			*(*uint16)(unsafe.Pointer(&chunk[0])) = 4000
			r.lens[slot] = schema.EventHeaderSize
		} else { // one well-formed event
			*(*uint16)(unsafe.Pointer(&chunk[0])) = 12
			*(*uint64)(unsafe.Pointer(&chunk[2])) = seq
			*(*uint64)(unsafe.Pointer(&chunk[10])) = uint64(ioFmt.id) | uint64(uint32(ioFmt.category))<<32
			*(*uint64)(unsafe.Pointer(&chunk[18])) = h.srcWord | ioFmt.argcWord
			r.lens[slot] = schema.EventHeaderSize + 12
		}
		h.headLocal++
		h.head.Store(h.headLocal)
		err := tr.Flush() // one block at a time through the one worker
		if seq == 0 {
			require.ErrorContains(t, err, "runs past the chunk end")
		}
	}
	require.ErrorContains(t, tr.Close(), "runs past the chunk end")
	blocks, events := requireNoEmptyBlocks(t, path)
	require.Equal(t, 3, blocks)
	require.Equal(t, uint64(3), events)
	require.NoError(t, tr.free())
}
