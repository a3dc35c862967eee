package chronon

import (
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// wbFile records the writeback requests the writer makes.
type wbFile struct {
	*os.File
	mu      sync.Mutex
	ranges  [][2]int64
	stopped bool
}

func (f *wbFile) stopWriteback() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	return nil
}

func (f *wbFile) startWriteback(off, n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ranges = append(f.ranges, [2]int64{off, n})
}

// The writer asks for writeback of every appended byte range once it is
// writebackEvery long: contiguous ranges from the first block on, each at
// least writebackEvery, covering all but the last < writebackEvery bytes of
// blocks (which the final fsync writes).
func TestWritebackCoversAppendedBlocks(t *testing.T) {
	var wf *wbFile
	withOutput(t, func(path string) (outFile, error) {
		f, err := os.Create(path)
		wf = &wbFile{File: f}
		return wf, err
	})
	path := t.TempDir() + "/wb.ctrace"
	tr, err := Create(path, WithLevel(LevelNone), WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	for i := range uint64(1_000_000) { // 34 MB raw
		ioFmt.Emit(u, i, i, uint32(i))
	}
	require.NoError(t, tr.Close())
	require.True(t, wf.stopped, "Close stops the background writeback")

	first := int64(tr.fw.hdr.FirstBlockOffset)
	blocksEnd := int64(tr.fw.hdr.FooterOffset)
	require.NotEmpty(t, wf.ranges)
	at := first
	for _, r := range wf.ranges {
		require.Equal(t, at, r[0], "ranges are contiguous from the first block")
		require.GreaterOrEqual(t, r[1], int64(writebackEvery))
		at += r[1]
	}
	require.LessOrEqual(t, at, blocksEnd)
	require.Less(t, blocksEnd-at, int64(writebackEvery)+int64(tr.cfg.blockSize)+64)
}

// An fsync error in the background syncer is kept, not dropped (Linux
// reports a writeback error to one fsync only).
func TestSyncerKeepsFirstError(t *testing.T) {
	f, err := os.Create(t.TempDir() + "/s")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	s := startSyncer(f)
	s.request()
	s.request()
	require.ErrorIs(t, s.stop(), os.ErrClosed)
}

type wbFailFile struct{ wbFile }

func (f *wbFailFile) stopWriteback() error { return errDiskFull }

// ... and Close returns it.
func TestCloseReturnsWritebackError(t *testing.T) {
	withOutput(t, func(path string) (outFile, error) {
		f, err := os.Create(path)
		return &wbFailFile{wbFile{File: f}}, err
	})
	tr, err := Create(t.TempDir()+"/wbfail.ctrace", WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	ioFmt.Emit(u, 1, 2, 3)
	err = tr.Close()
	require.ErrorIs(t, err, errDiskFull)
	require.ErrorContains(t, err, "syncing")
}
