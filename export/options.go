package export

import (
	"errors"
	"fmt"
)

// Formats the exporter writes.
const (
	FormatPerfetto   = "perfetto"
	FormatChromeJSON = "chrome-json"
	FormatKanata     = "kanata" // Konata's pipeline log; one file, not split
)

// DefaultMaxFileBytes keeps each output file small enough for browsers.
const DefaultMaxFileBytes = 512 << 20

// Option configures an export. Options validate their argument and Export
// returns the first error, before it creates any file. No options: Perfetto,
// one cycle per nanosecond, files of at most DefaultMaxFileBytes.
type Option func(*options) error

type options struct {
	format     string
	nsPerCycle float64
	nsSet      bool // WithNsPerCycle was given: it wins over the trace's time base
	maxBytes   int64
	progress   func(done, total uint64)
	processes  []string
	liveState  func(bytes int64)
}

func defaults() options {
	return options{format: FormatPerfetto, nsPerCycle: 1, maxBytes: DefaultMaxFileBytes}
}

// WithProcesses shows the units named "<label>/<unit>" for each label given
// (the units of a trace merged from several runs, see mmapio.Multi) as one
// process per label: a Perfetto process track, a Chrome JSON pid, with the
// unit's dotted path nested under it. Other units stay under the
// simulation's track. Flows are joined only within a label. Without
// this option the labels are those a merged trace's metadata names
// (rewrite.Merge writes "<label>/file" for each input), so a
// merged file read later is drawn the same way.
func WithProcesses(labels []string) Option {
	return func(o *options) error {
		o.processes = labels
		return nil
	}
}

// WithFormat selects the output format: FormatPerfetto (the default),
// FormatChromeJSON or FormatKanata.
func WithFormat(format string) Option {
	return func(o *options) error {
		if format != FormatPerfetto && format != FormatChromeJSON && format != FormatKanata {
			return fmt.Errorf("export: unknown format %q (%s, %s or %s)", format, FormatPerfetto, FormatChromeJSON, FormatKanata)
		}
		o.format = format
		return nil
	}
}

// WithNsPerCycle maps one cycle to ns nanoseconds, in (0, 1e9]. Without
// it, a trace with a time base (chronon.WithTimeBase) is exported in real
// time, each unit's cycles with its own clock when it has one; one without
// has 1 ns per cycle.
// Below 1 (a clock over 1 GHz) several cycles would share a nanosecond,
// and both formats' viewers keep whole nanoseconds (Perfetto's timestamps
// are integers; its JSON importer rounds to ns): the export then uses 1 ns
// per cycle, so that every cycle stays distinct, and says so in
// Result.NsPerCycle and Result.TimeScale. Timestamps that fall between two
// nanoseconds (a time base under a nanosecond, or a fractional ns) are
// rounded and counted in Result.RoundedTimestamps.
func WithNsPerCycle(ns float64) Option {
	return func(o *options) error {
		if !(ns > 0) || ns > 1e9 {
			return fmt.Errorf("export: ns per cycle %v is not in (0, 1e9]", ns)
		}
		o.nsPerCycle, o.nsSet = ns, true
		return nil
	}
}

// WithMaxFileBytes splits the output into files of about n bytes, cut
// between cycles (default DefaultMaxFileBytes; 0: never split).
func WithMaxFileBytes(n int64) Option {
	return func(o *options) error {
		if n < 0 {
			return errors.New("export: negative file size limit")
		}
		o.maxBytes = n
		return nil
	}
}

// WithProgress calls f every 65536 events from the exporting goroutine with
// how far the export is, in cycles: done of the total cycles of the window
// (the query's cycle range clipped to the file's, or the whole file). f must
// be quick; it is called from the export loop.
func WithProgress(f func(done, total uint64)) Option {
	return func(o *options) error {
		if f == nil {
			return errors.New("export: nil progress function")
		}
		o.progress = f
		return nil
	}
}

// WithLiveState calls f from the exporting goroutine with the bytes of
// what the export keeps live beyond its reader's memory budget (the Kanata
// export's instructions in flight and its per-flow event counts),
// whenever that has grown or shrunk by an eighth since the last call, and
// with 0 at the end. A process that bounds its memory with a soft limit
// (debug.SetMemoryLimit, as trace_reader does from --memory) adds it to
// the limit: a limit below what is live makes the garbage collector run
// without end (3M instructions in flight took twice the time).
func WithLiveState(f func(bytes int64)) Option {
	return func(o *options) error {
		if f == nil {
			return errors.New("export: nil live state function")
		}
		o.liveState = f
		return nil
	}
}
