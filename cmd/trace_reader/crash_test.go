package main

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
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
)

const crashChildEnv = "CHRONON_CRASH_CHILD"

// TestCrashChild is the child of TestRecoverAfterSIGKILL: it writes W1
// events forever, flushing after every batch and then reporting on stdout
// how many events it had emitted when the flush returned.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("only runs as the child of TestRecoverAfterSIGKILL")
	}
	w, err := workload.RegisterW1()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := chronon.Create(path, chronon.WithBlockSize(4096), chronon.WithFlushInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	units, err := workload.NewW1Units(tr, crashUnits)
	if err != nil {
		t.Fatal(err)
	}
	st := workload.NewW1State(1)
	for n := 0; ; n += crashBatch {
		w.Emit(units, &st, n, n+crashBatch)
		if err := tr.Flush(); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("flushed %d\n", n+crashBatch)
	}
}

const (
	crashUnits = 8
	crashBatch = 5000
)

// A Go-written trace recovered after its writer was killed with SIGKILL
// holds every block complete at the kill: at least the events flushed before
// the last report, and for every unit exactly a prefix of what it emitted.
func TestRecoverAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: starts and kills a child process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "killed.ctrace")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	flushed := 0
	deadline := time.Now().Add(60 * time.Second)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "flushed "); ok {
			flushed, _ = strconv.Atoi(n)
		}
		if flushed >= 20*crashBatch || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	err = cmd.Wait()
	require.Error(t, err, "the child must have died by the signal")
	require.Positive(t, flushed, "child stderr: %s", stderr.String())

	r, err := mmapio.Open(path)
	require.NoError(t, err)
	st := r.Status()
	require.Equal(t, mmapio.StateRecovered, st.State, st.String())
	got := perUnit(t, r)
	require.NoError(t, r.Close())

	// Regenerate what each unit emitted and check prefixes.
	want := w1PerUnit(t, int(st.Events)+crashBatch*4)
	total := 0
	for u, evs := range got {
		require.LessOrEqual(t, len(evs), len(want[u]), "unit %d", u)
		require.Equal(t, want[u][:len(evs)], evs, "unit %d: recovered events are not a prefix of what it emitted", u)
		total += len(evs)
	}
	require.GreaterOrEqual(t, total, flushed, "events flushed before the kill must all be recovered")

	// recover writes a complete file with the same events.
	out := filepath.Join(dir, "recovered.ctrace")
	var so, se bytes.Buffer
	require.Equal(t, 0, run([]string{"recover", path, "-o", out}, &so, &se), se.String())
	r2, err := mmapio.Open(out)
	require.NoError(t, err)
	defer r2.Close()
	require.Equal(t, mmapio.StateComplete, r2.Status().State)
	require.Equal(t, got, perUnit(t, r2))
	if _, err := ctracetest.Oracle(); err != nil {
		t.Logf("!!!!! SKIPPING THE ORACLE CHECK: %v !!!!!", err)
		return
	}
	res, err := ctracetest.RunOracle("check", out)
	require.NoError(t, err, "%s", res)
	require.Contains(t, string(res), fmt.Sprintf("OK events=%d ", total))
}

// perUnit returns each unit's event lines, in order.
func perUnit(t *testing.T, r *mmapio.Reader) map[uint16][]string {
	out := map[uint16][]string{}
	for ev := range r.Events(mmapio.Query{}) {
		out[ev.UnitID] = append(out[ev.UnitID], fmt.Sprintf("%d %s", ev.Cycle, ev.Message()))
	}
	require.NoError(t, r.Err())
	return out
}

// w1PerUnit writes the first n W1 events to a complete file and returns
// each unit's event lines.
func w1PerUnit(t *testing.T, n int) map[uint16][]string {
	path := filepath.Join(t.TempDir(), "w1.ctrace")
	_, err := workload.Run("w1", path, n, crashUnits, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	return perUnit(t, r)
}
