//go:build unix

package mmapio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// shrunk writes a trace of several pages, opens it, and cuts the file to
// keep bytes: reading the lost pages through the mapping then faults.
func shrunk(t *testing.T, opts ctracetest.Options, keep int64) (*Reader, string, int64) {
	t.Helper()
	b := shrinkingTrace(t, opts)
	require.Greater(t, len(b), 64<<10)
	path := filepath.Join(t.TempDir(), "shrinking.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	r, err := Open(path, withDecoders(3))
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	require.NoError(t, os.Truncate(path, keep))
	return r, path, int64(len(b))
}

// shrinkingTraces holds the file shrunk opens, built once per options (a
// test shrinks a fresh copy of it eight times) and never modified.
var shrinkingTraces struct {
	sync.Mutex
	m map[string][]byte // by fmt.Sprintf("%+v", opts)
}

func shrinkingTrace(t *testing.T, opts ctracetest.Options) []byte {
	t.Helper()
	shrinkingTraces.Lock()
	defer shrinkingTraces.Unlock()
	key := fmt.Sprintf("%+v", opts)
	if b, ok := shrinkingTraces.m[key]; ok {
		return b
	}
	b, err := ctracetest.Build(ctracetest.W1Schema(8), ctracetest.W1Events(30000, 8, 9), opts)
	require.NoError(t, err)
	if shrinkingTraces.m == nil {
		shrinkingTraces.m = map[string][]byte{}
	}
	shrinkingTraces.m[key] = b
	return b
}

func requireFault(t *testing.T, err error, path string, size int64) {
	t.Helper()
	var fe *FaultError
	require.True(t, errors.As(err, &fe), "want a FaultError, got %v", err)
	require.Equal(t, path, fe.File)
	require.GreaterOrEqual(t, fe.Offset, int64(0), err.Error())
	require.Less(t, fe.Offset, size)
	require.Contains(t, err.Error(), path+": reading byte ")
	require.Contains(t, err.Error(), "the file shrank")
}

// A trace that shrinks while it is read gives an error naming the file
// (the mapping's pages past the new end fault: SIGBUS, which used to kill
// the process), from every way of reading it (and of completing it: the
// rewrite package's tests).
func TestFileShrinksWhileRead(t *testing.T) {
	for name, opts := range map[string]ctracetest.Options{
		"raw":        {BlockSize: 4096, PerUnit: true},
		"compressed": {BlockSize: 4096, PerUnit: true, Compress: true},
		"original":   {BlockSize: 4096, Compress: true, NoUnitSets: true},
	} {
		t.Run(name, func(t *testing.T) {
			for _, keep := range []int64{0, 4096} {
				r, path, size := shrunk(t, opts, keep)
				_, err := writeDump(r, io.Discard, Query{}, 0)
				requireFault(t, err, path, size)
				requireFault(t, r.Err(), path, size)

				r, path, size = shrunk(t, opts, keep)
				n := 0
				for range r.Events(Query{}.WithUnits(3)) {
					n++
				}
				requireFault(t, r.Err(), path, size)

				r, path, size = shrunk(t, opts, keep)
				it := r.Iter(Query{}.WithCycles(100, 1<<40))
				for it.Next() {
				}
				requireFault(t, it.Err(), path, size)
				it.Close()

				r, path, size = shrunk(t, opts, keep)
				require.Nil(t, r.Blocks())
				requireFault(t, r.Err(), path, size)
			}
		})
	}
}

// Hostile-review finding: a file that shrank while its windows (or its
// spilled merge) were built made dump, stats and export hang in Close: the
// fault's panic unwound through a held read lock on the mapping. Now the
// iteration ends with the fault and Close returns.
func TestFileShrinksBetweenWindows(t *testing.T) {
	b, err := ctracetest.OverlapBomb(6, 1<<20, 4096)
	require.NoError(t, err)
	for _, mode := range []string{"windows", "spill"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "shrinking.ctrace")
			require.NoError(t, os.WriteFile(path, b, 0o644))
			spill := dir
			if mode == "windows" {
				spill = ""
			}
			r, err := Open(path, WithMemoryBudget(4<<20), WithSpillDir(spill))
			require.NoError(t, err)
			total := r.Footer().TotalEvents
			it := r.Iter(Query{})
			require.True(t, it.Next(), "%v", it.Err())
			require.NoError(t, os.Truncate(path, 4096))
			n := uint64(1)
			for it.Next() {
				n++
			}
			if mode == "spill" && it.Err() == nil {
				// The blocks were all decoded into the temporary file
				// before the cut: every event, nothing read from the
				// mapping after it.
				require.Equal(t, total, n)
			} else {
				requireFault(t, it.Err(), path, int64(len(b)))
			}
			it.Close()
			closed := make(chan error, 1)
			go func() { closed <- r.Close() }()
			select {
			case <-closed:
			case <-time.After(30 * time.Second):
				t.Fatal("Close still waits for the mapping 30 s after the iteration ended")
			}
		})
	}
}
