package chronon

import (
	"errors"
	"os"
)

// ErrOutputLocked is returned by Create when another tracer (in this
// process or another) is writing the same file: Create takes an exclusive
// flock(2) on the output and holds it until Close, because two writers
// would both Close with nil and leave one corrupt file. Unix only.
var ErrOutputLocked = errors.New("output file is locked by another tracer writing it")

// The output file, and three things the writer does so that the simulation's
// wall time does not pay for the file system:
//
//   - Locking. Create opens the file without O_TRUNC, takes the flock,
//     checks that the name still refers to the locked inode (another
//     tracer may have replaced it in between: then it starts over), and
//     only then empties or replaces it. Two Creates racing on one path
//     never both succeed, and the loser never truncates the winner's file.
//     Only regular files are locked (several tracers may write /dev/null).
//   - Replacing a large existing trace. O_TRUNC frees the old file's blocks
//     inside open(2), synchronously: ~55 ms for a 128 MB trace on ext4 here,
//     seconds for a multi-GB one. On unix, createOutput instead keeps the old
//     file open, puts a new file in its name, and closes the old
//     descriptor on a background goroutine, where the freeing happens while
//     the simulation runs. The new file is created beside the old one
//     (".NAME.chronon-*"), locked, given the old file's mode and, where
//     the process may (root), its owner, and renamed over the old name
//     while the old file's lock is still held: no moment exists when the
//     name is free or unlocked. Only a plain regular file with one link is
//     treated so; anything else (/dev/null, a FIFO, a symlink, a hard-linked
//     file, a directory we cannot create in) is emptied in place.
//   - Writeback. Close must fsync, and an fsync that finds most of the
//     trace dirty in the page cache waits for all of it (~90 ms for 128 MB
//     here, on the goroutine that Close waits for). So a background
//     goroutine fsyncs the file after every writebackEvery appended bytes
//     (requests coalesce; the writer never waits for it), and the final
//     fsync finds almost nothing left to do (measured: 87 ms -> 0.1 ms).
//     sync_file_range(SYNC_FILE_RANGE_WRITE), as RocksDB's bytes_per_sync
//     uses, was tried first and left the final fsync at ~65 ms on ext4: the
//     journal commit, not the data, was the cost. An error from a
//     background fsync is kept and returned by Close, never dropped: Linux
//     reports a writeback error to one fsync only, so ignoring it here
//     would let the final fsync succeed over lost data.

// writebackEvery is how many appended bytes trigger a writeback request.
const writebackEvery = 8 << 20

// replaceMin is the smallest existing file worth replacing by unlink rather
// than truncating in open(2).
const replaceMin = 1 << 20

// osFile is the output file as the writer uses it.
type osFile struct {
	*os.File
	released chan struct{} // closed once the replaced file's descriptor is closed; nil if none
	syncer   *syncer
}

// startWriteback asks the background syncer for an fsync of the whole file
// (the range is what the writer appended since its last request; fsync has
// no narrower form that also commits the journal). It never waits.
func (f *osFile) startWriteback(_, _ int64) {
	if f.syncer == nil {
		f.syncer = startSyncer(f.File)
	}
	f.syncer.request()
}

// stopWriteback stops the background syncer and returns its first error.
func (f *osFile) stopWriteback() error {
	if f.syncer == nil {
		return nil
	}
	return f.syncer.stop()
}

// waitReleased waits for the background close of a replaced file.
func (f *osFile) waitReleased() {
	if f.released != nil {
		<-f.released
	}
}

// writebacker is implemented by outputs that can write back early: the
// writer calls startWriteback for each writebackEvery bytes appended at
// [off, off+n), and stopWriteback before its final fsync.
type writebacker interface {
	startWriteback(off, n int64)
	stopWriteback() error
}

// syncer is the background fsync goroutine of one output file.
type syncer struct {
	f    *os.File
	req  chan struct{} // capacity 1: requests made while one runs coalesce
	done chan struct{}
	err  error // first fsync error; read after done is closed
}

func startSyncer(f *os.File) *syncer {
	s := &syncer{f: f, req: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for range s.req {
			if err := s.f.Sync(); err != nil && s.err == nil {
				s.err = err
			}
		}
	}()
	return s
}

func (s *syncer) request() {
	select {
	case s.req <- struct{}{}:
	default: // one is pending already
	}
}

func (s *syncer) stop() error {
	close(s.req)
	<-s.done
	return s.err
}

// releaser is implemented by outputs that release a replaced file in the
// background; Close waits for it so no goroutine outlives the tracer.
type releaser interface{ waitReleased() }

// vecWriter is implemented by outputs that write several buffers at an
// offset in one call (pwritev on Unix); writeVecAt writes each buffer with
// WriteAt otherwise (tests' failing files, other systems).
type vecWriter interface {
	writeVecAt(bufs [][]byte, off int64) error
}

// writeVecAt writes bufs back to back at off.
func writeVecAt(f outFile, bufs [][]byte, off int64) error {
	if v, ok := f.(vecWriter); ok {
		return v.writeVecAt(bufs, off)
	}
	for _, b := range bufs {
		if _, err := f.WriteAt(b, off); err != nil {
			return err
		}
		off += int64(len(b))
	}
	return nil
}
