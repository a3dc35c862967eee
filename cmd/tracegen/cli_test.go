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

func tracegenRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := command(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// Go flag's single-dash spellings of the first releases still work, one
// deprecation note each; the file is the one the new spellings write.
func TestOldSpellingsStillWork(t *testing.T) {
	dir := t.TempDir()
	old, now := filepath.Join(dir, "old.ctrace"), filepath.Join(dir, "new.ctrace")
	code, _, stderr := tracegenRun("-workload", "mixed", "-events=2000", "-units", "3", "-seed", "9", "-no-compress", "-o", old)
	require.Equal(t, 0, code, stderr)
	for _, n := range []string{"-workload", "-events=2000", "-units", "-seed", "-no-compress"} {
		require.Equal(t, 1, strings.Count(stderr, "tracegen: "+n+" is deprecated and will stop working in the next release: write -"+n+"\n"), "%s: %s", n, stderr)
	}
	require.NotContains(t, stderr, "-o is deprecated")
	code, _, stderr = tracegenRun("--workload", "mixed", "--events", "2000", "--units=3", "--seed", "9", "--no-compress", "-o", now)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "deprecated")
	a, err := mmapio.Open(old)
	require.NoError(t, err)
	defer a.Close()
	b, err := mmapio.Open(now)
	require.NoError(t, err)
	defer b.Close()
	require.Equal(t, b.Footer().TotalEvents, a.Footer().TotalEvents)
	require.Equal(t, b.Schema().Units, a.Schema().Units)
	require.Equal(t, b.Size(), a.Size(), "the same run, stored raw both times")
}

// --version, tracegen version and --help answer once, on stdout (the flag
// package printed --version's error twice); usage errors are one line,
// then where the help is.
func TestHelpVersionAndUsage(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, stderr := tracegenRun(args...)
		require.Equal(t, 0, code)
		require.Empty(t, stderr)
		require.True(t, strings.HasPrefix(out, "Usage: tracegen [options] -o FILE\n"), out)
		for _, f := range flags {
			require.Contains(t, out, "\n  "+strings.Join(f.Names, ", "))
		}
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, stderr := tracegenRun(args...)
		require.Equal(t, 0, code)
		require.Empty(t, stderr)
		require.True(t, strings.HasPrefix(out, "tracegen "), out)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--bogus"}, `unknown option "--bogus"`},
		{[]string{"--events", "ten", "-o", "x"}, `--events "ten": want a whole number`},
		{[]string{"--version=yes"}, "option --version takes no value"},
		{[]string{"extra", "-o", "x"}, `unexpected argument "extra"`},
	} {
		code, out, stderr := tracegenRun(c.args...)
		require.Equal(t, 2, code)
		require.Empty(t, out)
		require.Equal(t, "tracegen: "+c.msg+"\nRun 'tracegen --help' for usage.\n", stderr, "%q", c.args)
	}
}

// The built binary: its version is the build the toolchain recorded, and
// docs/cli.md holds its reference as the tables make it.
func TestBuiltBinary(t *testing.T) {
	bin := clitest.Build(t, "tracegen")
	clitest.CheckVersion(t, bin, "tracegen")
	clitest.CheckDocs(t, bin, "tracegen")
}
