package tracefile

import (
	"fmt"
	"os"
)

// mapping is a read-only view of a whole file. On Unix it is an mmap of the
// file (see mmap_unix.go); elsewhere the file is read into memory
// (mmap_other.go). Either way data stays valid until close, and every slice
// the Reader hands out points into it.
type mapping struct {
	data   []byte
	mapped bool // data came from mmap and must be unmapped
}

// openMapping maps path. The file descriptor is closed before returning: a
// mapping outlives the descriptor it was made from. The file is opened
// without blocking and its type checked on the descriptor (no race with a
// rename): opening a FIFO for reading would otherwise wait for a writer
// forever, and a FIFO, directory or device cannot be mapped anyway.
func openMapping(path string) (*mapping, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): a trace is read through a mapping", path, fileKind(fi.Mode()))
	}
	size := fi.Size()
	if size == 0 {
		return &mapping{}, nil // mmap of length 0 fails; an empty file is simply "too short"
	}
	if int64(int(size)) != size || size < 0 {
		return nil, fmt.Errorf("%s: %d bytes do not fit in the address space", path, size)
	}
	return mapFile(f, int(size))
}

// fileKind names a file type for the error refusing it.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return "mode " + m.String()
}

func (m *mapping) close() error {
	if m == nil || !m.mapped {
		if m != nil {
			m.data = nil
		}
		return nil
	}
	err := unmap(m.data)
	m.data, m.mapped = nil, false
	return err
}

// adviceKind is the access pattern hinted to the kernel.
type adviceKind int

const (
	adviseNormal adviceKind = iota
	adviseSequential
	adviseRandom
	adviseWillNeed
)

// advise hints the access pattern of data[off:off+n]; failures are ignored
// because a hint never changes what the program reads.
func (m *mapping) advise(off, n int, kind adviceKind) {
	if m == nil || !m.mapped || n <= 0 || off < 0 || off >= len(m.data) {
		return
	}
	if n > len(m.data)-off {
		n = len(m.data) - off
	}
	madvise(m.data, off, n, kind)
}
