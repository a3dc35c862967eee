//go:build unix

package main

import (
	"os/signal"
	"syscall"
)

// Past a file size limit (ulimit -f) a write raises SIGXFSZ. Go ignores it
// on its own threads, but DuckDB (sql, the Parquet export) writes on
// threads of its own, where it killed the process (status 153) before the
// temporaries could be removed. Ignored in the whole process, such a write
// fails with EFBIG instead: the command says "file too large", cleans up
// and exits 1, as every other command does.
func init() {
	signal.Ignore(syscall.SIGXFSZ)
}
