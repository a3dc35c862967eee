//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockDir opens the directory and takes an exclusive lock on it, waiting
// for none (a directory just made has no other holder); nil if it cannot.
func lockDir(dir string) *os.File {
	return tryLockDir(dir)
}

// tryLockDir opens the directory (not a symlink to one) and takes its
// exclusive lock without waiting: nil when another process holds it, or
// it cannot be opened or locked.
func tryLockDir(dir string) *os.File {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil
	}
	return os.NewFile(uintptr(fd), dir)
}
