package chronon

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/chronon-sim/chronon-go/schema"
)

// Policy says what an emit does when its unit's ring is full.
type Policy uint8

const (
	// Block makes the producer wait for the writer: no event is lost. The default.
	Block Policy = iota
	// Drop never waits: the event is discarded and counted in the unit's drops.
	Drop
)

func (p Policy) String() string {
	if p == Drop {
		return "drop"
	}
	return "block"
}

// Compression levels. Level numbers follow zstd's scale; the file is always
// standard zstd that any decoder reads.
const (
	LevelNone    = 0 // store blocks raw; FLAG_COMPRESSED clear
	LevelFastest = 1
	LevelDefault = 3
	LevelBetter  = 7
	LevelBest    = 11
)

// Defaults.
const (
	DefaultBlockSize     = 128 << 10
	DefaultRingChunks    = 4
	DefaultFlushInterval = time.Second
	MinBlockSize         = 4 << 10
	MaxBlockSize         = 1 << 20
)

type config struct {
	blockSize      int
	ringSize       int
	level          int
	policy         Policy
	flushInterval  time.Duration
	workers        int
	defaultMask    uint64
	simulationName string
	configHash     uint64
	metadata       [][2]string
	autoMetadata   bool
	schemaReserve  int
	discard        bool // benchmarks only: release sealed chunks unread
	sel            selection
	hasSel         bool   // WithSelect was given: CHRONON_TRACE is not read
	selSrc         string // where sel came from, for errors
	unitIDBase     uint16 // first automatic unit id (0: 1)

	symbolLimit   int // WithSymbolLimit (0: DefaultSymbolLimit)
	ringBudget    int // WithRingBudget
	hasRingBudget bool
	timeBase      schema.TimeBase // WithTimeBase
}

func defaultConfig() config {
	return config{
		blockSize:     DefaultBlockSize,
		level:         LevelDefault,
		flushInterval: DefaultFlushInterval,
		workers:       runtime.GOMAXPROCS(0),
		defaultMask:   ^uint64(0),
		autoMetadata:  true,
	}
}

// Option configures a Tracer. Options validate their arguments and make
// Create fail with a descriptive error.
type Option func(*config) error

// WithBlockSize sets the uncompressed size of a block: a power of two from
// 4 KiB to 1 MiB (default 128 KiB, the largest zstd block, so a block is
// one zstd block with one set of tables). Larger blocks compress better
// and cost less CPU per event (the tables are built once a block); smaller
// ones make seeks cheaper.
func WithBlockSize(bytes int) Option {
	return func(c *config) error {
		if bytes < MinBlockSize || bytes > MaxBlockSize || bytes&(bytes-1) != 0 {
			return fmt.Errorf("block size %d is not a power of two between %d and %d", bytes, MinBlockSize, MaxBlockSize)
		}
		c.blockSize = bytes
		return nil
	}
}

// WithRingSize sets each unit's ring size in bytes: a power of two holding
// at least two blocks (default four blocks).
func WithRingSize(bytes int) Option {
	return func(c *config) error {
		if bytes <= 0 || bytes&(bytes-1) != 0 {
			return fmt.Errorf("ring size %d is not a power of two", bytes)
		}
		c.ringSize = bytes
		return nil
	}
}

// WithLevel sets the compression level on zstd's scale: 0 stores blocks
// raw, 1 is fastest, 3 the default, up to 22. Levels 1 to 5 use the
// record-aware encoder for blocks of fixed-size events (internal/zrec)
// and klauspost's zstd for the rest; 6 and above use klauspost's better and
// best encoders for every block.
func WithLevel(level int) Option {
	return func(c *config) error {
		if level < 0 || level > 22 {
			return fmt.Errorf("compression level %d is not 0..22", level)
		}
		c.level = level
		return nil
	}
}

// WithCompression(false) is WithLevel(LevelNone).
func WithCompression(on bool) Option {
	return func(c *config) error {
		if !on {
			c.level = LevelNone
		} else if c.level == LevelNone {
			c.level = LevelDefault
		}
		return nil
	}
}

// WithPolicy sets the backpressure policy (default Block).
func WithPolicy(p Policy) Option {
	return func(c *config) error {
		if p != Block && p != Drop {
			return fmt.Errorf("unknown policy %d", p)
		}
		c.policy = p
		return nil
	}
}

// WithFlushInterval bounds how long an event of a unit that keeps emitting
// stays in memory before it is written (default 1 s; 0 turns the periodic
// flush off, leaving Flush, full chunks and Close).
//
// The partly filled chunk belongs to the unit's goroutine, and taking it
// from another goroutine would cost the emit path an atomic store per event,
// so the flush is done by that goroutine at its next emit. A unit that has
// stopped emitting keeps its last events in memory until Unit.Flush (on its
// goroutine), Tracer.Flush or Close; a simulator that may be killed while a
// unit is idle (a hang being debugged, say) calls Unit.Flush when the unit
// goes idle.
func WithFlushInterval(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("negative flush interval %v", d)
		}
		if d > 0 && d < time.Millisecond {
			return fmt.Errorf("flush interval %v is below 1ms", d)
		}
		c.flushInterval = d
		return nil
	}
}

// WithCompressionWorkers sets how many goroutines compress blocks (default
// GOMAXPROCS, so compression can use every core). It is also the
// concurrency given to the zstd encoder.
func WithCompressionWorkers(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 256 {
			return fmt.Errorf("compression workers %d is not 1..256", n)
		}
		c.workers = n
		return nil
	}
}

// WithDefaultMask sets the category enable mask of new units (default all).
func WithDefaultMask(mask uint64) Option {
	return func(c *config) error { c.defaultMask = mask; return nil }
}

// WithSimulationName records the simulation's name in the schema.
func WithSimulationName(name string) Option {
	return func(c *config) error { c.simulationName = name; return nil }
}

// WithConfigHash records a hash of the simulator's configuration.
func WithConfigHash(h uint64) Option {
	return func(c *config) error { c.configHash = h; return nil }
}

// WithMetadata adds a key/value pair of run metadata. A key given twice, or
// also collected automatically, keeps the value given here.
//
// Key "rank" is the run's rank: trace_reader, given several files, names
// a file's units rank<value>/<unit>. Given here it replaces the rank Create
// detects (DetectRank) and drops the rank_source, local_rank and
// world_size recorded with it, which describe the launcher's numbering
// (give those keys too to keep them).
func WithMetadata(key, value string) Option {
	return func(c *config) error {
		if key == "" {
			return errors.New("metadata key is empty")
		}
		c.metadata = append(c.metadata, [2]string{key, value})
		return nil
	}
}

// WithAutoMetadata(false) stops Create from recording host, command line,
// start time, process id, Go version and the launcher's rank (DetectRank)
// (default on).
func WithAutoMetadata(on bool) Option {
	return func(c *config) error { c.autoMetadata = on; return nil }
}

// WithUnitIDBase makes automatic unit ids (NewUnit without WithUnitID)
// start at first instead of 1: the tracer gives the lowest free id at or
// above first. Ids chosen with WithUnitID are unaffected, and running past
// 65535 fails NewUnit as it does from 1.
//
// Why: the ranks of a parallel simulation each write their own file, and
// `trace_reader merge` joins them. When the files' unit ids are disjoint,
// merge copies their blocks byte for byte (about the time of copying the
// files); when ids clash (every rank numbering its units 1..N), it must
// decode, renumber and re-encode every block of every rank after the
// first. Give rank r of R ranks with up to U units each
// first = 1 + r*U (R*U <= 65535).
func WithUnitIDBase(first uint16) Option {
	return func(c *config) error {
		if first < 1 {
			return errors.New("unit id base 0: ids start at 1 (0 is reserved for events without a unit)")
		}
		c.unitIDBase = first
		return nil
	}
}

// WithSchemaReserve sets the room kept after the schema so that formats and
// units registered after the first block are rewritten in place, crash-safe
// (two slots of this many bytes; default: enough for four times the schema
// at the first block, at least 4 KiB). Past it they stay crash-safe: the
// schema moves to larger slots appended between blocks (a schema frame,
// docs/format.md), which costs a write of the schema and a seek gap.
func WithSchemaReserve(bytes int) Option {
	return func(c *config) error {
		if bytes < 0 || bytes > 64<<20 {
			return fmt.Errorf("schema reserve %d is not 0..64 MiB", bytes)
		}
		c.schemaReserve = bytes
		return nil
	}
}
