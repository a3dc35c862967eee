package mmapio

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Option configures a Reader. Options validate their argument and Open
// returns the error of the first invalid one.
type Option func(*options) error

type options struct {
	decoders     int   // goroutines decoding blocks ahead of the consumer
	readAhead    int   // bytes of uncompressed blocks decoded ahead of the consumer (0: by use)
	segmentBytes int   // tests: size of a merge segment (0: from readAhead)
	memBudget    int64 // bytes of decoded data one iteration may hold (see WithMemoryBudget)
	repair       bool  // a rejected footer is replaced by the block walk (WithRepair)
	spillDir     string
	spillDirSet  bool // WithSpillDir was given (else the system's temporary directory)
}

// DefaultMemoryBudget is the memory an iteration's decoded data may take
// unless WithMemoryBudget says otherwise.
const DefaultMemoryBudget = 256 << 20

// Bounds of WithMemoryBudget.
const (
	MinMemoryBudget = 1 << 20
	MaxMemoryBudget = 1 << 40
)

// Default read-ahead: iterating holds decoded blocks only; a dump also holds
// their rendered text, and every fresh page costs a fault, so it reads less
// far ahead.
const (
	iterReadAhead = 4 << 20
	dumpReadAhead = 2 << 20
)

func defaultOptions() options {
	// One more decoder than processors: a decoder waiting for a block
	// another one is decoding leaves its processor to the extra one.
	return options{decoders: min(runtime.GOMAXPROCS(0), 16) + 1, memBudget: DefaultMemoryBudget}
}

// WithMemoryBudget bounds the decoded data one iteration (Events, Iter,
// a tracetext dump) holds at once: decompressed blocks, their event
// records, the merge's buffers and a dump's text; the file's mapping is
// not counted.
// Default 256 MiB; n must lie in [MinMemoryBudget, MaxMemoryBudget].
//
// The blocks that overlap the merge point are normally decoded once and
// kept until the merge is past them. When they do not fit (a file with
// many units and large blocks), the iteration goes on in windows: for each
// window the blocks are decoded again and only the window's events kept,
// so it gets slower, not bigger. A single block whose decoding alone does
// not fit (see schema.MaxBlockSize) ends the iteration with an error
// naming it.
func WithMemoryBudget(n int64) Option {
	return func(o *options) error {
		if n < MinMemoryBudget || n > MaxMemoryBudget {
			return fmt.Errorf("mmapio: WithMemoryBudget(%d): want %d..%d bytes", n, int64(MinMemoryBudget), int64(MaxMemoryBudget))
		}
		o.memBudget = n
		return nil
	}
}

// WithSpillDir names the directory of the temporary file an iteration
// writes when the blocks that overlap its merge point do not fit in the
// memory budget (see WithMemoryBudget); default the system's temporary
// directory (os.TempDir, $TMPDIR). The file is removed as soon as it is
// created and takes about what those blocks decode to. "" writes none:
// such an iteration then decodes blocks again for every window of events
// it takes, which is much slower. A dir that is not a directory is an
// error.
func WithSpillDir(dir string) Option {
	return func(o *options) error {
		if dir != "" {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				if err == nil {
					err = errors.New("not a directory")
				}
				return fmt.Errorf("mmapio: WithSpillDir(%q): %v", dir, err)
			}
		}
		o.spillDir, o.spillDirSet = dir, true
		return nil
	}
}

// WithRepair makes Open read a file whose footer fails validation (an entry
// listed twice, blocks that overlap, totals that disagree with the blocks, a
// footer that is not a FlatBuffer) as it reads a file without a footer: the
// blocks are found by walking their inline headers from the first one, each
// verified by decoding it, and Status is StateRecovered with Why naming the
// footer's fault. `trace_reader recover` opens with it, so that
// rewrite.Complete writes a correct footer for such a file (and leaves out
// the blocks that do not decode). Without it such a file fails to open.
// The header and schema must still be valid.
func WithRepair() Option {
	return func(o *options) error {
		o.repair = true
		return nil
	}
}

// withDecoders sets how many goroutines decode blocks ahead of the consumer
// (default GOMAXPROCS+1, at most 17). n must be between 1 and 256. Tests
// vary it to check the output does not depend on it.
func withDecoders(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 256 {
			return fmt.Errorf("mmapio: withDecoders(%d): want 1..256", n)
		}
		o.decoders = n
		return nil
	}
}

// withReadAhead bounds the uncompressed bytes of new blocks in the
// segments decoded ahead of the consumer (default 4 MiB when iterating,
// 2 MiB for a dump, which also holds the lines). A segment holds at least
// one block, so the bound is at least a few blocks; blocks carried over
// from earlier segments are not counted (segments.go: the memory a merge
// needs). n must be at least 64 KiB and at most 1 GiB. Tests vary it.
func withReadAhead(n int) Option {
	return func(o *options) error {
		if n < 64<<10 || n > 1<<30 {
			return fmt.Errorf("mmapio: withReadAhead(%d): want %d..%d bytes", n, 64<<10, 1<<30)
		}
		o.readAhead = n
		return nil
	}
}

// file is what opening the file takes of the options.
func (o options) file() tracefile.Options {
	return tracefile.Options{Decoders: o.decoders, MemBudget: o.memBudget, Repair: o.repair}
}

func buildOptions(opts []Option) (options, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}
