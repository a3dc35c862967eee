package rewrite

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// mergeT merges m into dir/merged.ctrace and opens the result.
func mergeT(t *testing.T, m *mmapio.Multi, o MergeOptions) (*mmapio.Reader, Result) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "merged.ctrace")
	f, err := os.Create(p)
	require.NoError(t, err)
	res, err := Merge(f, m, o)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, fi.Size(), res.Bytes)
	return openT(t, p), res
}

func TestMergeReadsBackAsTheTimeline(t *testing.T) {
	// The inputs and their timeline once: both merges read the same files
	// (writing them and dumping the timeline again took a third of the
	// test under the race detector).
	m, err := mmapio.OpenAll(multiFiles(t))
	require.NoError(t, err)
	defer m.Close()
	want := multiDump(t, m)
	for _, raw := range []bool{false, true} {
		r, res := mergeT(t, m, MergeOptions{Created: testTime, RawRewrites: raw})
		require.Equal(t, string(want), string(dumpText(t, r, mmapio.Query{}, 0)))
		var total uint64
		for _, in := range m.Readers() {
			total += in.Status().Events
		}
		require.Equal(t, total, res.Events)
		require.Equal(t, mmapio.StateComplete, r.Status().State)
		// The first file keeps its ids: its blocks are copied; the others'
		// unit ids clash and are rewritten.
		require.Equal(t, m.Reader(0).NumBlocks(), res.Copied)
		require.Equal(t, res.Blocks, res.Copied+res.Rewritten)
		require.Equal(t, uint64(testTime.Unix()), r.Footer().CreatedTimestamp)
		// Formats are deduplicated: the three W1 files share two entries.
		n := 0
		for _, f := range r.Formats() {
			if f.Format.Format == "fetch pc=0x{:x} taken={}" {
				n++
			}
		}
		require.Equal(t, 1, n)
		// Metadata of each input, prefixed by its label.
		md := map[string]string{}
		for _, kv := range r.Metadata() {
			md[kv.Key] = kv.Value
		}
		require.Equal(t, "3", md["rank3/rank"])
		require.Equal(t, "w1", md["a/simulation"])
	}
}

// Files whose ids do not clash are copied block for block, compressed
// bytes untouched.
func TestMergeCopiesWithoutRecompression(t *testing.T) {
	dir := t.TempDir()
	o := ctracetest.W1BenchOptions()
	a := writeW1T(t, dir, "a.ctrace", 20000, 4, 1, o)
	m1, err := mmapio.OpenAll([]string{a})
	require.NoError(t, err)
	defer m1.Close()
	r, res := mergeT(t, m1, MergeOptions{})
	require.Equal(t, 0, res.Rewritten)
	require.Equal(t, m1.Reader(0).NumBlocks(), res.Copied)
	in, out := m1.Reader(0).Blocks(), r.Blocks()
	require.Equal(t, len(in), len(out))
	for i := range in {
		require.Equal(t, in[i].CompressedSize, out[i].CompressedSize)
	}
	var want bytes.Buffer
	for ev := range m1.Reader(0).Events(mmapio.Query{}) {
		line := tracetext.AppendLine(nil, m1.Reader(0), &ev)
		want.WriteString(labelLine(string(line), "a", true))
	}
	require.Equal(t, want.String(), string(dumpText(t, r, mmapio.Query{}, 0)))
}

func TestMergeOracle(t *testing.T) {
	if _, err := ctracetest.Oracle(); err != nil {
		t.Skip("conformance oracle not available:", err)
	}
	m, err := mmapio.OpenAll(multiFiles(t))
	require.NoError(t, err)
	defer m.Close()
	p := filepath.Join(t.TempDir(), "merged.ctrace")
	f, err := os.Create(p)
	require.NoError(t, err)
	_, err = Merge(f, m, MergeOptions{Created: time.Now()})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	out, err := ctracetest.RunOracle("check", p)
	require.NoError(t, err, "%s", out)
}
