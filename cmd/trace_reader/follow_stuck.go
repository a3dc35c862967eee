package main

import (
	"fmt"
	"os"
	"time"

	"github.com/chronon-sim/chronon-go/schema"
)

// followStuck is a block where following stopped because it did not
// decode: a damaged block with whole blocks after it (torn: nothing after
// it is read, as in dump), or the last block of a file still open, which
// may be one being written. Decoding it again at every poll cost up to a
// batch (32 MiB) each time until Ctrl-C; a poll now looks at it again only
// when the file changed: a torn block when its own bytes changed, the last
// block also when the file grew (a block after it makes it a damaged one,
// left out, and reading goes on).
type followStuck struct {
	from     int64  // where the next walk starts (follower.next)
	off, end int64  // the block's inline header and the end of its data
	sum      uint32 // CRC32C of its bytes as read
	torn     bool
	why      string // what failed
	size     int64  // the file's size and modification time when it was read
	mtime    time.Time
	buf      []byte // stillStuck's read buffer
}

// stuckAt remembers that the block at off..end (bytes b) did not decode.
func (fl *follower) stuckAt(from, off, end int64, b []byte, torn bool, why string) {
	st, err := fl.f.Stat()
	if err != nil {
		return // looked at again at the next poll
	}
	fl.stuck = &followStuck{from: from, off: off, end: end, sum: schema.CRC32C(b), torn: torn, why: why, size: st.Size(), mtime: st.ModTime()}
}

// stillStuck reports whether the block reading stopped at is as it was
// when it did not decode, the file unchanged there (st: the file now), so
// that the poll need not read it again.
func (fl *follower) stillStuck(st os.FileInfo) (bool, error) {
	s := fl.stuck
	if s == nil || fl.next != s.from {
		return false, nil
	}
	if st.Size() == s.size && st.ModTime().Equal(s.mtime) {
		return true, nil
	}
	if !s.torn && st.Size() != s.size {
		return false, nil
	}
	// The block's checksum, read through one small buffer kept for the
	// purpose: while the file grows every poll gets here, and a block may
	// be 64 MiB.
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	var sum uint32
	for at := s.off; at < s.end; {
		b := s.buf[:min(int64(len(s.buf)), s.end-at)]
		if _, err := fl.f.ReadAt(b, at); err != nil {
			return false, fmt.Errorf("%s: block at offset %d: %w", fl.path, s.off, err)
		}
		sum = schema.UpdateCRC32C(sum, b)
		at += int64(len(b))
	}
	if sum != s.sum {
		return false, nil
	}
	s.size, s.mtime = st.Size(), st.ModTime()
	return true, nil
}
