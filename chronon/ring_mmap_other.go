//go:build !unix

package chronon

import "errors"

// newMappedRing: foreign (C) producers are supported on Unix systems only.
func newMappedRing(chunkSize uint32, nChunks int) (*ring, error) {
	return nil, errors.New("foreign units need mmap, which this platform lacks")
}
