package mmapio

import (
	"fmt"
	"os"
	"sync/atomic"
)

// spillFile is the temporary file a spilled merge (spill.go) writes its
// runs to. It is removed as soon as it is created where the system allows
// (the open descriptor keeps it): a process killed meanwhile leaves
// nothing behind. Runs are written at offsets handed out by alloc, by
// several workers at once, and read back with ReadAt.
type spillFile struct {
	f       *os.File
	name    string
	removed bool
	size    atomic.Int64 // bytes handed out
}

// createSpill creates the temporary file in dir.
func createSpill(dir string) (*spillFile, error) {
	f, err := os.CreateTemp(dir, ".chronon-spill-*")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary file for the merge: %w", err)
	}
	s := &spillFile{f: f, name: f.Name()}
	s.removed = os.Remove(s.name) == nil // not where open files cannot be removed
	return s, nil
}

// alloc hands out n bytes of the file and returns their offset.
func (s *spillFile) alloc(n int64) int64 { return s.size.Add(n) - n }

// free gives bytes [off, off+n) back to the file system where it can take
// them (a hole punched in the file): the file then takes about what its
// live runs hold, not all that was ever spilled.
func (s *spillFile) free(off, n int64) {
	const page = 4096
	lo, hi := (off+page-1)&^(page-1), (off+n)&^(page-1)
	if hi > lo {
		punchHole(s.f, lo, hi-lo)
	}
}

// close closes and removes the file.
func (s *spillFile) close() {
	s.f.Close()
	if !s.removed {
		os.Remove(s.name)
	}
}
