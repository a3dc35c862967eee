package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "256MiB": 256 << 20, "256M": 256 << 20, "1g": 1 << 30,
		"2GiB": 2 << 30, "64KiB": 64 << 10, "1T": 1 << 40, "12B": 12} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "MiB", "-1M", "1X", "1.5G", "99999999999T"} {
		_, err := parseSize(in)
		require.Error(t, err, in)
	}
}

// --memory reaches the reader: a budget smaller than the blocks that
// overlap reads the same events (in windows); out of range is usage.
func TestMemoryOption(t *testing.T) {
	_, want, _ := runTool("dump", ref("multiblock.ctrace"))
	code, got, errOut := runTool("dump", "--memory", "1MiB", ref("multiblock.ctrace"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, got)
	for _, cmd := range []string{"dump", "stats", "info", "export", "recover"} {
		code, _, errOut = runTool(cmd, "--memory", "10", ref("multiblock.ctrace"), "-o", "/dev/null")
		require.Equal(t, 2, code, "%s: %s", cmd, errOut)
		require.Contains(t, errOut, "--memory")
	}
}
