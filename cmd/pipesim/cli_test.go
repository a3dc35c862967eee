package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/cli/clitest"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// pipesimRun runs a command line in process: status, stdout, stderr.
func pipesimRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := command(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// unitIDs and events of a trace: what two spellings of one run must agree on.
func shape(t *testing.T, path string) (ids []uint16, events uint64) {
	t.Helper()
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	for _, u := range r.Schema().Units {
		ids = append(ids, u.ID)
	}
	return ids, r.Footer().TotalEvents
}

// The single-dash spellings of Go's flag package that scripts of the first
// releases use still work, each with one deprecation note saying what to
// write; the run is the one the new spellings make. -n is a short alias:
// no note.
func TestOldSpellingsStillWork(t *testing.T) {
	dir := t.TempDir()
	old, now := filepath.Join(dir, "old.ctrace"), filepath.Join(dir, "new.ctrace")
	code, out, stderr := pipesimRun("-n", "300", "-hazards", "-unit-id-base", "7", "-o="+old)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, out)
	require.Equal(t, "pipesim: -hazards is deprecated and will stop working in the next release: write --hazards\n"+
		"pipesim: -unit-id-base is deprecated and will stop working in the next release: write --unit-id-base\n"+
		"pipesim: -o="+old+" is deprecated and will stop working in the next release: write -o "+old+"\n", stderr)
	code, _, stderr = pipesimRun(now, "--hazards", "--instructions=300", "--unit-id-base", "7", "-o", now)
	require.Equal(t, 2, code, "an operand is refused")
	require.Equal(t, "pipesim: unexpected argument \""+now+"\"\nRun 'pipesim --help' for usage.\n", stderr)
	code, _, stderr = pipesimRun("--hazards", "--instructions=300", "--unit-id-base", "7", "-o", now)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	oldIDs, oldEvents := shape(t, old)
	newIDs, newEvents := shape(t, now)
	require.Equal(t, []uint16{7, 8, 9, 10, 11}, newIDs, "--hazards: five stages, no ROB unit")
	require.Equal(t, newIDs, oldIDs)
	require.Equal(t, newEvents, oldEvents)
	require.Positive(t, newEvents)
}

// A usage error is one line, then where the help is (the flag package
// printed its error twice), status 2, nothing on stdout.
func TestUsageErrorIsOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--bogus", "-o", "x"}, `unknown option "--bogus"`},
		{[]string{"--version=1"}, "option --version takes no value"},
		{[]string{"-o"}, "option -o needs a value (FILE)"},
		{[]string{"-n", "many", "-o", "x"}, `-n "many": want a number of instructions`},
		{[]string{"--hazards"}, "-o FILE is required"},
		{[]string{"-o", "x", "--", "--hazards"}, `unexpected argument "--hazards"`},
	} {
		code, out, stderr := pipesimRun(c.args...)
		require.Equal(t, 2, code, "%q", c.args)
		require.Empty(t, out)
		require.Equal(t, "pipesim: "+c.msg+"\nRun 'pipesim --help' for usage.\n", stderr, "%q", c.args)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"-o", "x", "--help"}} {
		code, out, stderr := pipesimRun(args...)
		require.Equal(t, 0, code, "%q", args)
		require.Empty(t, stderr)
		require.True(t, strings.HasPrefix(out, "Usage: pipesim [-n INSTRUCTIONS] [--hazards] [--unit-id-base FIRST] -o FILE\n"), out)
		for _, f := range flags {
			require.Contains(t, out, "\n  "+strings.Join(f.Names, ", "), "%q", args)
		}
	}
}

// --version and version of the built binary print the build the toolchain
// recorded; from a git checkout, the commit and whether the tree was
// dirty. docs/cli.md holds pipesim's reference as the tables make it.
func TestBuiltBinary(t *testing.T) {
	bin := clitest.Build(t, "pipesim")
	clitest.CheckVersion(t, bin, "pipesim")
	clitest.CheckDocs(t, bin, "pipesim")

	repo := clitest.NewRepo(t)
	v := clitest.CheckVersion(t, repo.Build("pipesim"), "pipesim")
	require.Contains(t, v, "\ncommit "+repo.Commit+" (")
	require.NotContains(t, v, "dirty")
	repo.Touch()
	v = clitest.CheckVersion(t, repo.Build("pipesim"), "pipesim")
	require.Contains(t, v, "\ncommit "+repo.Commit+" (")
	require.Contains(t, v, ", dirty (uncommitted changes)\n")
}
