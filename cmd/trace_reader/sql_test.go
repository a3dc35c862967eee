//go:build cgo

package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// TestSQLCommand: the three output forms of one query, and the selection
// options, agree with what dump and filter print.
func TestSQLCommand(t *testing.T) {
	path := w1Trace(t, ctracetest.Options{})
	code, out, errOut := runTool("sql", path, "-c", "SELECT unit, count(*) AS n FROM events GROUP BY unit ORDER BY unit LIMIT 2")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "unit             n\n------------  ----\ncore0.decode  1250\ncore0.dram    1250\n", out)

	code, out, errOut = runTool("sql", "--csv", path, "-c", "SELECT cycle, unit, message FROM events ORDER BY cycle, unit_id, format_id LIMIT 3")
	require.Equal(t, 0, code, errOut)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"cycle", "unit", "message"}, recs[0])
	require.Len(t, recs, 4)
	// The message column is dump's text.
	_, dump, _ := runTool("dump", "--limit", "3", path)
	for i, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		require.True(t, strings.HasSuffix(line, "] "+recs[i+1][1]+": "+recs[i+1][2]), "%q vs %q", line, recs[i+1])
	}

	code, out, errOut = runTool("sql", "--json", "--cycles", "5000-6000", "--unit", "core1.l2", path, "-c", "SELECT count(*) AS n, min(unit) AS u, NULL AS z FROM events")
	require.Equal(t, 0, code, errOut)
	var js []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	_, filtered, _ := runTool("filter", "--cycles", "5000-6000", "--unit", "core1.l2", path)
	require.Equal(t, []map[string]any{{"n": float64(strings.Count(filtered, "\n")), "u": "core1.l2", "z": nil}}, js)
}

// TestSQLSeveralFiles: a trace column names each file with its label, as
// dump labels its units (rank3, else the file's name without .ctrace).
func TestSQLSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ctrace"), filepath.Join(dir, "b.ctrace")
	_, err := workload.Run("w1", a, 1000, 2, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	_, err = workload.Run("w1", b, 3000, 2, 1, chronon.WithAutoMetadata(false), chronon.WithMetadata("rank", "3"))
	require.NoError(t, err)
	code, out, errOut := runTool("sql", "--csv", a, b, "-c", "SELECT trace, count(*) FROM events GROUP BY trace ORDER BY trace")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "trace,count_star()\na,1000\nrank3,3000\n", out)
}

// TestSQLErrors: a SQL error or a bad file is one line on stderr and status
// 1; a bad command line is usage, status 2. Never a panic.
func TestSQLErrors(t *testing.T) {
	path := w1Trace(t, ctracetest.Options{})
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sql", path, "-c", "SELEC 1"}, 1, "trace_reader: sql: Parser Error: syntax error"},
		{[]string{"sql", path, "-c", "SELECT * FROM nosuch"}, 1, "trace_reader: sql: Catalog Error: Table with name nosuch does not exist!"},
		{[]string{"sql", "--unit", "nosuch", path, "-c", "SELECT 1"}, 1, `no unit name contains "nosuch"`},
		{[]string{"sql", path + ".missing", "-c", "SELECT 1"}, 1, "trace_reader: "},
		{[]string{"sql", "-c", "SELECT 1"}, 2, "missing trace file"},
		{[]string{"sql", path, "--bogus"}, 2, "unknown option"},
		{[]string{"sql", "--csv", "--json", path, "-c", "SELECT 1"}, 2, "exclude each other"},
	} {
		code, out, errOut := runTool(c.args...)
		require.Equal(t, c.code, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.msg, "%v", c.args)
		require.Empty(t, out)
		if c.code == 1 {
			require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		}
	}

	// A damaged block: the query that reads it fails with the file's name.
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	blk := r.Blocks()[1]
	require.NoError(t, r.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := range 8 { // the first event's cycle (or the zstd frame's header)
		data[int(blk.DataOffset)+28+2+i] ^= 0xa5
	}
	bad := filepath.Join(t.TempDir(), "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, data, 0o644))
	code, _, errOut := runTool("sql", bad, "-c", "SELECT count(*), sum(length(message)) FROM events")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, bad)
	require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
}

// TestSQLHelp lists every table with its columns.
func TestSQLHelp(t *testing.T) {
	for _, args := range [][]string{{"sql", "--help"}, {"help", "sql"}} {
		code, out, _ := runTool(args...)
		require.Equal(t, 0, code)
		for _, want := range []string{"events ", "cycle UBIGINT", "message VARCHAR", "spans", `"end" UBIGINT`, "counters", "flows", "units", "formats", "categories", "metadata", "blocks", "<format>", "cycles := "} {
			require.Contains(t, out, strings.ReplaceAll(want, `"`, ""), "%v", args)
		}
		// New-user review: the tables list time DOUBLE, and a trace without
		// a time base has no such column (Binder Error); the help says when.
		require.Contains(t, out, "time and end_time (seconds) are there only when the trace has a time base\n", "%v", args)
	}
}

// TestNoCgoBuild: without cgo the tool builds, sql says in one line that
// it needs cgo (status 1), and the other commands work.
func TestNoCgoBuild(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "trace_reader")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	path := w1Trace(t, ctracetest.Options{})
	for _, args := range [][]string{{"sql", path, "-c", "SELECT 1"}, {"export", "--format", "parquet", "-o", t.TempDir(), path}} {
		c := exec.Command(bin, args...)
		var stderr strings.Builder
		c.Stderr = &stderr
		err = c.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, 1, ee.ExitCode())
		require.Equal(t, 1, strings.Count(stderr.String(), "\n"))
		require.Contains(t, stderr.String(), "needs a build with cgo")
	}
	got, err := exec.Command(bin, "dump", "--limit", "2", path).Output()
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(got), "\n"))
}

// A Parquet export goes to a temporary directory renamed into place: a
// failed export leaves nothing, and an existing directory with files in it
// is refused rather than mixed with another run's tables.
func TestParquetExportIsAllOrNothing(t *testing.T) {
	path := w1Trace(t, ctracetest.Options{Compress: true, BlockSize: 8192, PerUnit: true})
	dir := t.TempDir()

	out := filepath.Join(dir, "pq")
	code, _, errOut := runTool("export", "--format", "parquet", "-o", out, path)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runTool("export", "--format", "parquet", "-o", out, path)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "is not empty")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	h, ok := schema.DecodeHeader(b)
	require.True(t, ok)
	at := int(h.FirstBlockOffset) + schema.BlockHeaderSize + 8
	copy(b[at:at+64], make([]byte, 64)) // the first block's zstd data no longer decodes
	bad := filepath.Join(dir, "bad.ctrace")
	require.NoError(t, os.WriteFile(bad, b, 0o644))
	code, _, errOut = runTool("export", "--format", "parquet", "-o", filepath.Join(dir, "pq2"), bad)
	require.Equal(t, 1, code, errOut)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{"bad.ctrace", "pq"}, names, "no partial output, no temporary left")
}

// sql and export --format parquet take one --unit: a second one is a
// usage error, not the last kept. A malformed pattern is one too.
func TestSQLUnitOnce(t *testing.T) {
	for _, args := range [][]string{
		{"sql", ref("raw.ctrace"), "--unit", "a", "--unit", "b", "-c", "SELECT 1"},
		{"sql", ref("raw.ctrace"), "--unit", "core[", "-c", "SELECT 1"},
		{"export", "--format", "parquet", "-o", t.TempDir(), ref("raw.ctrace"), "--unit", "a", "--unit", "b"},
	} {
		code, _, stderr := runTool(args...)
		require.Equal(t, 2, code, "%q", args)
		require.Contains(t, stderr, "--unit", "%q", args)
	}
}

// sql's --unit takes what the other commands' --unit takes (it refused
// patterns, and with them a name with brackets): it selects the units
// filter selects.
func TestSQLUnitAsFilter(t *testing.T) {
	path := namedTrace(t, "b.ctrace", bracketNames)
	for _, unit := range []string{"ROB[0]", "=ROB[0].Top.incoming", `ROB\[0]`, "ROB*", `core\1`, "Top"} {
		code, out, stderr := runTool("sql", "--csv", path, "--unit", unit, "-c", "SELECT DISTINCT unit FROM events ORDER BY unit")
		require.Equal(t, 0, code, stderr)
		_, dump, _ := runTool("filter", path, "--unit", unit)
		require.Equal(t, "unit\n"+strings.Join(unitsIn(dump), "\n")+"\n", out, "--unit %s", unit)
	}
}

// The Parquet export prints what it wrote, as the other formats print
// their files (it printed nothing): the directory.
func TestParquetExportPrintsItsOutput(t *testing.T) {
	path := w1Trace(t, ctracetest.Options{Compress: true})
	dir := t.TempDir()
	out := filepath.Join(dir, "pq")
	code, stdout, stderr := runTool("export", "--format", "parquet", "-o", out, path)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, out+"\n", stdout)
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	require.NotEmpty(t, ents)
	code, stdout, stderr = runTool("export", "--format", "perfetto", "-o", out+".pftrace", path)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, out+".pftrace\n", stdout)
}

// Dot commands work through -c and standard input as in the duckdb shell
// (`sql FILE -c ".tables"` was a parser error): on their own lines, between
// statements; the SQL between two of them prints its last result.
func TestSQLDotCommands(t *testing.T) {
	path := w1Trace(t, ctracetest.Options{})
	tables := "events  fetch_  decode  spans  counters  flows  units  formats  categories  metadata  blocks\n"
	code, out, errOut := runTool("sql", path, "-c", ".tables")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, tables, out)

	code, out, errOut = runTool("sql", path, "-c", ".schema fetch_")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "fetch_ ")
	require.Contains(t, out, "pc UBIGINT, taken BOOLEAN")

	script := "SELECT 1 AS a;\n.tables\nSELECT 2 AS b;\nSELECT count(*) = (SELECT count(*) FROM fetch_) AS n FROM fetch_ f, events e WHERE e.format = 'fetch_' AND e.unit_id = f.unit_id AND e.cycle = f.cycle AND e.message LIKE 'fetch pc=0x' || printf('%x', f.pc) || ' %';\n.quit\nSELECT 3 AS c;"
	code, out, errOut = runTool("sql", path, "-c", script)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "a\n-\n1\n"+tables+"n\n----\ntrue\n", out)

	// From standard input (not a terminal): the same.
	cmd := exec.Command(toolBinary(t), "sql", path)
	cmd.Stdin = strings.NewReader(script)
	got, err := cmd.Output()
	require.NoError(t, err)
	require.Equal(t, out, string(got))

	code, out, errOut = runTool("sql", path, "-c", "SELECT 1;\n.bogus")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "unknown command .bogus")
	require.Equal(t, "1\n-\n1\n", out) // what ran before it printed
	code, _, errOut = runTool("sql", path, "-c", ".schema nosuch")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `no table "nosuch"`)
}
