package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/pipesim"
	"github.com/chronon-sim/chronon-go/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (never the reference vectors)")

const refDir = "../../testdata/reference"

func ref(name string) string { return filepath.Join(refDir, name) }

// refDump returns the reference dump name, unzipped once per test binary
// (multiblock's is 4 MB; several tests compare against it, some many times).
func refDump(t *testing.T, name string) string {
	t.Helper()
	refDumps.Lock()
	defer refDumps.Unlock()
	if d, ok := refDumps.m[name]; ok {
		return d
	}
	f, err := os.Open(ref(name))
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	if refDumps.m == nil {
		refDumps.m = map[string]string{}
	}
	refDumps.m[name] = string(b)
	return string(b)
}

var refDumps struct {
	sync.Mutex
	m map[string]string
}

// runTool runs the command line in process and returns its exit status,
// standard output and standard error.
func runTool(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestMain(m *testing.M) {
	time.Local = time.UTC // ctime prints local time; goldens are in UTC
	code := m.Run()
	for _, dir := range []string{built.dir, timeline.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// `trace_reader dump` prints, for every reference vector, exactly the
// bytes the original printed.
func TestDumpGolden(t *testing.T) {
	for _, c := range []struct{ file, dump string }{
		{"mixed-small.ctrace", "mixed-small.dump.txt.gz"},
		{"raw.ctrace", "raw.dump.txt.gz"},
		{"multiblock.ctrace", "multiblock.dump.txt.gz"},
		{"noschema.ctrace", "noschema.dump.txt.gz"},
		{"noindex-twin.ctrace", "noindex-twin.dump.txt.gz"},
		{"noindex.ctrace", "noindex-twin.dump.txt.gz"},
		{"crash.ctrace", "crash.dump.txt.gz"},
		{"crash.ctrace.crash", "crash.dump.txt.gz"},
	} {
		t.Run(c.file, func(t *testing.T) {
			code, out, errOut := runTool("dump", ref(c.file))
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut)
			want := refDump(t, c.dump)
			if out != want {
				t.Fatalf("dump of %s differs from %s at byte %d", c.file, c.dump, firstDiff(out, want))
			}
		})
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/trace_reader -update to create the golden files")
	require.Equal(t, string(want), got)
}

// w1Trace writes a small trace of our writer: one unit per block, unit
// sets, unit stats with drops, metadata, a creation time.
func w1Trace(t *testing.T, opts ctracetest.Options) string {
	t.Helper()
	s := ctracetest.W1Schema(16)
	s.Metadata = []schema.KeyValue{{Key: "host", Value: "node7"}, {Key: "command", Value: "sim --config w1.yaml"}}
	b, err := ctracetest.Build(s, ctracetest.W1Events(20000, 16, 1), opts)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "w1.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// info prints the original's lines first, then ours; pinned by goldens.
func TestInfoGolden(t *testing.T) {
	for _, name := range []string{"mixed-small.ctrace", "raw.ctrace", "noschema.ctrace", "noindex.ctrace", "crash.ctrace", "crash.ctrace.crash"} {
		for _, v := range []bool{false, true} {
			args := []string{"info", ref(name)}
			suffix := ""
			if v {
				args, suffix = append(args, "-v"), "-v"
			}
			code, out, errOut := runTool(args...)
			require.Equal(t, 0, code, errOut)
			golden(t, "info/"+name+suffix+".txt", out)
		}
	}
	opts := ctracetest.Options{BlockSize: 8192, PerUnit: true, Compress: true, UnitStats: true,
		Dropped: map[uint16]uint64{3: 17}, Created: time.Date(2026, 3, 7, 9, 5, 3, 0, time.UTC)}
	path := w1Trace(t, opts)
	code, out, errOut := runTool("info", "-v", path)
	require.Equal(t, 0, code, errOut)
	golden(t, "info/w1-ours-v.txt", strings.ReplaceAll(out, path, "w1.ctrace"))
	path = modelTrace(t) // a time base, a unit clock, interned strings
	code, out, errOut = runTool("info", "-v", path)
	require.Equal(t, 0, code, errOut)
	golden(t, "info/model-v.txt", strings.ReplaceAll(out, path, "model.ctrace"))
}

// The lines the original printed come first and unchanged.
func TestInfoKeepsOriginalLines(t *testing.T) {
	_, out, _ := runTool("info", ref("mixed-small.ctrace"))
	require.True(t, strings.HasPrefix(out, "Trace File Information\n======================\nFile: "+ref("mixed-small.ctrace")+"\nVersion: 1.1\nSimulation: conformance-mixed-11\n\nStatistics:\n  Total events: 1000\n"), out)
	require.Regexp(t, regexp.MustCompile(`\n\nCreated: [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}\n`), out)
	require.Contains(t, out, "\nCompression:\n  Enabled: yes\n  Average ratio: ")
	_, out, _ = runTool("info", ref("raw.ctrace"))
	require.Contains(t, out, "\nCompression:\n  Enabled: no\n\n")
}

// A usage error prints one line saying what is wrong, then the hint where
// the help is (not the whole help): status 2, nothing on stdout.
func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in the first line
		cmd  string // the hint's command
	}{
		{[]string{}, "missing command", ""},
		{[]string{"frobnicate", "x.ctrace"}, `unknown command "frobnicate"`, ""},
		{[]string{"dump"}, "dump: missing trace file", "dump"},
		{[]string{"recover", "a.ctrace", "b.ctrace", "-o", "c.ctrace"}, "more than one file", "recover"},
		{[]string{"diff", "a.ctrace"}, "diff: needs two files, not 1", "diff"},
		{[]string{"diff", "a.ctrace", "b.ctrace", "c.ctrace"}, "diff: needs two files, not 3", "diff"},
		{[]string{"merge", "a.ctrace", "b.ctrace"}, "merge: needs -o OUT", "merge"},
		{[]string{"dump", "--bogus", "x.ctrace"}, `unknown option "--bogus"`, "dump"},
		{[]string{"dump", "x.ctrace", "--limit"}, "option --limit needs a value", "dump"},
		{[]string{"dump", "x.ctrace", "--limit", "ten"}, `--limit "ten"`, "dump"},
		{[]string{"dump", "x.ctrace", "-v=1"}, `unknown option "-v=1"`, "dump"},
		{[]string{"dump", "x.ctrace", "--verbose=1"}, "option --verbose takes no value", "dump"},
		{[]string{"dump", "x.ctrace", "--json"}, "option --json is not one of dump's", "dump"},
		{[]string{"filter", "x.ctrace", "--cycles", "abc"}, `--cycles "abc"`, "filter"},
		{[]string{"filter", "x.ctrace", "--cycles", "9-3"}, "end before start", "filter"},
		{[]string{"filter", "x.ctrace", "--cycles", "1-2-3"}, `--cycles "1-2-3"`, "filter"},
		{[]string{"recover", ref("crash.ctrace.crash")}, "recover: needs -o OUT", "recover"},
		{[]string{"stats", "x.ctrace", "--limit", "3"}, "option --limit is not one of stats's", "stats"},
		{[]string{"help", "nosuch"}, `help: unknown command "nosuch"`, ""},
	} {
		code, out, errOut := runTool(c.args...)
		require.Equal(t, 2, code, "%q", c.args)
		require.Empty(t, out)
		hint := "Run 'trace_reader help' for usage.\n"
		if c.cmd != "" {
			hint = "Run 'trace_reader help " + c.cmd + "' for usage.\n"
		}
		first, rest, _ := strings.Cut(errOut, "\n")
		require.Equal(t, hint, rest, "%q: %q", c.args, errOut)
		require.True(t, strings.HasPrefix(first, "trace_reader: "), "%q", errOut)
		require.Contains(t, first, c.want, "%q", c.args)
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, _ := runTool(args...)
		require.Equal(t, 0, code)
		require.Contains(t, out, "Usage: trace_reader <command> [options] <file.ctrace>")
		require.Contains(t, out, "  help CMD ")
	}
	// One command's help: its synopsis and exactly its options.
	for _, args := range [][]string{{"dump", "-h"}, {"info", "x", "--help"}, {"help", "stats"}, {"export", "--help"}} {
		code, out, _ := runTool(args...)
		require.Equal(t, 0, code)
		cmd := args[0]
		if cmd == "help" {
			cmd = args[1]
		}
		require.True(t, strings.HasPrefix(out, "Usage: trace_reader "+cmd+" "), out)
		for _, o := range lookupCommand(cmd).options {
			require.Contains(t, out, "\n  "+strings.Join(o.Names, ", "))
		}
	}
	_, out, _ := runTool("help", "stats")
	require.Contains(t, out, "--json")
	require.NotContains(t, out, "--limit")
}

// After "--" every argument is a file, even one starting with '-'.
func TestDoubleDash(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(ref("raw.ctrace"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "-v.ctrace"), b, 0o644))
	t.Chdir(dir)
	code, out, errOut := runTool("dump", "--limit", "2", "--", "-v.ctrace")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, "\n"))
}

// A bad or unreadable file: status 1, one line on stderr saying what and
// where.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	notTrace := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notTrace, bytes.Repeat([]byte("hello world\n"), 10), 0o644))
	good, err := os.ReadFile(ref("raw.ctrace"))
	require.NoError(t, err)
	h, _ := schema.DecodeHeader(good)
	corrupt := bytes.Clone(good)
	f, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	require.NoError(t, err)
	blk := f.Blocks[2]
	corrupt[blk.DataOffset+28+2] ^= 0xff // a raw block's event cycle: outside its range
	badBlock := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(badBlock, corrupt, 0o644))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dump", filepath.Join(dir, "missing.ctrace")}, "no such file"},
		{[]string{"info", notTrace}, notTrace + ": header at byte 0: bad magic"},
		{[]string{"dump", dir}, "not a regular file"},
		{[]string{"dump", badBlock}, badBlock + ": block 2 at byte"},
		{[]string{"recover", notTrace, "-o", filepath.Join(dir, "out.ctrace")}, "bad magic"},
	} {
		code, out, errOut := runTool(c.args...)
		require.Equal(t, 1, code, "%q: %s", c.args, errOut)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		require.Contains(t, errOut, c.want)
		if c.args[1] == badBlock {
			// The lines before the bad block were printed.
			require.True(t, strings.HasPrefix(refDump(t, "raw.dump.txt.gz"), out))
			require.NotEmpty(t, out)
		}
	}
	_, err = os.Stat(filepath.Join(dir, "out.ctrace"))
	require.True(t, errors.Is(err, os.ErrNotExist), "a failed recover leaves no output")
}

// lines returns the reference dump's lines that keep(cycle, unit) selects.
func lines(t *testing.T, dump string, keep func(cycle uint64, unit string) bool) string {
	var b strings.Builder
	for _, l := range parsedRefDump(t, dump) {
		if keep(l.cycle, l.unit) {
			b.WriteString(l.text)
		}
	}
	return b.String()
}

// dumpLine is a reference dump's line with its cycle and unit name ("" for
// none).
type dumpLine struct {
	cycle      uint64
	unit, text string
}

// parsedRefDump returns the reference dump's lines, parsed once per test
// binary: TestFilters selects from multiblock's 60,000 lines five times.
func parsedRefDump(t *testing.T, dump string) []dumpLine {
	t.Helper()
	text := refDump(t, dump)
	parsedDumps.Lock()
	defer parsedDumps.Unlock()
	if ls, ok := parsedDumps.m[dump]; ok {
		return ls
	}
	var ls []dumpLine
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		end := strings.IndexByte(l, ']')
		cycle, err := strconv.ParseUint(strings.TrimSpace(l[1:end]), 10, 64)
		require.NoError(t, err)
		unit := ""
		if rest := l[end+2:]; !strings.HasPrefix(rest, "[unknown format]") {
			if i := strings.Index(rest, ": "); i > 0 && !strings.ContainsAny(rest[:i], " =") {
				unit = rest[:i]
			}
		}
		ls = append(ls, dumpLine{cycle, unit, l})
	}
	if parsedDumps.m == nil {
		parsedDumps.m = map[string][]dumpLine{}
	}
	parsedDumps.m[dump] = ls
	return ls
}

var parsedDumps struct {
	sync.Mutex
	m map[string][]dumpLine
}

func TestFilters(t *testing.T) {
	file := ref("multiblock.ctrace")
	all := refDump(t, "multiblock.dump.txt.gz")
	head := strings.Join(strings.SplitAfter(all, "\n")[:10], "")
	for _, args := range [][]string{
		{"dump", file, "--limit", "10"},
		{"dump", "--limit", "10", file},
		{"dump", "--limit=10", file},
		{"filter", file, "--limit", "10"},
	} {
		code, out, _ := runTool(args...)
		require.Equal(t, 0, code)
		require.Equal(t, head, out, "%q", args)
	}

	code, out, _ := runTool("filter", "--cycles", "20000-20100", file)
	require.Equal(t, 0, code)
	want := lines(t, "multiblock.dump.txt.gz", func(c uint64, _ string) bool { return c >= 20000 && c <= 20100 })
	require.NotEmpty(t, want)
	require.Equal(t, want, out)

	_, out, _ = runTool("filter", file, "--cycles", "40000")
	require.Equal(t, lines(t, "multiblock.dump.txt.gz", func(c uint64, _ string) bool { return c >= 40000 }), out)

	_, out, _ = runTool("filter", file, "--unit", "rob")
	want = lines(t, "multiblock.dump.txt.gz", func(_ uint64, u string) bool { return strings.Contains(u, "rob") })
	require.NotEmpty(t, want)
	require.Equal(t, want, out)

	_, out, _ = runTool("filter", file, "--unit", "core1.", "--cycles", "30000-31000", "--limit", "7")
	want = lines(t, "multiblock.dump.txt.gz", func(c uint64, u string) bool {
		return strings.Contains(u, "core1.") && c >= 30000 && c <= 31000
	})
	require.Equal(t, strings.Join(strings.SplitAfter(want, "\n")[:7], ""), out)

	// Events of units without a name never match, not even an empty name.
	_, out, _ = runTool("filter", ref("mixed-small.ctrace"), "--unit", "")
	want = lines(t, "mixed-small.dump.txt.gz", func(_ uint64, u string) bool { return u != "" })
	require.Equal(t, want, out)
	require.Less(t, len(out), len(refDump(t, "mixed-small.dump.txt.gz")))
	// A --unit no unit name contains: status 1, as grep's "no match", and
	// one line saying so (it used to be status 0 and silence, which looks
	// like a unit without events).
	for _, cmd := range []string{"dump", "filter", "convert", "stats", "export"} {
		args := []string{cmd, ref("mixed-small.ctrace"), "--unit", "no-such-unit"}
		outPath := filepath.Join(t.TempDir(), "out")
		if cmd == "export" {
			args = append(args, "-o", outPath)
		}
		code, out, errOut := runTool(args...)
		require.Equal(t, 1, code, cmd)
		require.Empty(t, out)
		require.Equal(t, "trace_reader: "+ref("mixed-small.ctrace")+": no unit name contains \"no-such-unit\"; the units are core0.fetch, core0.decode, core0.rename, core0.rob\n", errOut)
		require.NoFileExists(t, outPath)
	}
}

func TestConvertAndVerbose(t *testing.T) {
	outPath := filepath.Join(t.TempDir(), "out.log")
	code, out, errOut := runTool("convert", ref("raw.ctrace"), "-o", outPath, "--limit", "3", "-v")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, out)
	got, err := os.ReadFile(outPath)
	require.NoError(t, err)
	require.Equal(t, refDump(t, "raw.dump.txt.gz"), string(got), "convert ignores --limit")
	require.Equal(t, "Dumped 5000 events\n", errOut)

	code, _, errOut = runTool("dump", "--verbose", ref("raw.ctrace"), "--limit", "42", "--output", outPath)
	require.Equal(t, 0, code)
	require.Equal(t, "Dumped 42 events\n", errOut)
}

func TestRecoverCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fixed.ctrace")
	code, stdout, errOut := runTool("recover", ref("crash.ctrace.crash"), "-o", out)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, "recovered: 102 blocks, 20000 events")
	require.Contains(t, stdout, "wrote "+out)
	_, dump, _ := runTool("dump", out)
	require.Equal(t, refDump(t, "crash.dump.txt.gz"), dump)
	_, info, _ := runTool("info", out)
	require.Contains(t, info, "Status: complete")
	if _, err := ctracetest.Oracle(); err != nil {
		t.Logf("!!!!! SKIPPING THE ORACLE CHECK: %v !!!!!", err)
	} else {
		res, err := ctracetest.RunOracle("check", out)
		require.NoError(t, err)
		require.Contains(t, string(res), "OK events=20000 blocks=102")
		res, err = ctracetest.RunOracle("dump", out)
		require.NoError(t, err)
		require.Equal(t, refDump(t, "crash.dump.txt.gz"), string(res))
	}
	// Not onto the input.
	in := filepath.Join(t.TempDir(), "in.ctrace")
	b, _ := os.ReadFile(ref("noindex.ctrace"))
	require.NoError(t, os.WriteFile(in, b, 0o644))
	code, _, _ = runTool("recover", in, "-o", in)
	require.Equal(t, 2, code)
}

var built struct {
	sync.Once
	dir, bin string
	err      error
}

// toolBinary builds trace_reader once for the tests that run it as a
// process (signals, pipes). make test builds the commands from the same
// tree before its test stages and names their directory in
// CHRONON_TEST_BIN, which saves linking DuckDB into one more binary.
func toolBinary(t *testing.T) string {
	built.Do(func() {
		if dir := os.Getenv("CHRONON_TEST_BIN"); dir != "" {
			built.bin = filepath.Join(dir, "trace_reader")
			_, built.err = os.Stat(built.bin)
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "trace_reader-test"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "trace_reader")
		build := exec.Command("go", "build", "-o", built.bin, ".")
		build.Stderr = os.Stderr
		built.err = build.Run()
	})
	require.NoError(t, built.err)
	return built.bin
}

// `trace_reader dump big | head` ends quietly with status 0.
func TestClosedPipe(t *testing.T) {
	bin := toolBinary(t)
	cmd := exec.Command(bin, "dump", ref("multiblock.ctrace"))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	buf := make([]byte, 100)
	_, err = io.ReadFull(stdout, buf)
	require.NoError(t, err)
	stdout.Close() // like head exiting
	err = cmd.Wait()
	require.NoError(t, err, "exit status 0, stderr %q", stderr.String())
	require.Empty(t, stderr.String())
	require.True(t, strings.HasPrefix(refDump(t, "multiblock.dump.txt.gz"), string(buf)), "%q", buf)
}

func TestExportAndStatsCommands(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "pipe.ctrace")
	tr, err := chronon.Create(trace, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false), chronon.WithSimulationName("pipesim"))
	require.NoError(t, err)
	require.NoError(t, pipesim.Run(tr, 100))
	require.NoError(t, tr.Close())

	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "p.pftrace")
	require.Equal(t, 0, run([]string{"export", trace, "-o", out, "-v", "--ns-per-cycle", "2"}, &stdout, &stderr), stderr.String())
	require.Equal(t, out+"\n", stdout.String())
	require.Contains(t, stderr.String(), "Exported 613 events: 100 instants, 500 spans, 13 counter samples, 600 events with a flow")
	fi, err := os.Stat(out)
	require.NoError(t, err)
	require.NotZero(t, fi.Size())

	stdout.Reset()
	jsonOut := filepath.Join(dir, "p.json")
	require.Equal(t, 0, run([]string{"export", "--format", "chrome-json", "--cycles", "10-20", trace, "-o", jsonOut}, &stdout, &stderr))
	var doc map[string]any
	b, err := os.ReadFile(jsonOut)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))

	stdout.Reset()
	require.Equal(t, 0, run([]string{"stats", trace}, &stdout, &stderr))
	require.Regexp(t, `core0\.exec\s+core0\.retire\s+100\s+1\s+2\.20\s+1\s+5\s+5`, stdout.String())
	// The tables' layout, pinned. Format ids depend on what the test
	// process registered before (they are global): masked, width kept.
	golden(t, "stats/pipesim-100.txt", regexp.MustCompile(`(?m)^  +\d+  (span|counter|instant)`).ReplaceAllStringFunc(stdout.String(), func(m string) string {
		return regexp.MustCompile(`\d+`).ReplaceAllStringFunc(m, func(d string) string { return strings.Repeat(" ", len(d)-1) + "#" })
	}))
	stdout.Reset()
	require.Equal(t, 0, run([]string{"stats", "--json", "--unit", "fetch", trace}, &stdout, &stderr))
	var rep struct {
		Units []struct{ Name string } `json:"units"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	require.Len(t, rep.Units, 1)
	require.Equal(t, "core0.fetch", rep.Units[0].Name)

	for _, bad := range [][]string{
		{"export", trace},
		{"export", "--format", "svg", trace, "-o", out},
		{"export", "--ns-per-cycle", "0", trace, "-o", out},
		{"export", "--max-file-size", "-1", trace, "-o", out},
	} {
		stderr.Reset()
		require.Equal(t, 2, run(bad, &stdout, &stderr), "%v", bad)
	}
	require.Equal(t, 1, run([]string{"stats", filepath.Join(dir, "missing.ctrace")}, &stdout, &stderr))
}

func TestProgressBar(t *testing.T) {
	require.Nil(t, newProgress(&bytes.Buffer{}, 0, 100), "silent when stderr is not a terminal")
	var b bytes.Buffer
	p := &progress{w: &b, start: 100, end: 300}
	p.update(5000, 200)
	require.Contains(t, b.String(), "[===============               ]  50%  5000 events")
	p.update(6000, 300) // within 100 ms: not redrawn
	require.NotContains(t, b.String(), "100%")
	p.done()
	require.True(t, strings.HasSuffix(b.String(), "\r"))
	var nilBar *progress
	nilBar.update(1, 1) // a nil bar is a no-op
	nilBar.done()
}
