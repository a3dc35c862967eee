//go:build cgo

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// exportParquet runs `export --format parquet -o DIR FILE...`: the event
// tables as Parquet, one directory per table (tracesql.ExportParquet). It
// prints DIR, as the other formats print the files they write.
func exportParquet(c *config, stdout, stderr io.Writer) error {
	if c.dataset != "" {
		return exportDataset(c, stdout, stderr)
	}
	for _, f := range c.files {
		if err := notInput(f, c.output); err != nil {
			return err
		}
	}
	// The tables go to a temporary directory beside DIR, renamed into place
	// when complete: a failed or interrupted export leaves no partial
	// files, and an existing DIR is never mixed with another run's tables.
	// DIR a symlink: the export goes where it points, as -o FILE writes
	// through a link (the link stays).
	out := linkTarget(filepath.Clean(c.output))
	existed := false
	if st, err := os.Stat(out); err == nil {
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
	for _, r := range db.Readers() { // what a damaged or cut file leaves out, as every reading command says
		warnDamaged(c, r)
	}
	sweptTemps(c, stderr, filepath.Dir(out), filepath.Base(out))
	_, tmp, err := createTemp(out, true)
	if err != nil {
		return fmt.Errorf("export: %s: cannot create: %w", c.output, pathErr(err))
	}
	defer func() { os.RemoveAll(tmp); forgetTemp(tmp) }()
	files, err := db.ExportParquet(tmp)
	warnImpossibleSpans(c, db, c.files)
	if err == nil {
		if existed {
			err = os.Remove(out) // empty (checked above): the export takes its place
		}
		if err == nil {
			unmarkTemp(tmp) // the marker is the writer's, not the export's
			err = os.Rename(tmp, out)
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
		fmt.Fprintf(stderr, "export: %d Parquet files, %d bytes, under %s\n", len(files), totalSize(files), c.output)
		verboseImpossible(stderr, db)
	}
	return nil
}

// linkTarget is where path leads when it is a symlink (followed to the
// end; a dangling link: the name it holds), else path.
func linkTarget(path string) string {
	li, err := os.Lstat(path)
	if err != nil || li.Mode()&os.ModeSymlink == 0 {
		return path
	}
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	t, err := os.Readlink(path)
	if err != nil {
		return path
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(path), t)
	}
	return t
}

// exportDataset runs `export --format parquet --dataset DIR FILE...`: each
// file's tables go to a temporary directory inside DIR, then become that
// file's partitions, DIR/<table>/trace=<label>/ (tracesql.PublishPartition:
// whole or not at all, replacing the label's). The label is the file's as
// sql and dump name it (rank3, else its name; a second rank3 is rank3#2).
func exportDataset(c *config, stdout, stderr io.Writer) error {
	dir := c.dataset
	for _, f := range c.files {
		if err := notInput(f, dir); err != nil {
			return err
		}
	}
	if err := notPlainExport(dir); err != nil {
		return err
	}
	labels, err := fileLabels(c.files)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("export: %s: cannot create: %w", dir, pathErr(err))
	}
	sweptTemps(c, stderr, dir, "") // every label's: killed exports of runs not exported again too
	var files []string
	for i, f := range c.files {
		written, err := exportPartition(c, f, labels[i])
		if err != nil {
			return err
		}
		files = append(files, written...)
	}
	if _, err := fmt.Fprintln(stdout, dir); err != nil {
		return err
	}
	if c.verbose {
		fmt.Fprintf(stderr, "export: %d Parquet files, %d bytes, in %d partitions of %s\n", len(files), totalSize(files), len(c.files), dir)
	}
	return nil
}

// notPlainExport refuses a DIR that holds an -o export (Parquet files
// directly in a table's directory): partitions beside them would make a
// table no reader takes whole.
func notPlainExport(dir string) error {
	tables, err := os.ReadDir(dir)
	if err != nil {
		return nil // a new dataset, or one the create will complain about
	}
	for _, t := range tables {
		if !t.IsDir() || strings.HasPrefix(t.Name(), ".") {
			continue
		}
		if parts, _ := filepath.Glob(filepath.Join(dir, t.Name(), "*.parquet")); len(parts) > 0 {
			return fmt.Errorf("export: %s holds an export's tables (%s), not a dataset's partitions: name another directory", dir, parts[0])
		}
	}
	return nil
}

// exportPartition writes one file's partitions of the dataset.
func exportPartition(c *config, file, label string) ([]string, error) {
	dir := c.dataset
	// Each run names its tables alone: by a rule that gives a format the
	// same table in every run (a span never takes a format's name).
	db, err := tracesql.Open([]string{file}, append(sqlOptions(c), tracesql.WithRunNames())...)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	for _, r := range db.Readers() {
		warnDamaged(c, r)
	}
	// A hidden directory (readers skip it) on DIR's file system, so that
	// the partitions are renamed into place.
	_, tmp, err := createTemp(filepath.Join(dir, label), true)
	if err != nil {
		return nil, fmt.Errorf("export: %s: cannot create: %w", dir, pathErr(err))
	}
	defer func() { os.RemoveAll(tmp); forgetTemp(tmp) }()
	files, err := db.ExportParquet(tmp)
	warnImpossibleSpans(c, db, []string{file})
	if err == nil {
		err = tracesql.PublishPartition(dir, label, tmp)
	}
	if err != nil {
		return nil, fmt.Errorf("export: %s", strings.ReplaceAll(sqlErrLine(err), tmp, filepath.Join(dir, "<table>", tracesql.PartitionDir(label))))
	}
	for i, f := range files {
		table, base := filepath.Split(strings.TrimPrefix(f, tmp+string(filepath.Separator)))
		files[i] = filepath.Join(dir, table, tracesql.PartitionDir(label), base)
	}
	return files, nil
}

// fileLabels are the files' labels, as sql and dump name them.
func fileLabels(paths []string) ([]string, error) {
	rs := make([]*mmapio.Reader, 0, len(paths))
	defer func() {
		for _, r := range rs {
			r.Close()
		}
	}()
	for _, p := range paths {
		r, err := mmapio.Open(p)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return mmapio.Labels(rs), nil
}

// totalSize is the files' size in bytes.
func totalSize(files []string) int64 {
	var total int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
	}
	return total
}

// verboseImpossible adds to export -v's summary the complete spans the
// spans tables left out (ending before they begin), as the other formats'
// summary and stats' notes count them.
func verboseImpossible(stderr io.Writer, db *tracesql.DB) {
	if n, _ := db.ImpossibleSpans(); n > 0 {
		fmt.Fprintf(stderr, "export: %d complete spans ending before they begin, left out of the spans tables\n", n)
	}
}
