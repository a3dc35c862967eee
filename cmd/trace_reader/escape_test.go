package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// A trace whose unit names, type names, format strings, string arguments,
// simulation name, writer and metadata hold control characters: ESC
// sequences, CR, LF, a forged dump line and a forged "Status: complete".
// It is written without a footer, so its real status is "recovered".
func writeHostileTrace(t *testing.T) string {
	t.Helper()
	s := &schema.Schema{Version: 1, SimulationName: "sim\x1b]0;pwned\x07", Writer: "w\r\n  Status: complete"}
	s.Formats = []schema.Format{
		{ID: 1, Format: "fast {}\r[         1] forged: line\x1b[2J\n  Status: complete", ArgTypes: []schema.ArgType{schema.ArgUInt32}},
		{ID: 2, Format: "str {}\x7f", ArgTypes: []schema.ArgType{schema.ArgString}, File: "f\x1b.c", Line: 3},
	}
	s.Units = []schema.Unit{
		{ID: 1, Name: "core0\x1b[31m\r\n  Status: complete", TypeName: "T\x1b[0m\n"},
		{ID: 2, Name: "core1\tfine", TypeName: "Fine"},
	}
	s.Metadata = []schema.KeyValue{{Key: "k\n", Value: "v\x1b[1m\r\n  Status: complete"}}
	var evs []ctracetest.Event
	for i := range 200 {
		r := schema.Record{Cycle: uint64(10 + i), SourceID: uint16(1 + i%2), FormatID: uint32(1 + i%2), ArgCount: 1}
		var a ctracetest.Args
		if r.FormatID == 1 {
			a = a.U32(uint32(i))
		} else {
			a = a.Str("s\x1b[K\r\n[        99] forged: event\n  Status: complete")
		}
		evs = append(evs, ctracetest.Event{Record: r, Args: a})
	}
	b, err := ctracetest.Build(s, evs, ctracetest.Options{BlockSize: 1024, NoFooter: true})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "hostile.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// info, dump, filter, convert and stats print no control character from the
// file: no escape sequence reaches the terminal, one event is one line, and
// no line can pass for the file's status.
func TestTextOutputIsNotInjectable(t *testing.T) {
	path := writeHostileTrace(t)
	for _, args := range [][]string{{"info", "-v", path}, {"dump", path}, {"filter", path, "--unit", "core"}, {"convert", path}, {"stats", path}} {
		code, out, errOut := runTool(args...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		for i, c := range []byte(out) {
			if c < 0x20 && c != '\n' || c == 0x7f {
				t.Fatalf("%v: raw control byte %#x at %d: %q", args, c, i, out[max(0, i-40):min(len(out), i+40)])
			}
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.TrimSpace(l) == "Status: complete" {
				t.Fatalf("%v: a forged status line: %q", args, out)
			}
		}
		if args[0] != "info" && args[0] != "stats" {
			require.Equal(t, 200, strings.Count(out, "\n"), "%v: one line per event", args)
		}
	}
	_, info, _ := runTool("info", "-v", path)
	require.Contains(t, info, `Simulation: sim\x1b]0;pwned\x07`+"\n")
	require.Contains(t, info, `  [1] core0\x1b[31m\r\n  Status: complete (T\x1b[0m\n)`+"\n")
	require.Contains(t, info, `  [2] str {}\x7f (f\x1b.c:3)`+"\n")
	require.Contains(t, info, `  k\n: v\x1b[1m\r\n  Status: complete`+"\n")
	require.Contains(t, info, "  Status: recovered")
	_, dump, _ := runTool("dump", path)
	require.Contains(t, dump, `[        11] core1\tfine: str s\x1b[K\r\n[        99] forged: event\n  Status: complete\x7f`+"\n")
	_, stats, _ := runTool("stats", path)
	require.Contains(t, stats, `core0\x1b[31m\r\n  Status: complete`)
}
