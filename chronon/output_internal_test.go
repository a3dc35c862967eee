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
	mu     sync.Mutex
	ranges [][2]int64
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
