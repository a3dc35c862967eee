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
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
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

// Hostile-review finding: follow of a killed run's file decoded the block
// it stopped at again at every poll (a batch of up to 32 MiB each time)
// until Ctrl-C: a damaged block with whole blocks after it, or a damaged
// last block (which may be one being written). It is decoded again only
// when the file changes there; the warning is still given once, and what
// is printed is what dump prints.
func TestFollowDoesNotDecodeAStuckBlockAtEveryPoll(t *testing.T) {
	files := damagedFooterless(t)
	lastBad := append([]byte(nil), files["whole"]...)
	r, err := mmapio.OpenBytes("t.ctrace", lastBad)
	require.NoError(t, err)
	blocks := r.Blocks()
	r.Close()
	last := blocks[len(blocks)-1]
	lastBad[last.DataOffset+schema.BlockHeaderSize+uint64(last.CompressedSize)-2] ^= 8 // its content checksum
	for name, b := range map[string][]byte{"torn": files["magic"], "last": lastBad} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".ctrace")
			require.NoError(t, os.WriteFile(path, b, 0o644))
			fl, err := openFollower(path)
			require.NoError(t, err)
			defer fl.Close()
			out, warn := &syncBuf{}, &syncBuf{}
			fl.warn = warn
			polls := 0
			for range 50 {
				for {
					r, err := fl.step()
					require.NoError(t, err)
					if r == nil {
						break
					}
					_, err = tracetext.WriteDump(out, r, mmapio.Query{}, 0)
					r.Close()
					require.NoError(t, err)
				}
				polls++
			}
			require.LessOrEqual(t, fl.decodes, 3, "decodes in %d polls of an unchanged file", polls)
			require.NotNil(t, fl.stuck)
			require.NotEmpty(t, fl.stuck.why)
			code, want, wantWarn := runTool("dump", path)
			require.Zero(t, code)
			require.Equal(t, want, out.String())
			if name == "torn" {
				require.Equal(t, wantWarn, warn.String(), "warned once, as dump")
			}

			// The file changes there: the block is read again. For the last
			// block, a block appended after it makes it one left out, and
			// reading goes on.
			before := fl.decodes
			if name == "last" {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				require.NoError(t, err)
				_, err = f.Write(b[blocks[1].DataOffset:blocks[2].DataOffset])
				require.NoError(t, err)
				require.NoError(t, f.Close())
			} else {
				c := append([]byte(nil), b...)
				copy(c[blocks[4].DataOffset:blocks[5].DataOffset], files["whole"][blocks[4].DataOffset:])
				time.Sleep(10 * time.Millisecond) // a modification time of its own
				require.NoError(t, os.WriteFile(path, c, 0o644))
			}
			for {
				r, err := fl.step()
				require.NoError(t, err)
				if r == nil {
					break
				}
				r.Close()
			}
			require.Greater(t, fl.decodes, before)
		})
	}
}
