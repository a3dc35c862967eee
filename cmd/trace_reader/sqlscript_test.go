package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A script splits as the duckdb shell reads one: a line starting with '.'
// is a dot command only where no statement is under way (not inside a
// statement, a string or a comment).
func TestSplitScript(t *testing.T) {
	for _, c := range []struct {
		script string
		want   []scriptItem
	}{
		{".tables", []scriptItem{{dot: ".tables"}}},
		{"  .schema fetch_  \n", []scriptItem{{dot: ".schema fetch_"}}},
		{"SELECT 1", []scriptItem{{sql: "SELECT 1"}}},
		{"SELECT 1; SELECT 2;\n.tables\nSELECT 3", []scriptItem{{sql: "SELECT 1; SELECT 2;\n"}, {dot: ".tables"}, {sql: "SELECT 3"}}},
		{".tables\n.schema x\n", []scriptItem{{dot: ".tables"}, {dot: ".schema x"}}},
		// Inside a statement: SQL (a decimal on its own line, say).
		{"SELECT 1\n.5;\n.tables", []scriptItem{{sql: "SELECT 1\n.5;\n"}, {dot: ".tables"}}},
		{"SELECT 'a;\n.tables\n';\n", []scriptItem{{sql: "SELECT 'a;\n.tables\n';\n"}}},
		{"SELECT \"x;\n.t\" FROM t;", []scriptItem{{sql: "SELECT \"x;\n.t\" FROM t;"}}},
		{"SELECT $$a;\n.tables\n$$;", []scriptItem{{sql: "SELECT $$a;\n.tables\n$$;"}}},
		{"SELECT $q$a;\n.tables\n$q$;", []scriptItem{{sql: "SELECT $q$a;\n.tables\n$q$;"}}},
		{"/* a;\n.tables\n*/ SELECT 1;", []scriptItem{{sql: "/* a;\n.tables\n*/ SELECT 1;"}}},
		{"SELECT 'it''s';\n.tables", []scriptItem{{sql: "SELECT 'it''s';\n"}, {dot: ".tables"}}},
		// A comment after ';' ends nothing: the statement is complete.
		{"SELECT 1; -- done\n.tables", []scriptItem{{sql: "SELECT 1; -- done\n"}, {dot: ".tables"}}},
		// Comments and blanks alone are no query.
		{"-- hello\n\n.tables\n;\n", []scriptItem{{dot: ".tables"}}},
		{"", nil},
	} {
		require.Equal(t, c.want, splitScript(c.script), "%q", c.script)
	}
}

// FuzzSplitScript: any script splits without a panic into dot commands
// (one line each, starting with '.') and runs of SQL that hold a
// statement, each found in the script after the one before.
func FuzzSplitScript(f *testing.F) {
	for _, s := range []string{".tables", "SELECT 1;\n.tables\nSELECT 2", "SELECT 'a;\n.x\n';", "/* .x\n*/", "$q$\n.x\n$q$", "SELECT \"a\n.b\";"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		rest := script
		for _, it := range splitScript(script) {
			if it.dot != "" {
				require.True(t, strings.HasPrefix(it.dot, "."), "%q", it.dot)
				require.NotContains(t, it.dot, "\n")
				i := strings.Index(rest, it.dot)
				require.GreaterOrEqual(t, i, 0, "%q not in %q", it.dot, rest)
				rest = rest[i+len(it.dot):]
				continue
			}
			require.True(t, hasStatement(it.sql), "%q", it.sql)
			i := strings.Index(rest, it.sql)
			require.GreaterOrEqual(t, i, 0, "%q not in %q", it.sql, rest)
			rest = rest[i+len(it.sql):]
		}
	})
}
