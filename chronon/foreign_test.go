package chronon

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/cabi"
	"github.com/chronon-sim/chronon-go/schema"
)

// cProducer follows docs/ring.md exactly as cgo/chronon.h does, using only
// the control block (as C code would), so the consumer's handling of
// foreign rings is tested without a C compiler.
type cProducer struct {
	h   *ringHdr
	mem []byte
}

func newCProducer(ring unsafe.Pointer) *cProducer {
	h := (*ringHdr)(ring)
	size, _ := ringSize(h.chunkSize, int(h.nChunks))
	return &cProducer{h: h, mem: unsafe.Slice((*byte)(ring), size)}
}

func (p *cProducer) lens() []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(&p.mem[ringHdrSize])), p.h.nChunks)
}

// emit writes an event with the given args; false when it was dropped.
func (p *cProducer) emit(f *DynamicFormat, cycle uint64, args []byte) bool {
	h := p.h
	if h.mask&f.category == 0 {
		return true
	}
	n := uint32(schema.EventHeaderSize + len(args))
	if h.off+n > h.lim.Load() && !p.reserve() {
		return false
	}
	ev := schema.AppendEvent(nil, schema.Record{Cycle: cycle, FormatID: f.id, Category: uint32(f.category), SourceID: uint16(h.srcWord), ArgCount: uint8(len(f.info.ArgTypes))}, args)
	start := int(h.dataOff) + int(h.headLocal&uint64(h.nChunks-1))*int(h.chunkSize) + int(h.off)
	copy(p.mem[start:start+int(n)], ev) // the bytes at h.chunk+h.off, as C writes them
	h.off += n
	return true
}

func (p *cProducer) reserve() bool {
	h := p.h
	if h.flags.Load()&flagClosed != 0 {
		h.dropped.Add(1)
		return false
	}
	if h.hasChunk != 0 && h.off > 0 {
		h.lim.Store(0)
		p.lens()[h.headLocal&uint64(h.nChunks-1)] = h.off
		h.headLocal++
		h.head.Store(h.headLocal)
		h.off, h.hasChunk = 0, 0
	}
	for h.headLocal-h.tail.Load() >= uint64(h.nChunks) {
		if h.policy == 1 || waitForRoom(unsafe.Pointer(h)) != nil {
			h.dropped.Add(1)
			return false
		}
	}
	h.chunk = uintptr(unsafe.Pointer(&p.mem[h.dataOff])) + uintptr(h.headLocal&uint64(h.nChunks-1))*uintptr(h.chunkSize)
	h.hasChunk = 1
	h.lim.Store(h.chunkSize)
	return true
}

func TestForeignUnitsRoundTrip(t *testing.T) {
	f, err := NewDynamicFormat("c pc={} taken={}", []schema.ArgType{schema.ArgUInt64, schema.ArgBool})
	require.NoError(t, err)
	path := t.TempDir() + "/c.ctrace"
	tr, err := Create(path, WithBlockSize(4096), WithRingSize(8192), WithAutoMetadata(false), WithFlushInterval(0))
	require.NoError(t, err)
	const threads, n = 4, 50_000
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		u, ring, err := tr.newForeignUnit("c" + string(rune('0'+i)))
		require.NoError(t, err)
		require.True(t, u.Enabled(CategoryDefault))
		p := newCProducer(ring)
		wg.Add(1)
		go func() { // a C thread, as far as the tracer knows
			defer wg.Done()
			for c := uint64(0); c < n; c++ {
				args := binary.LittleEndian.AppendUint64(nil, c*4)
				if !p.emit(f, c, append(args, byte(c&1))) {
					t.Errorf("dropped under the Block policy")
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, tr.Close())
	var total uint64
	for _, s := range tr.Stats().Units {
		require.Equal(t, uint64(n), s.Written, s.Name)
		require.Zero(t, s.Dropped)
		total += s.Written
	}
	require.Equal(t, uint64(threads*n), tr.fw.total)
	// After Close the memory is still mapped and says "closed".
	u := tr.unitList()[0]
	p := newCProducer(unsafe.Pointer(u.ring.hdr))
	require.False(t, p.emit(f, 1, make([]byte, 9)))
	require.Equal(t, uint64(1), tr.Stats().Units[0].Dropped)
	require.NoError(t, tr.free())
	require.ErrorIs(t, waitForRoom(unsafe.Pointer(new(ringHdr))), cabi.ErrUnknownRing)
}

func TestForeignUnitFlushAndPolling(t *testing.T) {
	f, err := NewDynamicFormat("poll {}", []schema.ArgType{schema.ArgUInt32})
	require.NoError(t, err)
	path := t.TempDir() + "/poll.ctrace"
	tr, err := Create(path, WithAutoMetadata(false), WithFlushInterval(10*time.Millisecond))
	require.NoError(t, err)
	_, ring, err := tr.newForeignUnit("c")
	require.NoError(t, err)
	p := newCProducer(ring)
	// The periodic flush request reaches a C producer through lim; its
	// next emit seals; the collector finds the sealed chunk by polling.
	deadline := time.Now().Add(10 * time.Second)
	for c := uint64(0); tr.fw == nil || tr.nBlocks.Load() == 0; c++ {
		require.True(t, p.emit(f, c, []byte{1, 2, 3, 4}))
		require.True(t, time.Now().Before(deadline), "no block from a C unit after 10s")
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, tr.Flush())
	require.NoError(t, tr.Close())
	require.Equal(t, tr.Stats().Units[0].Emitted, tr.Stats().Units[0].Written)
	require.NoError(t, tr.free())
}

func TestDynamicFormatEmitEncoded(t *testing.T) {
	f, err := NewDynamicFormat("d {} {}", []schema.ArgType{schema.ArgString, schema.ArgInt16})
	require.NoError(t, err)
	require.True(t, f.HasStrings())
	require.Equal(t, 2, f.FixedArgsSize())
	_, err = NewDynamicFormat("bad {}", []schema.ArgType{99})
	require.ErrorContains(t, err, "unknown type 99")
	tr, err := Create(t.TempDir()+"/d.ctrace", WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	require.NoError(t, f.EmitEncoded(u, 1, []byte("hi\x00\x05\x00")))
	require.ErrorContains(t, f.EmitEncoded(u, 2, []byte("hi")), "without NUL")
	require.ErrorContains(t, f.EmitEncoded(u, 3, []byte("hi\x00\x05")), "runs past")
	require.ErrorContains(t, f.EmitEncoded(u, 4, []byte("hi\x00\x05\x00\x07")), "left over")
	require.NoError(t, tr.Close())
	require.Equal(t, uint64(1), tr.fw.total)
}
