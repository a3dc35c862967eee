package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// waitForFile returns once path exists. A follower is naturally started
// before the simulator that creates its file: it says once on stderr that
// it waits, and polls (Ctrl-C ends it). A directory that does not exist is
// an error, as it is more likely a typo than a file to come.
func waitForFile(ctx context.Context, path string, stderr io.Writer, every time.Duration) error {
	said := false
	for {
		_, err := os.Stat(path)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return nil // exists, or an error the follower's open reports
		}
		if st, derr := os.Stat(filepath.Dir(path)); derr != nil {
			return derr
		} else if !st.IsDir() {
			return fmt.Errorf("%s: not a directory", filepath.Dir(path))
		}
		if !said {
			fmt.Fprintf(stderr, "trace_reader: waiting for %s to be created\n", oneLine(path))
			said = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}
