package chronon

import "os"

// The output file, and two things the writer does so that the simulation's
// wall time does not pay for the file system:
//
//   - Replacing a large existing trace. O_TRUNC frees the old file's blocks
//     inside open(2), synchronously: ~55 ms for a 128 MB trace on ext4 here,
//     seconds for a multi-GB one. On unix, createOutput instead keeps the old
//     file open, unlinks its name, creates the new file, and closes the old
//     descriptor on a background goroutine, where the freeing happens while
//     the simulation runs. Only a plain regular file with one link is
//     treated so; anything else (/dev/null, a FIFO, a symlink, a hard-linked
//     file) gets the ordinary O_TRUNC open. The new file is a new inode
//     with mode 0644 (minus umask), as a fresh file would be.
//   - Writeback. Close must fsync, and an fsync that finds the whole trace
//     dirty in the page cache waits for all of it (~160 ms for 128 MB here).
//     So the writer starts writeback of every writebackEvery bytes as they
//     are appended (sync_file_range(SYNC_FILE_RANGE_WRITE) on Linux, a hint
//     that does not wait for the disk), as RocksDB's bytes_per_sync does,
//     and the final fsync finds little left to do. Elsewhere it is a no-op.

// writebackEvery is how many appended bytes trigger a writeback request.
const writebackEvery = 8 << 20

// replaceMin is the smallest existing file worth replacing by unlink rather
// than truncating in open(2).
const replaceMin = 1 << 20

// osFile is the output file as the writer uses it.
type osFile struct {
	*os.File
	released chan struct{} // closed once the replaced file's descriptor is closed; nil if none
}

// startWriteback asks the kernel to start writing [off, off+n) to disk.
// Errors are ignored: it is only a hint, the final fsync is what counts.
func (f osFile) startWriteback(off, n int64) { startWriteback(f.File, off, n) }

// waitReleased waits for the background close of a replaced file.
func (f osFile) waitReleased() {
	if f.released != nil {
		<-f.released
	}
}

// writebacker is implemented by outputs that can start writeback early.
type writebacker interface{ startWriteback(off, n int64) }

// releaser is implemented by outputs that release a replaced file in the
// background; Close waits for it so no goroutine outlives the tracer.
type releaser interface{ waitReleased() }

func openTruncate(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}
