package mmapio

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctext"
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

// writeDump writes the dump of q's events as the text package does: the
// lines rendered by the pipeline (writeLines) with the file's units and
// formats (testLines).
func writeDump(r *Reader, w io.Writer, q Query, limit int) (int, error) {
	return r.writeLines(w, q, limit, testLines(r))
}

// testLines is the dump lines of r, as the text package builds them.
func testLines(r *Reader) *ctext.Lines {
	names := make([]string, len(r.unitNames))
	copy(names, r.unitNames)
	var maxID uint32
	for _, f := range r.formats {
		maxID = max(maxID, f.ID)
	}
	formats := ctext.NewFormatTable(maxID)
	for _, f := range r.formats {
		formats.Add(f.ID, f.program())
	}
	return ctext.NewLines(names, formats)
}

// appendLine appends ev's dump line as the text package's AppendLine does.
func appendLine(r *Reader, dst []byte, ev *Event) []byte {
	dst = ctext.AppendCycle(dst, ev.Cycle)
	dst = ctext.AppendPrefix(dst, r.UnitName(ev.UnitID))
	dst = ev.AppendMessage(dst)
	return append(dst, '\n')
}

// dumpText renders q's events as a dump (writeDump).
func dumpText(t testing.TB, r *Reader, q Query, limit int) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := writeDump(r, &buf, q, limit)
	require.NoError(t, err)
	require.Equal(t, bytes.Count(buf.Bytes(), []byte("\n")), n)
	return buf.Bytes()
}

// iterText renders q's events through the Go API (Events and appendLine).
func iterText(t testing.TB, r *Reader, q Query) []byte {
	t.Helper()
	var buf []byte
	for ev := range r.Events(q) {
		buf = appendLine(r, buf, &ev)
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

func itoa(i int) string { return strconv.Itoa(i) }
