//go:build !race

package chronon

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Two goroutines emitting into one unit break the single-producer contract
// (the race detector reports it, which is why this test is built without
// -race). What comes out is unspecified, but the tracer must not hang or
// crash, and the file must not hold empty blocks: it used to hold 22 of
// them in such a run, and readers refuse a trace with one.
func TestTwoGoroutinesOnOneUnitWriteNoEmptyBlock(t *testing.T) {
	path := t.TempDir() + "/misuse.ctrace"
	tr, err := Create(path, WithAutoMetadata(false), WithBlockSize(4096), WithRingSize(8192), WithFlushInterval(time.Millisecond))
	require.NoError(t, err)
	u, err := tr.NewUnit("shared")
	require.NoError(t, err)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := uint64(0); g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); ; i++ {
				if i%64 == 0 {
					select {
					case <-stop:
						return
					default:
					}
					if i%1024 == 0 {
						u.Flush() // seals from both goroutines: the empty-chunk race
					}
				}
				ioFmt.Emit(u, i, g, uint32(i))
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		// A producer may wait for room forever on a ring state the race
		// corrupted; Close makes waits give up, as it does for any producer.
		t.Log("the misusing goroutines are stuck waiting for room; closing under them")
	}
	closed := make(chan error, 1)
	go func() { closed <- tr.Close() }()
	select {
	case err := <-closed:
		t.Logf("Close: %v", err) // an error is fine: the chunks' bytes were written concurrently
	case <-time.After(30 * time.Second):
		t.Fatal("Close hung after two goroutines misused one unit")
	}
	<-done
	blocks, events := requireNoEmptyBlocks(t, path)
	t.Logf("%d blocks, %d events", blocks, events)
	require.NotZero(t, blocks)
}
