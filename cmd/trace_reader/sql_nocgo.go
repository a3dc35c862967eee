//go:build !cgo

package main

import (
	"errors"
	"io"
)

// Without cgo there is no DuckDB: sql and the Parquet export say so.

func sqlCommand(*config, io.Writer) error {
	return errors.New("sql needs a build with cgo (DuckDB); this one was built with CGO_ENABLED=0")
}

func exportParquet(*config, io.Writer, io.Writer) error {
	return errors.New("export --format parquet needs a build with cgo (DuckDB); this one was built with CGO_ENABLED=0")
}
