//go:build unix

package tracesql

import (
	"os"
	"syscall"
)

// lockPartition takes an exclusive lock on the file path (created if
// needed), held until unlock: publishers of one label take turns. The
// file stays (removing it would let a third publisher lock another file
// of the same name).
func lockPartition(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing releases the lock
}
