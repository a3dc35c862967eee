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
		return truncatedOutput(path)
	}
	old, err := os.Open(path)
	if err != nil {
		return truncatedOutput(path)
	}
	if err := os.Remove(path); err != nil {
		old.Close()
		return truncatedOutput(path)
	}
	f, err := truncatedOutput(path)
	if err != nil {
		old.Close()
		return nil, err
	}
	f.released = make(chan struct{})
	go func() {
		old.Close() // the last reference: the kernel frees the old blocks here
		close(f.released)
	}()
	return f, nil
}
