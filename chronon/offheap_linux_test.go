//go:build linux

package chronon

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// resident counts the resident pages of a set's mappings.
func resident(t *testing.T, o *offHeap) (pages int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for p, size := range o.live {
		vec := make([]byte, size/pageSize)
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(p)), uintptr(size), uintptr(unsafe.Pointer(&vec[0])))
		require.Zero(t, errno)
		for _, v := range vec {
			pages += int(v & 1)
		}
	}
	return pages
}

// busyUnits makes n units and fills their rings until they grew.
func busyUnits(t *testing.T, tr *Tracer, n, events int) []*Unit {
	us := make([]*Unit, n)
	for i := range us {
		u, err := tr.NewUnit(fmt.Sprintf("busy.%03d", i))
		require.NoError(t, err)
		us[i] = u
	}
	for e := range events {
		for i, u := range us {
			ioFmt.Emit(u, uint64(e), uint64(e*7+i), uint32(e))
		}
	}
	return us
}

// The rings' chunks and the block buffers live outside the Go heap; Close
// unmaps the block buffers and gives the rings' pages back (a late emit
// still finds memory and is counted as dropped), and the rings are
// unmapped once nothing can reach the tracer. The same after an I/O error.
func TestOffHeapMemoryIsReleased(t *testing.T) {
	for _, failing := range []bool{false, true} {
		t.Run(fmt.Sprintf("ioerror=%v", failing), func(t *testing.T) {
			if failing {
				withOutput(t, func(path string) (outFile, error) {
					f, err := os.Create(path)
					return &failingFile{File: f, limit: 64 << 10}, err
				})
			}
			tr, err := Create(t.TempDir()+"/offheap.ctrace", WithAutoMetadata(false))
			require.NoError(t, err)
			us := busyUnits(t, tr, 8, 20_000)
			if err := tr.Flush(); failing {
				require.ErrorIs(t, err, errDiskFull)
			} else {
				require.NoError(t, err)
			}
			rings, bufs := tr.ringMem, &tr.blockMem.mem
			require.Greater(t, rings.mapped(), 8*4*firstChunk, "the rings' chunks are mapped, and grew")
			require.NotZero(t, bufs.mapped(), "the block buffers are mapped")
			require.NotZero(t, tr.encMem.mapped(), "the record encoders' scratch is mapped")
			encs := &tr.encMem
			require.NotZero(t, resident(t, rings))

			err = tr.Close()
			if failing {
				require.ErrorIs(t, err, errDiskFull)
			} else {
				require.NoError(t, err)
			}
			require.Zero(t, bufs.mapped(), "Close unmaps the block buffers")
			require.Zero(t, encs.mapped(), "Close unmaps the encoders' scratch")
			require.NotZero(t, rings.mapped(), "the rings stay mapped while a unit is reachable")
			require.Zero(t, resident(t, rings), "Close gives the rings' pages back")

			before := tr.Stats().Units[0].Dropped
			ioFmt.Emit(us[0], 1, 2, 3) // after Close: dropped, not a crash
			require.Equal(t, before+1, tr.Stats().Units[0].Dropped)

			tr, us = nil, nil
			deadline := time.Now().Add(10 * time.Second)
			for rings.mapped() != 0 && time.Now().Before(deadline) {
				runtime.GC()
				time.Sleep(10 * time.Millisecond)
			}
			require.Zero(t, rings.mapped(), "the rings are unmapped once the tracer is unreachable")
		})
	}
}

// A growing ring frees the chunk memory it replaces: what stays mapped is
// what the ring budget accounts for (plus each mapping's page rounding).
func TestGrowingRingsUnmapWhatTheyReplace(t *testing.T) {
	tr, err := Create(t.TempDir()+"/grow.ctrace", WithAutoMetadata(false))
	require.NoError(t, err)
	defer tr.Close()
	busyUnits(t, tr, 4, 50_000)
	require.NoError(t, tr.Flush())
	total := int(tr.rings.total.Load())
	mapped := tr.ringMem.mapped()
	require.GreaterOrEqual(t, mapped, total)
	require.LessOrEqual(t, mapped, total+4*4*pageSize, "at most a page of rounding a slot")
}

// With 150 busy units, as in a simulation of a GPU memory hierarchy, the
// tracer's share of the Go heap is its bookkeeping and encoders, not its
// rings and blocks: the garbage collector, which lets a heap grow to about
// twice what is live, has little of the tracer's to double.
func TestTracerGoHeapShareIsSmall(t *testing.T) {
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	tr, err := Create(t.TempDir()+"/share.ctrace", WithAutoMetadata(false), WithCompressionWorkers(2))
	require.NoError(t, err)
	defer tr.Close()
	busyUnits(t, tr, 150, 3_000)
	require.Greater(t, int(tr.rings.total.Load()), 150*4*firstChunk, "the rings grew")
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	share := int64(ms1.HeapAlloc) - int64(ms0.HeapAlloc)
	t.Logf("Go heap share %d KiB; rings %d KiB, block buffers %d KiB, encoders %d KiB outside it (mapped, not all resident)",
		share>>10, tr.ringMem.mapped()>>10, tr.blockMem.mem.mapped()>>10, tr.encMem.mapped()>>10)
	require.Less(t, share, int64(2<<20), "the tracer's Go heap share with 150 busy units")
	require.Greater(t, tr.ringMem.mapped(), 4<<20, "the rings it holds outside the heap")
}
