//go:build !unix

package mmapio

import (
	"io"
	"os"
)

// mapFile reads the file into memory on systems without a Unix mmap: the
// Reader behaves the same, only without sharing the page cache.
func mapFile(f *os.File, size int) (*mapping, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return &mapping{data: b}, nil
}

func unmap([]byte) error { return nil }

func madvise([]byte, int, int, adviceKind) {}
