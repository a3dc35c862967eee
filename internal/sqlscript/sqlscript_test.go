package sqlscript

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A script splits as the duckdb shell reads one: a line starting with '.'
// is a dot command only where no statement is under way (not inside a
// statement, a string or a comment).
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		script string
		want   []Item
	}{
		{".tables", []Item{{Dot: ".tables"}}},
		{"  .schema fetch_  \n", []Item{{Dot: ".schema fetch_"}}},
		{"SELECT 1", []Item{{SQL: "SELECT 1"}}},
		{"SELECT 1; SELECT 2;\n.tables\nSELECT 3", []Item{{SQL: "SELECT 1; SELECT 2;\n"}, {Dot: ".tables"}, {SQL: "SELECT 3"}}},
		{".tables\n.schema x\n", []Item{{Dot: ".tables"}, {Dot: ".schema x"}}},
		// Inside a statement: SQL (a decimal on its own line, say).
		{"SELECT 1\n.5;\n.tables", []Item{{SQL: "SELECT 1\n.5;\n"}, {Dot: ".tables"}}},
		{"SELECT 'a;\n.tables\n';\n", []Item{{SQL: "SELECT 'a;\n.tables\n';\n"}}},
		{"SELECT \"x;\n.t\" FROM t;", []Item{{SQL: "SELECT \"x;\n.t\" FROM t;"}}},
		{"SELECT $$a;\n.tables\n$$;", []Item{{SQL: "SELECT $$a;\n.tables\n$$;"}}},
		{"SELECT $q$a;\n.tables\n$q$;", []Item{{SQL: "SELECT $q$a;\n.tables\n$q$;"}}},
		{"/* a;\n.tables\n*/ SELECT 1;", []Item{{SQL: "/* a;\n.tables\n*/ SELECT 1;"}}},
		{"SELECT 'it''s';\n.tables", []Item{{SQL: "SELECT 'it''s';\n"}, {Dot: ".tables"}}},
		// A comment after ';' ends nothing: the statement is complete.
		{"SELECT 1; -- done\n.tables", []Item{{SQL: "SELECT 1; -- done\n"}, {Dot: ".tables"}}},
		// Comments and blanks alone are no query.
		{"-- hello\n\n.tables\n;\n", []Item{{Dot: ".tables"}}},
		{"", nil},
	} {
		require.Equal(t, c.want, Split(c.script), "%q", c.script)
	}
}

// FuzzSplit: any script splits without a panic into dot commands
// (one line each, starting with '.') and runs of SQL that hold a
// statement, each found in the script after the one before.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{".tables", "SELECT 1;\n.tables\nSELECT 2", "SELECT 'a;\n.x\n';", "/* .x\n*/", "$q$\n.x\n$q$", "SELECT \"a\n.b\";"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		rest := script
		for _, it := range Split(script) {
			if it.Dot != "" {
				require.True(t, strings.HasPrefix(it.Dot, "."), "%q", it.Dot)
				require.NotContains(t, it.Dot, "\n")
				i := strings.Index(rest, it.Dot)
				require.GreaterOrEqual(t, i, 0, "%q not in %q", it.Dot, rest)
				rest = rest[i+len(it.Dot):]
				continue
			}
			require.True(t, HasStatement(it.SQL), "%q", it.SQL)
			i := strings.Index(rest, it.SQL)
			require.GreaterOrEqual(t, i, 0, "%q not in %q", it.SQL, rest)
			rest = rest[i+len(it.SQL):]
		}
	})
}
