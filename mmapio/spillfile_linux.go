package mmapio

import (
	"os"

	"golang.org/x/sys/unix"
)

// punchHole frees [off, off+n) of f on disk, keeping its size. A file
// system that cannot (an error) keeps the bytes until the file is closed.
func punchHole(f *os.File, off, n int64) {
	_ = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
}
