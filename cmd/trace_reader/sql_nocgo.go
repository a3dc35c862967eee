//go:build !cgo

package main

import (
	"fmt"
	"io"
)

// Without cgo there is no DuckDB: sql and the Parquet export say so.

func sqlMain(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			writeSQLHelp(stdout)
			return 0
		}
	}
	fmt.Fprintln(stderr, "trace_reader: sql needs a build with cgo (DuckDB); this one was built with CGO_ENABLED=0")
	return 1
}

func parquetMain(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "trace_reader: export --format parquet needs a build with cgo (DuckDB); this one was built with CGO_ENABLED=0")
	return 1
}
