//go:build unix

package tracefile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openNoBlock opens path for reading without waiting: O_NONBLOCK makes
// the open of a FIFO return at once (openMapping then refuses it); it
// changes nothing for a regular file, which is only mapped.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}

// mapFile maps size bytes of f read-only and shared, as Prometheus' fileutil
// and bbolt do: pages come from the page cache, nothing is copied, and the
// kernel may drop clean pages under memory pressure.
func mapFile(f *os.File, size int) (*mapping, error) {
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		if lim, ok := addressSpaceLimit(); ok && errors.Is(err, unix.ENOMEM) {
			return nil, fmt.Errorf("%s: cannot map its %d bytes: the address-space limit (ulimit -v, RLIMIT_AS) is %d bytes, which the file and what the process reserves already do not fit in (a Go program reserves about 1-2 GiB of address space at start, not memory): raise the limit (ulimit -v unlimited) and bound memory with a cgroup (MemoryMax) and the reader's memory budget instead",
				f.Name(), size, lim)
		}
		return nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return &mapping{data: b, mapped: true}, nil
}

func unmap(b []byte) error { return unix.Munmap(b) }

var pageSize = os.Getpagesize()

func madvise(b []byte, off, n int, kind adviceKind) {
	// madvise wants a page-aligned start.
	start := off &^ (pageSize - 1)
	n += off - start
	var advice int
	switch kind {
	case adviseSequential:
		advice = unix.MADV_SEQUENTIAL
	case adviseRandom:
		advice = unix.MADV_RANDOM
	case adviseWillNeed:
		advice = unix.MADV_WILLNEED
	default:
		advice = unix.MADV_NORMAL
	}
	_ = unix.Madvise(b[start:start+n], advice)
}

// addressSpaceLimit returns RLIMIT_AS when one is set: an mmap that fails
// with ENOMEM under it is the limit, not a lack of memory.
func addressSpaceLimit() (uint64, bool) {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &l); err != nil || l.Cur == unix.RLIM_INFINITY {
		return 0, false
	}
	return l.Cur, true
}
