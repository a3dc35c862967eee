package rewrite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

const refDir = "../testdata/reference"

func refPath(name string) string { return filepath.Join(refDir, name) }

var testTime = time.Unix(1700000000, 0)

func itoa(i int) string { return strconv.Itoa(i) }

func openT(t testing.TB, path string, opts ...mmapio.Option) *mmapio.Reader {
	t.Helper()
	r, err := mmapio.Open(path, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func openBytesT(t testing.TB, b []byte, opts ...mmapio.Option) *mmapio.Reader {
	t.Helper()
	r, err := mmapio.OpenBytes("test.ctrace", b, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// dumpText is the dump of q's events (tracetext.WriteDump).
func dumpText(t testing.TB, r *mmapio.Reader, q mmapio.Query, limit int) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := tracetext.WriteDump(&buf, r, q, limit)
	require.NoError(t, err)
	require.Equal(t, bytes.Count(buf.Bytes(), []byte("\n")), n)
	return buf.Bytes()
}

// multiDump is the dump of the timeline m (tracetext.WriteMultiDump).
func multiDump(t *testing.T, m *mmapio.Multi) string {
	t.Helper()
	var buf bytes.Buffer
	_, err := tracetext.WriteMultiDump(&buf, m, 0)
	require.NoError(t, err)
	return buf.String()
}

// writeW1T writes a W1 trace of n events over units units from seed to
// dir/name, with metadata md.
func writeW1T(t testing.TB, dir, name string, n, units int, seed uint64, opts ctracetest.Options, md ...schema.KeyValue) string {
	t.Helper()
	s := ctracetest.W1Schema(units)
	s.Metadata = md
	b, err := ctracetest.Build(s, ctracetest.W1Events(n, units, seed), opts)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// labelLine puts label into a single-file dump line: "[c] unit: msg"
// becomes "[c] label/unit: msg"; "[c] msg" (no unit name) stays.
func labelLine(line, label string, named bool) string {
	head, rest := line[:13], line[13:]
	if named {
		return head + label + "/" + rest
	}
	return line
}

func multiFiles(t *testing.T) []string {
	dir := t.TempDir()
	ours := ctracetest.W1BenchOptions()
	return []string{
		writeW1T(t, dir, "a.ctrace", 30000, 16, 1, ours),
		writeW1T(t, dir, "b.ctrace", 20000, 5, 7, ctracetest.Options{BlockSize: 4096, Compress: true, Level: zstd.SpeedFastest, NoUnitSets: true}),
		writeW1T(t, dir, "c.ctrace", 25000, 9, 3, ours, schema.KeyValue{Key: "rank", Value: "3"}),
		refPath("mixed-small.ctrace"), // the original C++ writer: unit 0, unknown format id
		refPath("multiblock.ctrace"),
	}
}

func sampleTrace(t testing.TB, opts ctracetest.Options) []byte {
	t.Helper()
	b, err := ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(400, 4, 11), opts)
	require.NoError(t, err)
	return b
}

// rewriteFooter is ctracetest.EditFooter: b with its footer changed by edit.
func rewriteFooter(t testing.TB, b []byte, edit func(f *schema.Footer)) []byte {
	t.Helper()
	out, err := ctracetest.EditFooter(b, edit)
	require.NoError(t, err)
	return out
}

func mustFooter(t *testing.T, b []byte) *schema.Footer {
	t.Helper()
	h, _ := schema.DecodeHeader(b)
	f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	require.NoError(t, err)
	return f
}

func requireFormatError(t *testing.T, err error, section string, offset int64, reason string) {
	t.Helper()
	var fe *schema.FormatError
	require.True(t, errors.As(err, &fe), "want a FormatError, got %v", err)
	require.Equal(t, "bad.ctrace", fe.File)
	require.Equal(t, section, fe.Section, err.Error())
	if offset >= 0 {
		require.Equal(t, offset, fe.Offset, err.Error())
	}
	require.Contains(t, err.Error(), reason)
}

func oracleCheck(t *testing.T, b []byte) {
	t.Helper()
	if _, err := ctracetest.Oracle(); err != nil {
		t.Logf("!!!!! SKIPPING THE ORACLE CHECK: %v !!!!!", err)
		return
	}
	path := filepath.Join(t.TempDir(), "check.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	out, err := ctracetest.RunOracle("check", path)
	require.NoError(t, err)
	require.Contains(t, string(out), "OK events=")
}
