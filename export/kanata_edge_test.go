package export

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

var (
	kText    = chronon.MustFormat2[uint64, string]("kanata test op seq={} text={}", chronon.WithFlow(0))
	kFlushF  = chronon.MustFormat1[uint64]("kanata test squash seq={}", chronon.WithFlush(0))
	kBegin   = chronon.MustFormat2[uint32, uint64]("kanata test begin {} {}", chronon.WithKind(schema.KindSpanBegin, schema.RoleLane, schema.RoleFlow))
	kEndF    = chronon.MustFormat2[uint32, uint64]("kanata test end {} {}", chronon.WithKind(schema.KindSpanEnd, schema.RoleLane, schema.RoleFlow))
	kCatWait = chronon.MustSpan("kanata test wait", chronon.WithCategory(must(chronon.RegisterCategory("memstall", "waiting on memory"))))
)

func must(m uint64, err error) uint64 {
	if err != nil {
		panic(err)
	}
	return m
}

// edgeTrace writes a trace with what the pipeline does not: text with a
// newline and a tab, a unit name with a tab, unnamed begin/end spans,
// overlapping stages on a lane, a stall by category, events after a flush
// and a span never ended.
func edgeTrace(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "edge.ctrace")
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.is\tsue")
	require.NoError(t, err)
	// Instruction 1: label with a newline and a tab, overlapping stages.
	kText.Emit(u, 10, 1, "add r1,\tr2\nsecond line")
	kSpan.Complete(u, 10, 5, 0, 1)
	kSpan.Complete(u, 12, 1, 1, 1)    // begins while the first is open on lane 0
	kCatWait.Complete(u, 12, 2, 0, 1) // a stall by its category: lane 1
	kBegin.Emit(u, 13, 0, 1)          // unnamed: the unit's last path element
	kEndF.Emit(u, 16, 0, 1)
	// Instruction 2: flushed, then more events of its flow (ignored).
	kSpan.Complete(u, 11, 10, 2, 2)
	kFlushF.Emit(u, 14, 2)
	kText.Emit(u, 15, 2, "after the flush")
	kSpan.Complete(u, 15, 1, 2, 2)
	// Instruction 3: a span never ended.
	kBegin.Emit(u, 17, 1, 3)
	kText.Emit(u, 20, 3, "last")
	require.NoError(t, tr.Close())
	return path
}

func TestKanataEdges(t *testing.T) {
	res, data, lg := exportKanataLog(t, edgeTrace(t), mmapio.Query{})
	require.Len(t, lg.insts, 3)
	text := string(data)

	in := lg.insts[0]
	require.Equal(t, `kanata test op seq=1 text=add r1,\tr2\nsecond line`, in.label, "a newline in a label is \\n, a tab \\t")
	require.True(t, in.retired)
	require.Equal(t, uint64(16), in.end, "retired at its last stage end")
	require.Equal(t, []kLogStage{
		{0, "kanata test stage", 10, 12},
		{0, "kanata test stage", 12, 13},
		{1, "kanata test wait", 12, 14},
		{0, "kanata test begin", 13, 16},
	}, in.stages)
	require.Contains(t, text, "L\t0\t1\t10 core0.is\\tsue: ", "unit names escaped")
	require.Equal(t, `is\tsue`, unitStage("core0.is\tsue"), "an unnamed span: its unit's last path element, escaped")

	in = lg.insts[1]
	require.True(t, in.flush)
	require.Equal(t, uint64(14), in.end)
	require.Equal(t, []kLogStage{{0, "kanata test stage", 11, 14}}, in.stages, "cut at the flush")
	require.NotContains(t, in.detail, "after the flush")

	in = lg.insts[2]
	require.True(t, in.retired)
	require.Equal(t, uint64(20), in.end, "closed at the last cycle")
	require.Equal(t, []kLogStage{{0, "kanata test begin", 17, 20}}, in.stages)
	require.Equal(t, uint64(1), res.UnterminatedSpans)
	require.Equal(t, uint64(1), res.Flushed)
	require.Equal(t, uint64(2), res.Retired)
}

// The validator refuses what Konata would warn about or misread: each
// log below breaks one rule of the format description.
func TestKanataValidatorRefuses(t *testing.T) {
	const ok = "Kanata\t0004\nC=\t5\nI\t0\t9\t0\nL\t0\t0\tx\nS\t0\t0\tF\nC\t1\nE\t0\t0\tF\nR\t0\t0\t0\n"
	_, err := validateKanata([]byte(ok))
	require.NoError(t, err)
	// A second instruction, flushed, that instruction 0 depends on.
	withW := strings.Replace(ok, "I\t0\t9\t0\n", "I\t0\t9\t0\nI\t1\t8\t0\nW\t0\t1\t0\nR\t1\t0\t1\n", 1)
	lg, err := validateKanata([]byte(withW))
	require.NoError(t, err)
	require.Equal(t, []kLogDep{{producer: 1, cycle: 5}}, lg.insts[0].deps)
	bad := map[string]string{
		"header":          strings.Replace(ok, "0004", "0003", 1),
		"no newline":      strings.TrimSuffix(ok, "\n"),
		"before I":        strings.Replace(ok, "I\t0\t9\t0\nL\t0\t0\tx\n", "L\t0\t0\tx\nI\t0\t9\t0\n", 1),
		"sparse ids":      strings.Replace(ok, "I\t0\t9\t0", "I\t1\t9\t0", 1),
		"going back":      strings.Replace(ok, "C\t1", "C\t-1", 1),
		"C 0":             strings.Replace(ok, "C\t1", "C\t0", 1),
		"S twice":         strings.Replace(ok, "C\t1\n", "S\t0\t0\tX\nC\t1\n", 1),
		"E unmatched":     strings.Replace(ok, "E\t0\t0\tF", "E\t0\t0\tG", 1),
		"open at R":       strings.Replace(ok, "E\t0\t0\tF\n", "", 1),
		"no R":            strings.Replace(ok, "R\t0\t0\t0\n", "E\t0\t1\tF\n", 1),
		"two R":           ok + "R\t0\t1\t0\n",
		"after R":         ok + "L\t0\t1\tlate\n",
		"raw newline":     strings.Replace(ok, "L\t0\t0\tx", "L\t0\t0\tx\ny", 1),
		"tab in label":    strings.Replace(ok, "L\t0\t0\tx", "L\t0\t0\tx\ty", 1),
		"control":         strings.Replace(ok, "L\t0\t0\tx", "L\t0\t0\tx\x1b", 1),
		"retire id":       strings.Replace(ok, "R\t0\t0\t0", "R\t0\t3\t0", 1),
		"unknown command": strings.Replace(ok, "C\t1\n", "Q\t1\n", 1),
		"W producer":      strings.Replace(ok, "C\t1\n", "W\t0\t4\t0\nC\t1\n", 1),
		"W consumer":      strings.Replace(ok, "C\t1\n", "W\t3\t0\t0\nC\t1\n", 1),
		"W itself":        strings.Replace(ok, "C\t1\n", "W\t0\t0\t0\nC\t1\n", 1),
		"W type":          strings.Replace(ok, "I\t0\t9\t0\n", "I\t0\t9\t0\nI\t1\t8\t0\nW\t0\t1\t2\nR\t1\t0\t1\n", 1),
		"W after R":       ok + "W\t0\t0\t0\n",
		"W twice":         strings.Replace(ok, "I\t0\t9\t0\n", "I\t0\t9\t0\nI\t1\t8\t0\nW\t0\t1\t0\nW\t0\t1\t0\nR\t1\t0\t1\n", 1),
		"empty line":      strings.Replace(ok, "C\t1\n", "\nC\t1\n", 1),
	}
	for name, log := range bad {
		_, err := validateKanata([]byte(log))
		require.Error(t, err, name)
	}
}

// An export into an unwritable place fails and says where.
func TestKanataOutputError(t *testing.T) {
	r, err := mmapio.Open(pipesimTrace(t, 10))
	require.NoError(t, err)
	defer r.Close()
	out := filepath.Join(t.TempDir(), "missing", "x.kanata")
	_, err = Export(r, mmapio.Query{}, out, WithFormat(FormatKanata))
	require.Error(t, err)
	require.Contains(t, err.Error(), out)
	_, statErr := os.Stat(out)
	require.True(t, os.IsNotExist(statErr))
}

// An export over an existing, longer file (the same export run again, or
// another) leaves exactly the new log: the writer opens without
// truncating and cuts the file on its own goroutine.
func TestKanataOverwritesLongerFile(t *testing.T) {
	trace := pipesimTrace(t, 30)
	_, fresh, _ := exportKanataLog(t, trace, mmapio.Query{})
	r, err := mmapio.Open(trace)
	require.NoError(t, err)
	defer r.Close()
	out := filepath.Join(t.TempDir(), "again.kanata")
	require.NoError(t, os.WriteFile(out, []byte(strings.Repeat("stale line\n", 300_000)), 0o644))
	_, err = Export(r, mmapio.Query{}, out, WithFormat(FormatKanata))
	require.NoError(t, err)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, string(fresh), string(got))
}

// A write failing in the middle (a full disk) ends the export with the
// error naming the file, and stops its goroutines (the feeder reading
// ahead, the writer) rather than leaving them blocked.
func TestKanataWriteErrorStops(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	r, err := mmapio.Open(pipesimTrace(t, 20_000)) // a log of about ten chunks
	require.NoError(t, err)
	defer r.Close()
	before := runtime.NumGoroutine()
	res, err := Export(r, mmapio.Query{}, "/dev/full", WithFormat(FormatKanata))
	require.Error(t, err)
	require.Contains(t, err.Error(), "/dev/full")
	require.Less(t, res.FlowEvents, uint64(6*20_000), "stopped at the first failed chunk, not at the end")
	// Polled here: require.Eventually runs its condition on a goroutine.
	for end := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left running")
}
