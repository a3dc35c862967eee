package mmapio

import (
	"errors"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// Open maps the file at path and validates its header, schema and footer
// before trusting any offset or size in them. A file without a usable footer
// is recovered by walking its blocks (see Status). Errors name the file, the
// section and the byte offset (*schema.FormatError); a file that is not a
// trace at all gives an error matching ErrNotATrace.
func Open(path string, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	f, err := tracefile.Open(path, o.file())
	if err != nil {
		return nil, err
	}
	return newReader(f, o), nil
}

// OpenBytes reads a trace held in memory; name is used in error messages.
// data must not change while the Reader is in use.
func OpenBytes(name string, data []byte, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	f, err := tracefile.OpenBytes(name, data, o.file())
	if err != nil {
		return nil, err
	}
	return newReader(f, o), nil
}

// Probe opens path only to classify it.
func Probe(path string) (Status, error) {
	r, err := Open(path)
	if err != nil {
		if errors.Is(err, ErrNotATrace) {
			return Status{State: StateNotATrace}, err
		}
		return Status{}, err
	}
	defer r.Close()
	return r.Status(), nil
}

func newReader(f *tracefile.File, o options) *Reader {
	r := &Reader{f: f, opts: o}
	r.buildTables()
	return r
}
