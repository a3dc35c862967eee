//go:build unix

package chronon

import "golang.org/x/sys/unix"

// mapAnon maps size bytes (a multiple of the page size) of private
// anonymous memory, zeroed.
func mapAnon(size int) ([]byte, bool) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	return b, err == nil
}

// unmapAnon unmaps a mapping mapAnon made. It cannot fail for one (the
// address and length are the mapping's), and a tracer has nobody to tell.
func unmapAnon(b []byte) { _ = unix.Munmap(b) }

// discardAnon frees a mapping's pages, which read as zeros afterwards.
func discardAnon(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
