package tracesql

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// partitionPrefix starts the name of a table's partition directory.
const partitionPrefix = "trace="

// PartitionDir names the partition directory of a label: trace=<label>,
// the label percent-encoded as DuckDB's partitioned writer encodes a value
// (every byte but A-Z a-z 0-9 - _ . ~ as %XX), which DuckDB, Polars, pandas
// and Spark decode when they read the partition's value: a label such as
// "a=b" or "50%" reads back as itself.
func PartitionDir(label string) string {
	const hex = "0123456789ABCDEF"
	b := []byte(partitionPrefix)
	for i := 0; i < len(label); i++ {
		switch c := label[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b = append(b, c)
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// PublishPartition moves the tables of one trace's export (stage/<table>/
// part-*.parquet, as ExportParquet writes them) into the dataset dir as
// that trace's Hive partition of every table: dir/<table>/trace=<label>/
// (PartitionDir: the label percent-encoded).
// Each partition appears whole, by a rename (stage must be on dir's file
// system: a directory inside dir whose name starts with '.', which readers
// skip); a partition the label had is replaced, and the label's partitions
// of tables this export has not are removed, so a re-exported trace is
// this export's tables only. Exporters of other labels may publish into
// dir at the same time; two of the same label are serialized by a lock
// file (dir/.trace=<label>.lock), the last one wins, never a mix of the
// two. stage is empty after a successful publish.
func PublishPartition(dir, label, stage string) error {
	if label == "" || label == "." || label == ".." || strings.ContainsAny(label, `/\`) || strings.HasPrefix(label, ".") {
		return fmt.Errorf("%s: %q cannot name a partition directory (a file's label: its rank, else its name)", dir, label)
	}
	part := PartitionDir(label)
	ents, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	unlock, err := lockPartition(filepath.Join(dir, "."+part+".lock"))
	if err != nil {
		return fmt.Errorf("%s: lock for %s: %w", dir, part, err)
	}
	defer unlock()
	fresh := map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		fresh[e.Name()] = true
		table := filepath.Join(dir, e.Name())
		if err := os.Mkdir(table, 0o777); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if err := replaceDir(filepath.Join(stage, e.Name()), filepath.Join(table, part), filepath.Join(stage, ".old-"+e.Name())); err != nil {
			return fmt.Errorf("%s: %s: %w", dir, filepath.Join(e.Name(), part), err)
		}
	}
	// The label's partitions of tables this export has not (a format the
	// trace exported before no longer has).
	tables, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if !t.IsDir() || fresh[t.Name()] || strings.HasPrefix(t.Name(), ".") {
			continue
		}
		old := filepath.Join(dir, t.Name(), part)
		if _, err := os.Lstat(old); err != nil {
			continue
		}
		aside := filepath.Join(stage, ".old-"+t.Name())
		if err := os.Rename(old, aside); err != nil {
			return fmt.Errorf("%s: %s: %w", dir, filepath.Join(t.Name(), part), err)
		}
		if err := os.RemoveAll(aside); err != nil {
			return err
		}
	}
	return nil
}

// replaceDir puts directory src in the place of dst, which may exist (its
// old contents go to aside, then are removed): atomically where the system
// can exchange two names (Linux), else by two renames, between which dst
// is missing (never partial).
func replaceDir(src, dst, aside string) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if _, serr := os.Lstat(dst); serr != nil {
		return err
	}
	if exchangeDirs(src, dst) == nil {
		return os.RemoveAll(src) // src holds the old partition now
	}
	if err := os.Rename(dst, aside); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	return os.RemoveAll(aside)
}
