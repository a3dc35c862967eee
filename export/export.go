package export

import (
	"errors"
	"fmt"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// Formats the exporter writes.
const (
	FormatPerfetto   = "perfetto"
	FormatChromeJSON = "chrome-json"
)

// DefaultMaxFileBytes keeps each output file small enough for browsers.
const DefaultMaxFileBytes = 512 << 20

// Options configure an export. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	Format       string  // FormatPerfetto or FormatChromeJSON
	NsPerCycle   float64 // nanoseconds per cycle (> 0)
	MaxFileBytes int64   // split the output into files of about this size; 0: never
	// Progress, when set, is called every 65536 events with the count so far
	// and the current cycle.
	Progress func(events, cycle uint64)
}

// DefaultOptions: Perfetto, one cycle per nanosecond, 512 MiB files.
func DefaultOptions() Options {
	return Options{Format: FormatPerfetto, NsPerCycle: 1, MaxFileBytes: DefaultMaxFileBytes}
}

// Result says what an export wrote.
type Result struct {
	Files             []string // the files written, in cycle order
	Events            uint64   // events read
	Instants          uint64
	Spans             uint64 // slices begun
	Counters          uint64 // counter samples
	FlowEvents        uint64 // events carrying a flow id
	UnmatchedEnds     uint64 // span ends with no open span (their begin was outside the window)
	UnterminatedSpans uint64 // spans still open at the end, closed at the last timestamp
}

// Export writes the events of r that q selects to path in o's format.
func Export(r *mmapio.Reader, q mmapio.Query, path string, o Options) (Result, error) {
	var res Result
	if !(o.NsPerCycle > 0) || o.NsPerCycle > 1e9 {
		return res, fmt.Errorf("export: ns per cycle %v is not in (0, 1e9]", o.NsPerCycle)
	}
	if o.MaxFileBytes < 0 {
		return res, errors.New("export: negative file size limit")
	}
	var s sink
	var err error
	switch o.Format {
	case FormatPerfetto:
		s, err = newPerfettoSink(path)
	case FormatChromeJSON:
		s, err = newChromeSink(path, r.Schema().SimulationName)
	default:
		return res, fmt.Errorf("export: unknown format %q (perfetto or chrome-json)", o.Format)
	}
	if err != nil {
		return res, err
	}
	d := newDriver(r, s, o, &res)
	err = d.run(r, q, o.Progress)
	if err != nil {
		s.finish()
	}
	res.Files = s.files()
	return res, err
}
