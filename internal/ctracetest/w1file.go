package ctracetest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
)

// W1 benchmark trace parameters: 20 M events over 16 units, one unit per
// 64 KiB block, zstd SpeedDefault (the layout of our runtime writer).
const (
	W1BenchEvents = 20_000_000
	W1BenchUnits  = 16
)

// W1BenchOptions are the writer options of the benchmark trace.
func W1BenchOptions() Options {
	return Options{BlockSize: 64 << 10, PerUnit: true, Compress: true, Level: zstd.SpeedDefault, UnitStats: true}
}

// WriteW1File writes a W1 trace of n events over units units to path
// (atomically: a temporary file renamed into place).
func WriteW1File(path string, n, units int, opts Options) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w, err := NewWriter(tmp, W1Schema(units), opts)
	if err != nil {
		tmp.Close()
		return err
	}
	if err := W1(n, units, 1, w.Add); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Close(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// EnsureW1File returns the path of a cached W1 trace of n events in dir,
// writing it first if it does not exist.
func EnsureW1File(dir string, n, units int) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("w1-%d-%du.ctrace", n, units))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	return path, WriteW1File(path, n, units, W1BenchOptions())
}
