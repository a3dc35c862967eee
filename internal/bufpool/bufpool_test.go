package bufpool

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Buffers of 64 MiB blocks are reused while an iteration runs (a windowed
// iteration decodes the same blocks again and again: each decode was a
// fresh 64 MiB), within bigBufBytes, and none is kept once no iteration runs.
func TestBigBuffersReusedDuringIteration(t *testing.T) {
	const size = 64 << 20
	// Outside an iteration, nothing is kept.
	b := bufs.get(size)
	bufs.put(b)
	require.False(t, holds([]*[]byte{b}, bufs.get(size)))

	bufs.begin()
	got := []*[]byte{bufs.get(size), bufs.get(size), bufs.get(size)}
	for _, b := range got {
		bufs.put(b)
	}
	// Two fit in bigBufBytes: they come back; the third was dropped.
	again := []*[]byte{bufs.get(size), bufs.get(size), bufs.get(size)}
	require.True(t, holds(got[:2], again[0]) && holds(got[:2], again[1]) && again[0] != again[1])
	require.False(t, holds(got, again[2]))
	for _, b := range again {
		bufs.put(b)
	}
	bufs.end()
	require.False(t, holds(again, bufs.get(size)))
}

// holds reports whether list holds the buffer b (the same one, not an equal one).
func holds(list []*[]byte, b *[]byte) bool {
	for _, x := range list {
		if x == b {
			return true
		}
	}
	return false
}
