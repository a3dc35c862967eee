package analysis

import "errors"

// Option configures Stats. Options validate their argument; Stats returns
// the first error before reading anything. No options: no progress reports.
type Option func(*options) error

type options struct {
	progress func(done, total uint64)
}

// WithProgress calls f every 65536 events from the reading goroutine with
// how far Stats is, in cycles: done of the total cycles of the window (the
// query's cycle range clipped to the file's, or the whole file). f must be
// quick.
func WithProgress(f func(done, total uint64)) Option {
	return func(o *options) error {
		if f == nil {
			return errors.New("analysis: nil progress function")
		}
		o.progress = f
		return nil
	}
}
