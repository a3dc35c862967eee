package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFollowOneFile: follow and stats --follow read one growing file;
// several are a usage error (status 2, one line, then the hint), not the
// first followed silently.
func TestFollowOneFile(t *testing.T) {
	for _, c := range []struct {
		args []string
		cmd  string
	}{
		{[]string{"follow", ref("raw.ctrace"), ref("multiblock.ctrace")}, "follow"},
		{[]string{"stats", "--follow", ref("raw.ctrace"), ref("multiblock.ctrace")}, "stats"},
		{[]string{"stats", ref("raw.ctrace"), ref("multiblock.ctrace"), "--follow"}, "stats"},
	} {
		code, out, stderr := runTool(c.args...)
		require.Equal(t, 2, code, "%q", c.args)
		require.Empty(t, out)
		first, rest, _ := strings.Cut(stderr, "\n")
		require.Contains(t, first, "one file", "%q", c.args)
		require.Equal(t, "Run 'trace_reader help "+c.cmd+"' for usage.\n", rest)
	}
	code, out, _ := runTool("help", "follow")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Usage: trace_reader follow [options] <file.ctrace>\n")
}
