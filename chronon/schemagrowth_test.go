package chronon_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

const growChildEnv = "CHRONON_SCHEMA_GROWTH_CHILD"

// growName and growText are what iteration i registers: long names, so the
// schema outgrows the default 4 KiB reserve after a few dozen iterations.
func growName(i int) string {
	return fmt.Sprintf("grow.cluster%d.core.unit.with.a.long.name.%d", i%7, i)
}
func growText(i int) string { return fmt.Sprintf("grow format %d registered late value={}", i) }

// TestSchemaGrowthChild is the child of TestSchemaGrowthSurvivesSIGKILL: it
// registers a unit and a format per iteration, forever, emits with them
// (and with every unit 0 event using the newest format), flushes, and
// reports how many events are flushed.
func TestSchemaGrowthChild(t *testing.T) {
	path := os.Getenv(growChildEnv)
	if path == "" {
		t.Skip("only runs as the child of TestSchemaGrowthSurvivesSIGKILL")
	}
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	if err != nil {
		t.Fatal(err)
	}
	first, err := tr.NewUnit("first")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := 0; ; i++ {
		f, err := chronon.NewFormat1[uint64](growText(i))
		if err != nil {
			t.Fatal(err)
		}
		u, err := tr.NewUnit(growName(i))
		if err != nil {
			t.Fatal(err)
		}
		f.Emit(u, uint64(i), uint64(i))
		f.Emit(first, uint64(i), uint64(i))
		n += 2
		if err := tr.Flush(); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("flushed %d schema %d\n", n, i)
	}
}

// Units and formats registered after the schema outgrew its reserve are on
// disk before the first block that uses them: a writer killed with SIGKILL
// while it keeps registering leaves a file whose every recovered event has
// its unit's name and its format's text.
func TestSchemaGrowthSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: starts and kills a child process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "grow.ctrace")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSchemaGrowthChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), growChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	flushed, iters := 0, 0
	deadline := time.Now().Add(60 * time.Second)
	for sc.Scan() {
		var n, i int
		if _, err := fmt.Sscanf(sc.Text(), "flushed %d schema %d", &n, &i); err == nil {
			flushed, iters = n, i
		}
		if iters >= 400 || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait(), "the child must have died by the signal")
	require.GreaterOrEqual(t, iters, 400, "child stderr: %s", stderr.String())

	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, mmapio.StateRecovered, r.Status().State, r.Status().String())
	_, schemaSize := rawread.File(r).SchemaSection()
	require.Greater(t, schemaSize, int64(3*4096), "the schema outgrew the default reserve several times")
	got := 0
	for ev := range r.Events(mmapio.Query{}) {
		msg := ev.Message()
		want := growText(int(ev.Cycle))
		want = strings.Replace(want, "{}", strconv.FormatUint(ev.Cycle, 10), 1)
		require.Equal(t, want, msg, "event at cycle %d", ev.Cycle)
		name := r.UnitName(ev.UnitID)
		require.True(t, name == "first" || name == growName(int(ev.Cycle)), "event at cycle %d: unit %d is named %q", ev.Cycle, ev.UnitID, name)
		got++
	}
	require.NoError(t, r.Err())
	require.GreaterOrEqual(t, got, flushed, "every flushed event is recovered")
}

// A closed file whose schema outgrew its slots several times (schema frames
// between its blocks) is accepted by the oracle, which also streams it by
// its inline headers to the same text as its footer-driven dump; the
// original reader's view (footer blocks, header schema) names everything.
// A raw file (compression off) with frames sets FLAG_COMPRESSED: a frame is
// zstd data, and its raw blocks read the same (equal sizes).
func TestSchemaFramesOracle(t *testing.T) {
	oracle := oraclePath(t)
	for _, level := range []int{chronon.LevelDefault, chronon.LevelNone} {
		tr, path := create(t, chronon.WithLevel(level), chronon.WithFlushInterval(0), chronon.WithBlockSize(4096), chronon.WithSchemaReserve(4096))
		first := units(t, tr, 1)[0]
		var want []rbEvent
		for i := range 300 {
			f, err := chronon.NewFormat1[uint64](growText(1000*(level+1) + i))
			require.NoError(t, err)
			u, err := tr.NewUnit(growName(i))
			require.NoError(t, err)
			for _, v := range []*chronon.Unit{u, first} {
				f.Emit(v, uint64(i), uint64(i))
				want = append(want, ev(uint64(i), f.ID(), 1, v, 1, u64(uint64(i))))
			}
			if i%10 == 0 {
				require.NoError(t, tr.Flush())
			}
		}
		require.NoError(t, tr.Close())
		got := readBack(t, path)
		requireSameEvents(t, want, got.events)
		require.Len(t, got.schema.Units, 301)
		require.Greater(t, got.hdr.SchemaOffset, got.hdr.FirstBlockOffset, "the schema lives in a frame after the first block")
		require.NotZero(t, got.hdr.Flags&schema.FlagCompressed)
		_, walked := walkFile(t, path)
		requireSameEvents(t, want, walked)

		oracleCheck(t, path)
		dump, err := exec.Command("/usr/bin/python3", oracle, "dump", path).CombinedOutput()
		require.NoError(t, err, "%s", dump)
		stream, err := exec.Command("/usr/bin/python3", oracle, "stream", path).CombinedOutput()
		require.NoError(t, err, "%s", stream)
		require.Equal(t, string(dump), string(stream), "level %d", level)
		require.NotContains(t, string(dump), "[unknown format]")
		require.Equal(t, len(want), bytes.Count(dump, []byte("\n")))
	}
}
