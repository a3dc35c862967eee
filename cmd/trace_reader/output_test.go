package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

// writers are the command lines that write -o OUT, for input IN.
var writers = [][]string{
	{"info", "-v", "IN", "-o", "OUT"},
	{"dump", "IN", "-o", "OUT"},
	{"filter", "IN", "--cycles", "0-100000", "-o", "OUT"},
	{"convert", "IN", "-o", "OUT"},
	{"stats", "IN", "-o", "OUT"},
	{"export", "IN", "-o", "OUT"},
	{"export", "--format", "chrome-json", "IN", "-o", "OUT"},
	{"recover", "IN", "-o", "OUT"},
}

func subst(args []string, in, out string) []string {
	r := make([]string, len(args))
	for i, a := range args {
		switch a {
		case "IN":
			a = in
		case "OUT":
			a = out
		}
		r[i] = a
	}
	return r
}

// names lists a directory, to see what a command left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

// -o naming the input, however: every writing command refuses with status
// 2 and one line, before it opens anything, and the input is untouched.
// (Before, `dump t.ctrace -o t.ctrace` truncated the trace to 0 bytes before
// reading it, and export then died of SIGBUS.)
func TestOutputIsInputRefused(t *testing.T) {
	orig, err := os.ReadFile(ref("raw.ctrace"))
	require.NoError(t, err)
	for _, w := range writers {
		for _, alias := range []string{"same", "spelled", "symlink", "hardlink", "input-symlink"} {
			dir := t.TempDir()
			in := filepath.Join(dir, "t.ctrace")
			require.NoError(t, os.WriteFile(in, orig, 0o644))
			arg, out := in, in
			switch alias {
			case "spelled":
				out = filepath.Join(dir, ".", "..", filepath.Base(dir), "t.ctrace")
			case "symlink":
				out = filepath.Join(dir, "link.ctrace")
				require.NoError(t, os.Symlink("t.ctrace", out))
			case "hardlink":
				out = filepath.Join(dir, "hard.ctrace")
				require.NoError(t, os.Link(in, out))
			case "input-symlink":
				arg = filepath.Join(dir, "link.ctrace")
				require.NoError(t, os.Symlink(in, arg))
			}
			before := names(t, dir)
			args := subst(w, arg, out)
			code, stdout, errOut := runTool(args...)
			require.Equal(t, 2, code, "%q: %s", args, errOut)
			require.Empty(t, stdout)
			require.Equal(t, "trace_reader: "+w[0]+": -o "+out+" is the input file "+arg+"; nothing was written\nRun 'trace_reader help "+w[0]+"' for usage.\n", errOut)
			got, err := os.ReadFile(in)
			require.NoError(t, err)
			require.True(t, bytes.Equal(orig, got), "%q (%s): the input changed", args, alias)
			require.Equal(t, before, names(t, dir), "%q (%s): files created or removed", args, alias)
		}
	}
}

// An export split into parts refuses a part that would be the input, and
// renames none of them.
func TestExportPartIsInputRefused(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile(ref("multiblock.ctrace"))
	require.NoError(t, err)
	in := filepath.Join(dir, "x.part2.pftrace")
	require.NoError(t, os.WriteFile(in, orig, 0o644))
	out := filepath.Join(dir, "x.pftrace")
	code, stdout, errOut := runTool("export", in, "-o", out, "--max-file-size", "20000")
	require.Equal(t, 2, code, errOut)
	require.Empty(t, stdout)
	require.Contains(t, errOut, "is the input file")
	got, err := os.ReadFile(in)
	require.NoError(t, err)
	require.True(t, bytes.Equal(orig, got), "the input changed")
	require.Equal(t, []string{"x.part2.pftrace"}, names(t, dir))

	// The same export to another name writes every part.
	out = filepath.Join(dir, "y.pftrace")
	code, stdout, errOut = runTool("export", in, "-o", out, "--max-file-size", "20000")
	require.Equal(t, 0, code, errOut)
	parts := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Greater(t, len(parts), 2, stdout)
	require.Equal(t, out, parts[0])
	require.Equal(t, filepath.Join(dir, "y.part2.pftrace"), parts[1])
	for _, p := range parts {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.NotZero(t, fi.Size())
	}
	require.Len(t, names(t, dir), len(parts)+1, "no temporary left: %v", names(t, dir))
}

// corruptTrace is the original's raw.ctrace with an event of its third
// block moved outside the block's cycle range: reading fails mid-way, after
// two blocks' output.
func corruptTrace(t *testing.T, dir string) string {
	good, err := os.ReadFile(ref("raw.ctrace"))
	require.NoError(t, err)
	h, ok := schema.DecodeHeader(good)
	require.True(t, ok)
	f, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	require.NoError(t, err)
	bad := bytes.Clone(good)
	bad[f.Blocks[2].DataOffset+28+2] ^= 0xff
	path := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(path, bad, 0o644))
	return path
}

// A command that fails mid-way leaves nothing under the output's name: no
// file when there was none, the old file untouched when there was one, and
// no temporary file either. (Before, the partial output was left.)
func TestFailedCommandLeavesNoOutput(t *testing.T) {
	for _, w := range writers {
		if w[0] == "recover" { // copies blocks without decoding them: succeeds on this file
			continue
		}
		for _, existing := range []bool{false, true} {
			dir := t.TempDir()
			in := corruptTrace(t, dir)
			out := filepath.Join(dir, "out.txt")
			if existing {
				require.NoError(t, os.WriteFile(out, []byte("OLD"), 0o644))
			}
			before := names(t, dir)
			args := subst(w, in, out)
			code, _, errOut := runTool(args...)
			require.Equal(t, 1, code, "%q: %s", args, errOut)
			require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			require.Contains(t, errOut, in+": block 2 at byte")
			require.Equal(t, before, names(t, dir), "%q: left %v", args, names(t, dir))
			if existing {
				got, err := os.ReadFile(out)
				require.NoError(t, err)
				require.Equal(t, "OLD", string(got))
			}
		}
	}
}

// An output that exists is replaced, keeping its mode; through a symlink,
// the file it points to is replaced and the link stays; a directory that
// cannot be written is a status-1 error naming the output.
func TestOutputReplaced(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(out, []byte("OLD"), 0o640))
	require.NoError(t, os.Chmod(out, 0o640))
	code, _, errOut := runTool("dump", ref("raw.ctrace"), "--limit", "3", "-o", out)
	require.Equal(t, 0, code, errOut)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, strings.Join(strings.SplitAfter(refDump(t, "raw.dump.txt.gz"), "\n")[:3], ""), string(got))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm())

	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink("out.txt", link))
	code, _, errOut = runTool("dump", ref("raw.ctrace"), "--limit", "1", "-o", link)
	require.Equal(t, 0, code, errOut)
	li, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, li.Mode()&os.ModeSymlink, "the link is still a link")
	got, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(got), "\n"))
	require.Equal(t, []string{"link.txt", "out.txt"}, names(t, dir))

	code, _, errOut = runTool("dump", ref("raw.ctrace"), "-o", filepath.Join(dir, "nodir", "x.txt"))
	require.Equal(t, 1, code)
	require.Equal(t, "trace_reader: "+filepath.Join(dir, "nodir", "x.txt")+": cannot create: no such file or directory\n", errOut)
}

// Outputs that are not regular files are written directly: /dev/null
// works for every writing command (an export to it is one stream, never
// split into /dev/null.part2).
func TestOutputDevNull(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil || os.DevNull != "/dev/null" {
		t.Skip("SKIPPED: no /dev/null")
	}
	for _, w := range writers {
		args := subst(w, ref("multiblock.ctrace"), os.DevNull)
		if w[0] == "export" {
			args = append(args, "--max-file-size", "1000")
		}
		code, stdout, errOut := runTool(args...)
		require.Equal(t, 0, code, "%q: %s", args, errOut)
		if w[0] == "export" {
			require.Empty(t, stdout, "a stream output is written alone: no list of files on stdout (it may be /dev/stdout)")
		}
	}
	_, err := os.Stat("/dev/null.part2")
	require.True(t, os.IsNotExist(err))
}

// An interrupted command removes its temporary files (removeTemps runs on
// SIGINT and SIGTERM).
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	o, err := createOutput(ref("raw.ctrace"), filepath.Join(dir, "out.txt"))
	require.NoError(t, err)
	_, _, err = createTemp(filepath.Join(dir, "out.pftrace"), true)
	require.NoError(t, err)
	require.Len(t, names(t, dir), 2)
	removeTemps()
	o.f.Close()
	require.Empty(t, names(t, dir))
}
