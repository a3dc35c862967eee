package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/schema"
)

// follow of a killed run's file with a flipped bit in a block between good
// ones prints what dump prints (the block left out) and says so on stderr:
// one line naming the block at its offset in the file, as dump's.
func TestFollowWarnsOfDamagedBlocks(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "w1.ctrace")
	_, err := workload.Run("w1", orig, 6000, 4, 1, chronon.WithAutoMetadata(false), chronon.WithBlockSize(4096))
	require.NoError(t, err)
	good, err := os.ReadFile(orig)
	require.NoError(t, err)
	h, err := schema.ParseHeader(good, int64(len(good)))
	require.NoError(t, err)
	foot, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	require.Greater(t, len(foot.Blocks), 4)
	kh := h
	kh.FooterOffset, kh.FooterSize = 0, 0
	killed := append(schema.AppendHeader(nil, kh), good[schema.HeaderSize:h.FooterOffset]...)
	b := foot.Blocks[2]
	require.NotEqual(t, b.CompressedSize, b.UncompressedSize, "block 2 is compressed")
	killed[b.DataOffset+schema.BlockHeaderSize+uint64(b.CompressedSize)-2] ^= 4 // its content checksum
	path := filepath.Join(dir, "killed.ctrace")
	require.NoError(t, os.WriteFile(path, killed, 0o644))

	code, want, dumpErr := runTool("dump", path)
	require.Equal(t, 0, code, dumpErr)
	wantLine := "block at byte " + strconv.FormatUint(b.DataOffset, 10) + " does not decode"
	require.Contains(t, dumpErr, wantLine)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, warn := &syncBuf{}, &syncBuf{}
	done := make(chan error, 1)
	go func() {
		done <- followTrace(ctx, &config{command: "follow", file: path, warn: warn}, out, time.Millisecond)
	}()
	require.Eventually(t, func() bool { return len(out.String()) >= len(want) }, 20*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // later polls print nothing more
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, want, out.String())
	require.Equal(t, 1, strings.Count(warn.String(), "\n"), warn.String())
	require.Contains(t, warn.String(), path+": "+wantLine)
	require.Contains(t, warn.String(), "checksum mismatch")
	require.Equal(t, dumpErr, warn.String(), "the line dump prints")
}
