package chronon_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Flush, Sync and Close are control calls: any of them may race the others
// from different goroutines (no emit is in flight, so the package's contract
// holds). Each must return, Flush and Sync with nil or ErrClosed, and the
// race detector must see no race on the units' chunks. Before the control
// calls were serialized, a Flush that checked "not closed" just before Close
// sent on a channel nobody read any more and blocked forever, and two of
// them sealed the same chunk at once.
func TestControlCallsRaceClose(t *testing.T) {
	f := formats(t)
	dir := t.TempDir()
	const rounds = 2000
	for i := 0; i < rounds; i++ {
		tr, err := chronon.Create(fmt.Sprintf("%s/%d.ctrace", dir, i%8), chronon.WithAutoMetadata(false),
			chronon.WithLevel(chronon.LevelNone), chronon.WithFlushInterval(0), chronon.WithCompressionWorkers(1))
		require.NoError(t, err)
		u, err := tr.NewUnit("u")
		require.NoError(t, err)
		f.u64b.Emit(u, 1, 2, true) // a partly filled chunk for the control calls to seal

		var wg sync.WaitGroup
		errs := make(chan error, 8)
		call := func(fn func() error) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- fn()
			}()
		}
		call(tr.Flush)
		call(tr.Sync)
		call(tr.Close)
		call(tr.Flush)
		call(tr.Sync)
		call(tr.Close)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: a control call racing Close did not return", i)
		}
		close(errs)
		for err := range errs {
			if err != nil && !errors.Is(err, chronon.ErrClosed) {
				t.Fatalf("round %d: %v", i, err)
			}
		}
		require.ErrorIs(t, tr.Flush(), chronon.ErrClosed)
		require.ErrorIs(t, tr.Sync(), chronon.ErrClosed)
		st := tr.Stats()
		require.Equal(t, uint64(1), st.Units[0].Written, "round %d", i)
	}
}
