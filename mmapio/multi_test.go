package mmapio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

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

func TestMultiLabelsClash(t *testing.T) {
	dir := t.TempDir()
	d1, d2 := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	o := ctracetest.W1BenchOptions()
	paths := []string{
		writeW1T(t, d1, "run.ctrace", 100, 2, 1, o),
		writeW1T(t, d2, "run.ctrace", 100, 2, 2, o),
		writeW1T(t, dir, "r.ctrace", 100, 2, 3, o, schema.KeyValue{Key: "rank", Value: "0"}),
		writeW1T(t, dir, "s.ctrace", 100, 2, 4, o, schema.KeyValue{Key: "rank", Value: "0"}),
	}
	m, err := OpenAll(paths)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, []string{"run", "run#2", "rank0", "rank0#2"}, Labels(m.Readers()))
	require.Equal(t, "run#2/core0.fetch", m.UnitName(1, 1))
}

func TestOpenAllErrorNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, []byte("not a trace at all, long enough to hold a header .................."), 0o644))
	_, err := OpenAll([]string{refPath("raw.ctrace"), bad})
	require.ErrorIs(t, err, ErrNotATrace)
	require.Contains(t, err.Error(), bad)
}
