//go:build cgo

package tracesql

// placeholder until the Parquet export is written
