package chronon

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

type schemaKeyValue = schema.KeyValue

var (
	ioFmt   = MustFormat2[uint64, uint32]("io pc={} n={}")
	dropFmt = MustFormat1[uint64]("drop {}")
)

// failingFile accepts limit bytes, then fails every write like a full disk.
type failingFile struct {
	*os.File
	mu      sync.Mutex
	written int64
	limit   int64
}

var errDiskFull = errors.New("injected: no space left on device")

func (f *failingFile) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.written+int64(len(b)) > f.limit {
		return 0, errDiskFull
	}
	f.written += int64(len(b))
	return f.File.WriteAt(b, off)
}

func withOutput(t testing.TB, open func(string) (outFile, error)) {
	old := openOutput
	openOutput = open
	t.Cleanup(func() { openOutput = old })
}

// An I/O error mid-run is kept and returned, the simulation keeps running
// (the Block policy must not wait forever for a writer that cannot write),
// and every event is accounted for as written or lost.
func TestIOErrorIsStickyAndNeverBlocks(t *testing.T) {
	withOutput(t, func(path string) (outFile, error) {
		f, err := os.Create(path)
		return &failingFile{File: f, limit: 200 << 10}, err
	})
	tr, err := Create(t.TempDir()+"/full.ctrace", WithBlockSize(4096), WithRingSize(8192), WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	done := make(chan struct{})
	const n = 300_000
	go func() {
		defer close(done)
		for i := uint64(0); i < n; i++ {
			ioFmt.Emit(u, i, i*3, uint32(i))
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("producer blocked after an I/O error")
	}
	require.ErrorIs(t, tr.Err(), errDiskFull)
	err = tr.Close()
	require.ErrorIs(t, err, errDiskFull)
	require.Contains(t, err.Error(), "full.ctrace")
	s := tr.Stats().Units[0]
	require.Equal(t, uint64(n), s.Written+s.Lost+s.Dropped)
	require.NotZero(t, s.Written)
	require.NotZero(t, s.Lost)
}

func TestCreateFailsWhenHeaderCannotBeWritten(t *testing.T) {
	withOutput(t, func(path string) (outFile, error) {
		f, err := os.Create(path)
		return &failingFile{File: f, limit: 0}, err
	})
	_, err := Create(t.TempDir() + "/x.ctrace")
	require.ErrorIs(t, err, errDiskFull)
}

// Under the Drop policy nothing waits and every event is accounted for:
// emitted == written + dropped, exactly, with the pipeline stalled so that
// drops are certain.
func TestDropPolicyCountsEveryDrop(t *testing.T) {
	release := make(chan struct{})
	var stalled atomic.Bool
	testHookCompress = func() {
		if !stalled.Load() {
			<-release
		}
	}
	t.Cleanup(func() { testHookCompress = nil })
	path := t.TempDir() + "/drop.ctrace"
	tr, err := Create(path, WithPolicy(Drop), WithBlockSize(4096), WithRingSize(8192), WithAutoMetadata(false))
	require.NoError(t, err)
	us := []*Unit{}
	for _, name := range []string{"a", "b", "c"} {
		u, err := tr.NewUnit(name)
		require.NoError(t, err)
		us = append(us, u)
	}
	const n = 50_000
	start := time.Now()
	for i := uint64(0); i < n; i++ {
		dropFmt.Emit(us[i%3], i, i)
	}
	require.Less(t, time.Since(start), 30*time.Second, "Drop policy must not wait")
	stalled.Store(true)
	close(release)
	require.NoError(t, tr.Close())
	var written, dropped uint64
	for _, s := range tr.Stats().Units {
		require.Equal(t, s.Emitted, s.Written+s.Dropped, "unit %s", s.Name)
		require.Equal(t, uint64(n/3+boolInt(s.Name != "c")), s.Emitted, "unit %s emitted", s.Name)
		written += s.Written
		dropped += s.Dropped
	}
	require.Equal(t, uint64(n), written+dropped)
	require.NotZero(t, dropped, "the stalled pipeline must have forced drops")
	require.NotZero(t, written)
	require.Equal(t, written, tr.fw.total, "events in the file")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Under the default policy a producer far faster than compression loses
// nothing: it waits.
func TestBlockPolicyLosesNothingUnderOverload(t *testing.T) {
	var calls atomic.Int64
	testHookCompress = func() {
		if calls.Add(1)%8 == 0 {
			time.Sleep(2 * time.Millisecond) // compression far slower than the producer
		}
	}
	t.Cleanup(func() { testHookCompress = nil })
	path := t.TempDir() + "/block.ctrace"
	tr, err := Create(path, WithBlockSize(4096), WithRingSize(8192), WithLevel(19), WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("hot")
	require.NoError(t, err)
	const n = 100_000
	for i := uint64(0); i < n; i++ {
		dropFmt.Emit(u, i, i)
	}
	require.NoError(t, tr.Close())
	s := tr.Stats().Units[0]
	require.Equal(t, uint64(n), s.Written)
	require.Zero(t, s.Dropped+s.Lost)
	require.NotZero(t, s.Waits, "the producer must have waited for room")
	require.Equal(t, uint64(n), tr.fw.total)
}

func TestEmitDoesNotAllocate(t *testing.T) {
	tr, err := Create(t.TempDir()+"/alloc.ctrace", WithAutoMetadata(false), WithBlockSize(4096))
	require.NoError(t, err)
	defer tr.Close()
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	str := MustFormat2[string, uint32]("s={} n={}")
	off, err := tr.NewUnit("off", WithUnitMask(0))
	require.NoError(t, err)
	var c uint64
	// Enough runs to cross many chunk boundaries (seal, acquire, wake).
	require.Zero(t, testing.AllocsPerRun(20000, func() { c++; ioFmt.Emit(u, c, c, 7) }), "fixed-size emit")
	require.Zero(t, testing.AllocsPerRun(20000, func() { c++; str.Emit(u, c, "hello world", 3) }), "string emit")
	require.Zero(t, testing.AllocsPerRun(1000, func() { c++; ioFmt.Emit(off, c, c, 7) }), "disabled emit")
}

func TestAutoMetadataRank(t *testing.T) {
	env := map[string]string{"SLURM_PROCID": "4", "SLURM_NTASKS": "8", "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "0", "OMPI_COMM_WORLD_SIZE": "16"}
	md := autoMetadata(time.Unix(0, 0), func(k string) string { return env[k] })
	get := func(k string) string {
		for _, kv := range md {
			if kv.Key == k {
				return kv.Value
			}
		}
		return ""
	}
	require.Equal(t, "2", get("rank"), "MPI beats Slurm")
	require.Equal(t, "openmpi", get("rank_source"))
	require.Equal(t, "0", get("local_rank"))
	require.Equal(t, "16", get("world_size"))
	require.Equal(t, "1970-01-01T00:00:00Z", get("start_time"))
	require.NotEmpty(t, get("command_line"))
	md = autoMetadata(time.Unix(0, 0), func(k string) string {
		return map[string]string{"RANK": "1", "WORLD_SIZE": "2", "SLURM_PROCID": "9"}[k]
	})
	require.Contains(t, md, schemaKV("rank_source", "torchrun"))
	md = autoMetadata(time.Unix(0, 0), func(k string) string {
		return map[string]string{"PMIX_RANK": "3", "RANK": "1", "SLURM_PROCID": "0"}[k]
	})
	require.Contains(t, md, schemaKV("rank", "3"))
	require.Contains(t, md, schemaKV("rank_source", "pmix"), "PMIx (Open MPI 5, srun --mpi=pmix) before torchrun and Slurm")
	md = autoMetadata(time.Unix(0, 0), func(string) string { return "" })
	for _, kv := range md {
		require.NotEqual(t, "rank", kv.Key)
	}
	merged := mergeMetadata(md, [][2]string{{"host", "override"}, {"x", "1"}, {"x", "2"}})
	require.Contains(t, merged, schemaKV("host", "override"))
	require.Contains(t, merged, schemaKV("x", "2"))
}

func schemaKV(k, v string) schemaKeyValue { return schemaKeyValue{Key: k, Value: v} }
