//go:build unix

package chronon

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// newMappedRing makes a ring in anonymous mapped memory, outside the Go
// heap, so that C code may keep pointers into it.
func newMappedRing(chunkSize uint32, nChunks int) (*ring, error) {
	size, _ := ringSize(chunkSize, nChunks)
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("mapping a %d-byte ring: %w", size, err)
	}
	r := initRing(mem, chunkSize, nChunks)
	r.unmap = func() error { return unix.Munmap(mem) }
	return r, nil
}
