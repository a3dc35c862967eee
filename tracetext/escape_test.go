package tracetext_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// hostileTrace has a unit name, a simulation name, metadata, format strings
// and string arguments full of control characters: an escape sequence, CR,
// LF, a forged dump line and a forged "Status: complete".
func hostileTrace(t testing.TB, opts ctracetest.Options) []byte {
	t.Helper()
	s := &schema.Schema{Version: 1, SimulationName: "sim\x1b]0;pwned\x07", Writer: "w\r\n  Status: complete"}
	s.Formats = []schema.Format{
		// Fixed arguments only: the fast line path.
		{ID: 1, Format: "fast {}\r[         1] forged: line\x1b[2J {:x}\n  Status: complete", ArgTypes: []schema.ArgType{schema.ArgUInt32, schema.ArgUInt64}},
		// A string argument: the general path.
		{ID: 2, Format: "str {} then\t{}\x7f", ArgTypes: []schema.ArgType{schema.ArgString, schema.ArgInt8}},
		{ID: 3, Format: "plain {} ok", ArgTypes: []schema.ArgType{schema.ArgString}},
	}
	s.Units = []schema.Unit{
		{ID: 1, Name: "core0\x1b[31m.evil\r\n[         7] unit: forged\nStatus: complete", TypeName: "T\x1b[0m"},
		{ID: 2, Name: "core1.fine", TypeName: "Fine"},
	}
	s.Metadata = []schema.KeyValue{{Key: "k\n", Value: "v\x1b[1m\r\nStatus: complete"}}
	var evs []ctracetest.Event
	for i := range 300 {
		r := schema.Record{Cycle: uint64(100 + i), SourceID: uint16(1 + i%2), FormatID: uint32(1 + i%3)}
		var a ctracetest.Args
		switch r.FormatID {
		case 1:
			a = a.U32(uint32(i)).U64(0xdead)
			r.ArgCount = 2
		case 2:
			a = a.Str("s\x1b[K\r\n[        99] forged: event\u009b").I8(-3)
			r.ArgCount = 2
		case 3:
			a = a.Str("no controls here")
			r.ArgCount = 1
		}
		evs = append(evs, ctracetest.Event{Record: r, Args: a})
	}
	b, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	return b
}

// requireNoControls fails if text holds a control character other than the
// newline ending each line, or a C1 control.
func requireNoControls(t testing.TB, text []byte) {
	t.Helper()
	for i, c := range text {
		if c < 0x20 && c != '\n' || c == 0x7f || c == 0xc2 && i+1 < len(text) && text[i+1] >= 0x80 && text[i+1] <= 0x9f {
			t.Fatalf("raw control byte %#x at %d: %q", c, i, text[max(0, i-40):min(len(text), i+40)])
		}
	}
}

func TestEscapeText(t *testing.T) {
	require.Equal(t, `core0\x1b[31m\r\n`, tracetext.EscapeText("core0\x1b[31m\r\n"))
	require.Equal(t, "plain", tracetext.EscapeText("plain"))
}

// Names, format strings and string arguments from the file print with
// their control characters escaped: one event is one line, and nothing
// reaches the terminal raw. The fast and the general line paths and the Go
// API agree.
func TestDumpEscapesControlCharacters(t *testing.T) {
	for name, opts := range map[string]ctracetest.Options{"raw": {BlockSize: 1024}, "zstd": {BlockSize: 1024, Compress: true, PerUnit: true}} {
		t.Run(name, func(t *testing.T) {
			r, err := mmapio.OpenBytes("hostile.ctrace", hostileTrace(t, opts))
			require.NoError(t, err)
			defer r.Close()
			var buf bytes.Buffer
			n, err := tracetext.WriteDump(&buf, r, mmapio.Query{}, 0)
			require.NoError(t, err)
			text := buf.Bytes()
			require.Equal(t, 300, n)
			require.Equal(t, 300, bytes.Count(text, []byte("\n")), "one line per event")
			requireNoControls(t, text)
			var iter []byte
			for ev := range r.Events(mmapio.Query{}) {
				iter = tracetext.AppendLine(iter, r, &ev)
			}
			require.Equal(t, string(text), string(iter))
			lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
			unit1 := `core0\x1b[31m.evil\r\n[         7] unit: forged\nStatus: complete`
			require.Equal(t, `[       100] `+unit1+`: fast 0\r[         1] forged: line\x1b[2J dead\n  Status: complete`, lines[0])
			require.Equal(t, `[       101] core1.fine: str s\x1b[K\r\n[        99] forged: event\u009b then\t-3\x7f`, lines[1])
			require.Equal(t, `[       102] `+unit1+`: plain no controls here ok`, lines[2])
			for _, l := range lines {
				require.NotEqual(t, "Status: complete", strings.TrimSpace(l))
			}
			// Event.Message escapes too; RawArgs and Arg.Bytes stay raw.
			for ev := range r.Events(mmapio.Query{}.WithCycles(101, 101)) {
				require.Contains(t, ev.Message(), `s\x1b[K\r\n[`)
				a, ok := ev.Arg(0)
				require.True(t, ok)
				require.Equal(t, "s\x1b[K\r\n[        99] forged: event\u009b", string(a.Bytes()))
			}
			require.NoError(t, r.Err())
		})
	}
}
