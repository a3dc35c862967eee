//go:build cgo

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chronon-sim/chronon-go/tracesql"
)

// exportParquet runs `export --format parquet -o DIR FILE...`: the event
// tables as Parquet, one directory per table (tracesql.ExportParquet). It
// prints DIR, as the other formats print the files they write.
func exportParquet(c *config, stdout, stderr io.Writer) error {
	for _, f := range c.files {
		if err := notInput(f, c.output); err != nil {
			return err
		}
	}
	// The tables go to a temporary directory beside DIR, renamed into place
	// when complete: a failed or interrupted export leaves no partial
	// files, and an existing DIR is never mixed with another run's tables.
	existed := false
	if st, err := os.Stat(c.output); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("export: %s exists and is not a directory", c.output)
		}
		if ents, err := os.ReadDir(c.output); err != nil || len(ents) > 0 {
			return fmt.Errorf("export: %s exists and is not empty (its tables would mix with this export's): remove it or name another", c.output)
		}
		existed = true
	}
	db, err := tracesql.Open(c.files, sqlOptions(c)...)
	if err != nil {
		return err
	}
	defer db.Close()
	_, tmp, err := createTemp(filepath.Clean(c.output), true)
	if err != nil {
		return fmt.Errorf("export: %s: cannot create: %w", c.output, pathErr(err))
	}
	defer func() { os.RemoveAll(tmp); forgetTemp(tmp) }()
	files, err := db.ExportParquet(tmp)
	if err == nil {
		if existed {
			err = os.Remove(c.output) // empty (checked above): the export takes its place
		}
		if err == nil {
			err = os.Rename(tmp, c.output)
		}
	}
	if err != nil {
		return fmt.Errorf("export: %s", strings.ReplaceAll(sqlErrLine(err), tmp, c.output))
	}
	for i, f := range files {
		files[i] = filepath.Join(c.output, strings.TrimPrefix(f, tmp))
	}
	if _, err := fmt.Fprintln(stdout, c.output); err != nil {
		return err
	}
	if c.verbose {
		var total int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
		fmt.Fprintf(stderr, "export: %d Parquet files, %d bytes, under %s\n", len(files), total, c.output)
	}
	return nil
}
