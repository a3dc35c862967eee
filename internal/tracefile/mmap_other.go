//go:build !unix

package tracefile

import (
	"fmt"
	"io"
	"os"
)

// openNoBlock refuses what is not a regular file before opening it (no
// O_NONBLOCK here; the descriptor's type is checked again after the open).
func openNoBlock(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): a trace is read through a mapping", path, fileKind(fi.Mode()))
	}
	return os.Open(path)
}

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
