//go:build cgo

package main

import "io"

func parquetMain(args []string, stdout, stderr io.Writer) int { return 1 }
