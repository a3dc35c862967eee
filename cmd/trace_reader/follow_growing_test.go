package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// damagedFooterless returns a footer-less file of several blocks (what a
// killed writer leaves) as it is, with block 2's zstd checksum flipped
// (dump leaves that block out and goes on), and with block 4's frame magic
// overwritten (dump stops there).
func damagedFooterless(t *testing.T) map[string][]byte {
	t.Helper()
	evs := ctracetest.W1Events(3000, 8, 5)
	b, err := ctracetest.Build(ctracetest.W1Schema(8), evs, ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true, NoFooter: true})
	require.NoError(t, err)
	r, err := mmapio.OpenBytes("t.ctrace", b)
	require.NoError(t, err)
	blocks := r.Blocks()
	r.Close()
	require.Greater(t, len(blocks), 8)
	sum := append([]byte(nil), b...)
	sum[blocks[2].DataOffset+schema.BlockHeaderSize+uint64(blocks[2].CompressedSize)-2] ^= 8 // in its content checksum
	magic := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(magic[blocks[4].DataOffset+schema.BlockHeaderSize:], 0xdeadbeef)
	return map[string][]byte{"whole": b, "checksum": sum, "magic": magic}
}

// sameAsDump checks that a follow printed every event dump prints of the
// final file exactly once (each unit's in order) and gave the same warnings.
func sameAsDump(t *testing.T, path, out, warn string) {
	t.Helper()
	code, want, wantWarn := runTool("dump", path)
	require.Zero(t, code, wantWarn)
	require.Equal(t, strings.Count(want, "\n"), strings.Count(out, "\n"))
	require.Equal(t, byUnit(want), byUnit(out))
	lines := func(s string) []string {
		return slices.Sorted(slices.Values(strings.Split(strings.TrimSpace(s), "\n")))
	}
	require.Equal(t, lines(wantWarn), lines(warn))
}

// Hostile review: follow printed the blocks after a damaged one again at
// the next poll and left the damaged one out silently. The file grows in
// random small chunks and the follower polls between them (every cut a
// write can leave); it prints what dump prints of the final file, each
// event once, and warns of each block left out once, as dump does.
func TestFollowGrowingDamagedFileMatchesDump(t *testing.T) {
	// Twenty seeded chunkings of each file; eight under the race detector,
	// which slows each follow tenfold and watches its goroutines, not how
	// many cuts it sees: make test's stage 5 runs twenty without it.
	seeds := uint64(20)
	if raceEnabled {
		seeds = 8
	}
	for name, b := range damagedFooterless(t) {
		for seed := range seeds {
			path := filepath.Join(t.TempDir(), name+".ctrace")
			rng := rand.New(rand.NewPCG(seed, 7))
			f, err := os.Create(path)
			require.NoError(t, err)
			fl, err := openFollower(path)
			require.NoError(t, err)
			var out, warn bytes.Buffer
			fl.warn = &warn
			for off := 0; off < len(b); {
				n := min(len(b)-off, 1+rng.IntN(700))
				_, err := f.Write(b[off : off+n])
				require.NoError(t, err)
				off += n
				for {
					r, err := fl.step()
					require.NoError(t, err)
					if r == nil {
						break
					}
					_, err = tracetext.WriteDump(&out, r, mmapio.Query{}, 0)
					r.Close()
					require.NoError(t, err)
				}
			}
			require.NoError(t, f.Close())
			require.NoError(t, fl.Close())
			t.Run(name, func(t *testing.T) { sameAsDump(t, path, out.String(), warn.String()) })
		}
	}
}

// The same with the follow command running while another goroutine
// appends the file in random chunks at random moments.
func TestFollowCommandGrowingDamagedFile(t *testing.T) {
	for name, b := range damagedFooterless(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".ctrace")
			f, err := os.Create(path)
			require.NoError(t, err)
			defer f.Close()
			out, warn := &syncBuf{}, &syncBuf{}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- followTrace(ctx, &config{command: "follow", file: path, warn: warn}, out, time.Millisecond)
			}()
			rng := rand.New(rand.NewPCG(1, 2))
			for off := 0; off < len(b); {
				n := min(len(b)-off, 1+rng.IntN(900))
				_, err := f.Write(b[off : off+n])
				require.NoError(t, err)
				off += n
				time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
			}
			_, want, _ := runTool("dump", path)
			require.Eventually(t, func() bool { return strings.Count(out.String(), "\n") >= strings.Count(want, "\n") }, 20*time.Second, time.Millisecond)
			time.Sleep(50 * time.Millisecond) // anything printed twice would be by now
			cancel()
			require.NoError(t, <-done)
			sameAsDump(t, path, out.String(), warn.String())
		})
	}
}

// stats --follow names the blocks it leaves out as follow does.
func TestFollowStatsWarnsOfDamagedBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checksum.ctrace")
	require.NoError(t, os.WriteFile(path, damagedFooterless(t)["checksum"], 0o644))
	_, _, want := runTool("dump", path)
	require.Contains(t, want, "its events are left out")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	warn := &syncBuf{}
	require.NoError(t, followStats(ctx, &config{command: "stats", file: path, follow: true, warn: warn}, &syncBuf{}, 100*time.Millisecond))
	require.Equal(t, want, warn.String())
}
