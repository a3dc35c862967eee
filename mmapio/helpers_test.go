package mmapio

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const refDir = "../testdata/reference"

func refPath(name string) string { return filepath.Join(refDir, name) }

// refDump returns the text the original trace_reader printed for a vector.
func refDump(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(refPath(name))
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	return b
}

// dumpText renders q's events with WriteDump.
func dumpText(t testing.TB, r *Reader, q Query, limit int) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := r.WriteDump(&buf, q, limit)
	require.NoError(t, err)
	require.Equal(t, bytes.Count(buf.Bytes(), []byte("\n")), n)
	return buf.Bytes()
}

// iterText renders q's events through the Go API (Events and AppendLine).
func iterText(t testing.TB, r *Reader, q Query) []byte {
	t.Helper()
	var buf []byte
	for ev := range r.Events(q) {
		buf = r.AppendLine(buf, &ev)
	}
	require.NoError(t, r.Err())
	return buf
}

func openT(t testing.TB, path string, opts ...Option) *Reader {
	t.Helper()
	r, err := Open(path, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func openBytesT(t testing.TB, b []byte, opts ...Option) *Reader {
	t.Helper()
	r, err := OpenBytes("test.ctrace", b, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

var testTime = time.Unix(1700000000, 0)

func itoa(i int) string { return strconv.Itoa(i) }
