//go:build unix

package chronon

import (
	"os"

	"golang.org/x/sys/unix"
)

// createOutput opens path for writing, replacing a large existing regular
// file by unlink rather than truncation (see output.go).
func createOutput(path string) (*osFile, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || st.Size < replaceMin {
		f, err := openTruncate(path)
		return &osFile{File: f}, err
	}
	old, err := os.Open(path)
	if err != nil {
		f, err := openTruncate(path)
		return &osFile{File: f}, err
	}
	if err := os.Remove(path); err != nil {
		old.Close()
		f, err := openTruncate(path)
		return &osFile{File: f}, err
	}
	f, err := openTruncate(path)
	if err != nil {
		old.Close()
		return nil, err
	}
	released := make(chan struct{})
	go func() {
		old.Close() // the last reference: the kernel frees the old blocks here
		close(released)
	}()
	return &osFile{File: f, released: released}, nil
}
