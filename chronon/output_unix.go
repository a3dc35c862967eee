//go:build unix

package chronon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// createOutput opens path for writing and takes an exclusive flock on it
// (see output.go): open without O_TRUNC, lock, check that the name still
// refers to the locked inode, and only then empty the file, so a second
// tracer never truncates the file of the one holding the lock.
func createOutput(path string) (*osFile, error) {
	// A retry happens only when another writer replaced the file between
	// our open and our lock; the bound turns a pathological loop into an
	// error instead of a hang.
	for range 100 {
		f, err := openLocked(path)
		if !errors.Is(err, errReplaced) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s: the file keeps being replaced while it is opened", path)
}

// errReplaced says the locked inode is no longer the one at path.
var errReplaced = errors.New("replaced while being locked")

func openLocked(path string) (*osFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		// /dev/null, a FIFO: nothing to lock or truncate (O_TRUNC ignores
		// them too), and several tracers may write to /dev/null.
		return &osFile{File: f}, nil
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", path, ErrOutputLocked)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	var now unix.Stat_t
	if err := unix.Stat(path, &now); err != nil || now.Dev != st.Dev || now.Ino != st.Ino {
		f.Close() // another tracer replaced or removed it: lock what is there now
		return nil, errReplaced
	}
	var lst unix.Stat_t
	if unix.Lstat(path, &lst) == nil && lst.Mode&unix.S_IFMT == unix.S_IFREG && lst.Ino == st.Ino && st.Nlink == 1 && st.Size >= replaceMin {
		if nf := replaceLocked(path, &st); nf != nil {
			nf.released = make(chan struct{})
			go func() {
				// The last reference: the kernel frees the old blocks here.
				// The old inode's lock goes with it, after the name points
				// at the new, already locked file.
				f.Close()
				close(nf.released)
			}()
			return nf, nil
		}
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("truncating %s: %w", path, err)
	}
	return &osFile{File: f}, nil
}

// replaceLocked creates the new file beside the old one, locked and with
// the old one's owner and mode where it can, and renames it over path. It
// returns nil when it cannot (a read-only directory, say): the caller then
// truncates the old file in place.
func replaceLocked(path string, old *unix.Stat_t) *osFile {
	nf, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".chronon-*")
	if err != nil {
		return nil
	}
	fd := int(nf.Fd())
	_ = unix.Fchown(fd, int(old.Uid), int(old.Gid)) // only root may give a file away; chown can clear set-id bits, so it goes first
	if flock(nf) != nil || unix.Fchmod(fd, uint32(old.Mode&0o7777)) != nil || os.Rename(nf.Name(), path) != nil {
		nf.Close()
		os.Remove(nf.Name())
		return nil
	}
	return &osFile{File: nf}
}

func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}

// writeVecAt writes bufs back to back at off with pwritev, resuming after
// a short write (a signal, a full pipe) and retrying EINTR.
func (f *osFile) writeVecAt(bufs [][]byte, off int64) error {
	fd := int(f.Fd())
	for len(bufs) > 0 {
		n, err := unix.Pwritev(fd, bufs, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "pwritev", Path: f.Name(), Err: err}
		}
		if n == 0 {
			return &os.PathError{Op: "pwritev", Path: f.Name(), Err: io.ErrShortWrite}
		}
		off += int64(n)
		for n > 0 && len(bufs) > 0 {
			if n < len(bufs[0]) {
				bufs[0] = bufs[0][n:]
				n = 0
			} else {
				n -= len(bufs[0])
				bufs = bufs[1:]
			}
		}
	}
	return nil
}
