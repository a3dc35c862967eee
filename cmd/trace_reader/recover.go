package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// recoverFile writes a complete copy of c.file to c.output: the schema and
// every complete block, a footer indexing them and a header pointing at
// both. The torn tail, if any, is dropped. The copy is written to a
// temporary file next to the output and renamed into place.
func recoverFile(c *config, stdout io.Writer) error {
	if same, _ := sameFile(c.file, c.output); same {
		return usagef("recover: the output %q is the input file", c.output)
	}
	r, err := mmapio.Open(c.file, mmapio.WithRepair()) // a rejected footer is rebuilt from the blocks
	if err != nil {
		return err
	}
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(c.output), "."+filepath.Base(c.output)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := r.WriteComplete(tmp, time.Now())
	if err == nil {
		if fi, serr := os.Stat(c.file); serr == nil {
			err = tmp.Chmod(fi.Mode().Perm()) // the copy is as readable as the original
		}
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recover: writing %s: %w", c.output, err)
	}
	if err := os.Rename(tmp.Name(), c.output); err != nil {
		return err
	}
	st := r.Status()
	fmt.Fprintf(stdout, "%s: %s\n", c.file, st)
	fmt.Fprintf(stdout, "wrote %s: %d blocks, %d events, %d bytes\n", c.output, len(r.Blocks()), st.Events, n)
	return nil
}

func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}
