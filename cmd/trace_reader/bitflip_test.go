package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/schema"
)

// The bit-flip campaign (issue 21): a W1 trace of 40,000 events written by
// the runtime, then single-bit flips, each read by every path that reads a
// file (dump, info -v, recover, merge, sql, export). For each flip and path:
//
//	unchanged  exit 0, the same output as the intact file's
//	error      a non-zero exit or something on stderr (a warning)
//	silent     exit 0, nothing on stderr, and a different output: a flipped
//	           bit read as data
//
// A flip is silent if any path is. The samples: bits of the blocks' data
// (payload), bits anywhere in the file, and of the file without its footer
// (a killed writer's) the blocks' data (killed-payload) and the inline
// block headers (killed-headers); the same file written raw, killed (its
// events' checked fields, all its data); and, by hand only, the raw file
// complete and flips anywhere in the killed files. Each is counted by the
// region the flip lands in (header, schema, block header, block data,
// footer, unused). CI runs a small seeded sample; CHRONON_FLIPS=500 runs
// 500 flips of each (CHRONON_FLIP_SEED picks another sample,
// CHRONON_FLIP_SAMPLES=all or a list of names the samples). The test
// fails on any silent flip but those a killed raw file cannot check.
func TestBitFlipCampaign(t *testing.T) {
	flips := 10
	if testing.Short() {
		flips = 4
	}
	// The trace's events. Under the race detector, which slows every read
	// of every path tenfold and looks at goroutines, not at how many events
	// a flipped file holds, a quarter of them: 48 blocks per file (80 at
	// 40,000), compressed and raw. make test's stage 5 runs the full
	// campaign (10 flips of 40,000-event files) without it.
	events := 40000
	if raceEnabled {
		flips = 4 // 6 samples of 4 (5 samples of 12 took 92 s under the detector); make test's stage 5 runs 10 without it
		events = 10000
	}
	if v := os.Getenv("CHRONON_FLIPS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "CHRONON_FLIPS")
		flips = n
	}
	seed := uint64(21)
	if v := os.Getenv("CHRONON_FLIP_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "CHRONON_FLIP_SEED")
		seed = n
	}
	dir := t.TempDir()
	orig := filepath.Join(dir, "w1-orig.ctrace")
	_, err := workload.Run("w1", orig, events, 16, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	good, err := os.ReadFile(orig)
	require.NoError(t, err)

	c := newFlipCampaign(t, dir, orig)
	base := c.read(good)
	for _, p := range base {
		require.Equal(t, 0, p.code, "%s of the intact file: %s", p.name, p.stderr)
	}

	// The bits of the blocks' data, as the footer lists them.
	h, err := schema.ParseHeader(good, int64(len(good)))
	require.NoError(t, err)
	foot, err := schema.DecodeFooter(good[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	var payload [][2]int64 // [start, end) of each block's data
	var payloadBits int64
	for _, b := range foot.Blocks {
		start := int64(b.DataOffset) + schema.BlockHeaderSize
		payload = append(payload, [2]int64{start, start + int64(b.CompressedSize)})
		payloadBits += 8 * int64(b.CompressedSize)
	}
	rng := rand.New(rand.NewPCG(seed, 0x1bad))
	payloadBit := func() int64 {
		k := rng.Int64N(payloadBits)
		for _, r := range payload {
			if n := 8 * (r[1] - r[0]); k < n {
				return 8*r[0] + k
			}
			k -= 8 * (r[1] - r[0])
		}
		panic("unreachable")
	}
	anyBit := func() int64 { return rng.Int64N(8 * int64(len(good))) }

	// The file as a writer killed before Close leaves it: no footer, the
	// header's footer offsets zero. Its blocks are found by the recovery
	// walk and checked by their zstd content checksums alone.
	kh := h
	kh.FooterOffset, kh.FooterSize = 0, 0
	killed := append(schema.AppendHeader(nil, kh), good[schema.HeaderSize:h.FooterOffset]...)
	killedBase := c.read(killed)
	for _, p := range killedBase {
		require.Equal(t, 0, p.code, "%s of the killed file: %s", p.name, p.stderr)
	}

	// The same run written without compression, killed: its blocks are
	// raw, with no zstd frame and their CRC32C in the missing footer. The
	// recovery walk checks what the writer guarantees of each event
	// (docs/format.md, "Raw blocks without a footer"): flips in args_size,
	// the source unit, arg_count and the padding are never read as data.
	// Flips in the cycle, format id, category and argument values may be
	// (a value like another): they are counted and logged, not asserted.
	rawOrig := filepath.Join(dir, "w1-raw.ctrace")
	_, err = workload.Run("w1", rawOrig, events, 16, 1, chronon.WithAutoMetadata(false), chronon.WithCompression(false))
	require.NoError(t, err)
	rawGood, err := os.ReadFile(rawOrig)
	require.NoError(t, err)
	rh, err := schema.ParseHeader(rawGood, int64(len(rawGood)))
	require.NoError(t, err)
	rfoot, err := schema.DecodeFooter(rawGood[rh.FooterOffset:rh.FooterOffset+rh.FooterSize], int64(rh.FooterOffset))
	require.NoError(t, err)
	rkh := rh
	rkh.FooterOffset, rkh.FooterSize = 0, 0
	rawKilled := append(schema.AppendHeader(nil, rkh), rawGood[schema.HeaderSize:rh.FooterOffset]...)
	rawKilledBase := c.read(rawKilled)
	for _, p := range rawKilledBase {
		require.Equal(t, 0, p.code, "%s of the killed raw file: %s", p.name, p.stderr)
	}
	// checkedField[byte] says the byte is one of an event header's checked
	// fields: args_size (0-1), source (18-19), arg_count (20), padding (21-25).
	checkedField := map[int64]bool{}
	var checkedBytes []int64
	for _, b := range rfoot.Blocks {
		require.Equal(t, b.CompressedSize, b.UncompressedSize, "block at %d is raw", b.DataOffset)
		start := int64(b.DataOffset) + schema.BlockHeaderSize
		data := rawGood[start : start+int64(b.CompressedSize)]
		for p := 0; p < len(data); p += schema.EventHeaderSize + int(data[p]) | int(data[p+1])<<8 {
			for _, k := range []int{0, 1, 18, 19, 20, 21, 22, 23, 24, 25} {
				checkedField[start+int64(p+k)] = true
				checkedBytes = append(checkedBytes, start+int64(p+k))
			}
		}
	}
	rawPayload := payload[:0:0]
	var rawPayloadBits int64
	for _, b := range rfoot.Blocks {
		start := int64(b.DataOffset) + schema.BlockHeaderSize
		rawPayload = append(rawPayload, [2]int64{start, start + int64(b.CompressedSize)})
		rawPayloadBits += 8 * int64(b.CompressedSize)
	}
	rawPayloadBit := func() int64 {
		k := rng.Int64N(rawPayloadBits)
		for _, r := range rawPayload {
			if n := 8 * (r[1] - r[0]); k < n {
				return 8*r[0] + k
			}
			k -= 8 * (r[1] - r[0])
		}
		panic("unreachable")
	}
	rawCheckedBit := func() int64 { return 8*checkedBytes[rng.IntN(len(checkedBytes))] + rng.Int64N(8) }
	always := func(int64) bool { return true }
	inCheckedField := func(bit int64) bool { return checkedField[bit/8] }

	anyKilledBit := func() int64 { return rng.Int64N(8 * int64(len(killed))) }
	anyRawBit := func() int64 { return rng.Int64N(8 * int64(len(rawGood))) }
	anyRawKilledBit := func() int64 { return rng.Int64N(8 * int64(len(rawKilled))) }
	regions := fileRegions(h, foot)
	rawRegions := fileRegions(rh, rfoot)
	// A killed raw file's flips that must be caught: all but those in
	// event fields nothing vouches for without the footer.
	rawKilledCatch := func(bit int64) bool {
		return rawRegions.of(bit/8) != "block data" || checkedField[bit/8]
	}
	// The bits of the killed file's inline block headers, half of them in
	// the last block's (whose compressed_size, flipped, was once read as a
	// torn tail without a word).
	headerBit := func() int64 {
		b := foot.Blocks[len(foot.Blocks)-1]
		if rng.IntN(2) == 0 {
			b = foot.Blocks[rng.IntN(len(foot.Blocks))]
		}
		return 8*int64(b.DataOffset) + rng.Int64N(8*schema.BlockHeaderSize)
	}
	// CI's samples: those a flip must never pass; CHRONON_FLIP_SAMPLES=all
	// (or a list of names) adds the others: the raw file's (its blocks'
	// CRC32C in the footer as the compressed file's) and flips anywhere in
	// the killed files.
	only := map[string]bool{"payload": true, "anywhere": true, "killed-payload": true, "killed-headers": true,
		"killed-raw-checked": true, "killed-raw-payload": true}
	if v := os.Getenv("CHRONON_FLIP_SAMPLES"); v == "all" {
		only = nil
	} else if v != "" {
		only = map[string]bool{}
		for _, s := range strings.Split(v, ",") {
			only[s] = true
		}
	}
	var rawBase []flipRead // read only for the samples of the complete raw file
	if only == nil || only["raw-payload"] || only["raw-anywhere"] {
		rawBase = c.read(rawGood)
		for _, p := range rawBase {
			require.Equal(t, 0, p.code, "%s of the intact raw file: %s", p.name, p.stderr)
		}
	}
	for _, sample := range []struct {
		name    string
		good    []byte
		base    []flipRead
		regions flipRegions
		bit     func() int64
		// mustCatch says whether a silent flip of bit fails the test.
		mustCatch func(bit int64) bool
	}{
		{"payload", good, base, regions, payloadBit, always},
		{"anywhere", good, base, regions, anyBit, always},
		{"raw-payload", rawGood, rawBase, rawRegions, rawPayloadBit, always},
		{"raw-anywhere", rawGood, rawBase, rawRegions, anyRawBit, always},
		{"killed-payload", killed, killedBase, regions, payloadBit, always},
		{"killed-headers", killed, killedBase, regions, headerBit, always},
		{"killed-anywhere", killed, killedBase, regions, anyKilledBit, always},
		{"killed-raw-checked", rawKilled, rawKilledBase, rawRegions, rawCheckedBit, always},
		{"killed-raw-payload", rawKilled, rawKilledBase, rawRegions, rawPayloadBit, inCheckedField},
		{"killed-raw-anywhere", rawKilled, rawKilledBase, rawRegions, anyRawKilledBit, rawKilledCatch},
	} {
		if only != nil && !only[sample.name] {
			continue
		}
		good, base := sample.good, sample.base
		baseVerify, _ := c.verify(good)
		var counts [3]int // unchanged, error, silent
		perPath := map[string]*[3]int{}
		perRegion := map[string]*[3]int{}
		var silent []string
		uncaught := 0 // silent flips in fields nothing can check
		verified, verifyMissed := 0, 0
		for range flips {
			bit := sample.bit()
			bad := bytes.Clone(good)
			bad[bit/8] ^= 1 << (bit % 8)
			got := c.read(bad)
			worst := flipUnchanged
			var what []string
			for i, p := range got {
				k := classify(base[i], p)
				if perPath[p.name] == nil {
					perPath[p.name] = new([3]int)
				}
				perPath[p.name][k]++
				if k == flipSilent {
					what = append(what, p.name)
				}
				worst = max(worst, k)
			}
			counts[worst]++
			region := sample.regions.of(bit / 8)
			if perRegion[region] == nil {
				perRegion[region] = new([3]int)
			}
			perRegion[region][worst]++
			if worst == flipSilent && !sample.mustCatch(bit) {
				uncaught++
			} else if worst == flipSilent {
				silent = append(silent, fmt.Sprintf("byte %d bit %d, %s (%s)", bit/8, bit%8, region, strings.Join(what, ", ")))
			}
			if v, ok := c.verify(bad); ok {
				verified++
				// Passed: ok, or (a file without a footer, never ok) no
				// more said of it than of the intact file.
				if (v.code == 0 || v == baseVerify) && worst != flipUnchanged && sample.mustCatch(bit) {
					verifyMissed++
				}
			}
		}
		t.Logf("%s flips: %d: silent %d, error %d, unchanged %d", sample.name, flips, counts[flipSilent], counts[flipError], counts[flipUnchanged])
		if uncaught > 0 {
			t.Logf("  !!!!! %d of the silent flips are in fields a raw block without a footer cannot check (cycle, format id, category, argument values; docs/format.md) and do not fail the test", uncaught)
		}
		for _, p := range base {
			k := perPath[p.name]
			t.Logf("  %-8s silent %d, error %d, unchanged %d", p.name, k[flipSilent], k[flipError], k[flipUnchanged])
		}
		for _, r := range flipRegionNames {
			if k := perRegion[r]; k != nil {
				t.Logf("  in %-16s silent %d, error %d, unchanged %d", r, k[flipSilent], k[flipError], k[flipUnchanged])
			}
		}
		if verified > 0 {
			t.Logf("  verify passed %d flips that another path did not read unchanged", verifyMissed)
			assert.Zero(t, verifyMissed, "verify passed files that read differently")
		}
		assert.Empty(t, silent, "%s flips read as data without a word", sample.name)
	}
}

const (
	flipUnchanged = iota
	flipError
	flipSilent
)

// flipRead is what one reading path printed and wrote.
type flipRead struct {
	name   string
	code   int
	stdout string
	stderr string
}

func classify(base, got flipRead) int {
	switch {
	case got.code != 0 || got.stderr != base.stderr:
		return flipError
	case got.stdout != base.stdout:
		return flipSilent
	}
	return flipUnchanged
}

type flipCampaign struct {
	t    *testing.T
	dir  string
	path string // every variant is read under this name (info prints it)
	sql  bool
}

func newFlipCampaign(t *testing.T, dir, orig string) *flipCampaign {
	c := &flipCampaign{t: t, dir: dir, path: filepath.Join(dir, "w1.ctrace")}
	code, _, errOut := runTool("sql", orig, "-c", "SELECT 1")
	c.sql = code == 0
	if !c.sql {
		t.Logf("!!!!! NO SQL PATH IN THE CAMPAIGN (built without cgo?): %s !!!!!", errOut)
	}
	return c
}

// sqlQuery reads every event's cycle and message.
const sqlQuery = "SELECT count(*) AS n, sum(cycle) AS c, sum(hash(message)) AS h, count(DISTINCT unit) AS u FROM events"

// read runs every reading path on b (written to c.path).
func (c *flipCampaign) read(b []byte) []flipRead {
	t := c.t
	require.NoError(t, os.WriteFile(c.path, b, 0o644))
	var out []flipRead
	add := func(name string, code int, stdout, stderr string) {
		out = append(out, flipRead{name: name, code: code, stdout: stdout, stderr: stderr})
	}
	code, so, se := runTool("dump", c.path)
	add("dump", code, so, se)
	code, so, se = runTool("info", "-v", c.path)
	add("info -v", code, so, se)

	rec := filepath.Join(c.dir, "recovered.ctrace")
	os.Remove(rec)
	code, so, se = runTool("recover", c.path, "-o", rec)
	if code == 0 {
		// What the recovered file reads as, and that it verifies: not its
		// bytes, since recover copies blocks as they are, and a flip that
		// zstd decodes to the same events (a bit the frame does not use)
		// travels into the copy while every event reads the same.
		rc, ro, re := runTool("dump", rec)
		vc, vo, ve := runTool("verify", rec)
		code, so, se = max(rc, vc), so+"\n"+ro+"\n"+vo, se+re+ve
	}
	add("recover", code, so, se)

	merged := filepath.Join(c.dir, "merged.ctrace")
	os.Remove(merged)
	code, so, se = runTool("merge", "-o", merged, c.path)
	if code == 0 {
		mc, mo, me := runTool("dump", merged)
		code, so, se = mc, so+"\n"+mo, se+me
	}
	add("merge", code, so, se)

	if c.sql {
		code, so, se = runTool("sql", "--csv", c.path, "-c", sqlQuery)
		add("sql", code, so, se)
	}

	exp := filepath.Join(c.dir, "export.pftrace")
	os.Remove(exp)
	code, so, se = runTool("export", "--format", "perfetto", c.path, "-o", exp)
	if code == 0 {
		so += "\n" + fileText(t, exp)
	}
	add("export", code, so, se)
	return out
}

// verify runs trace_reader verify on b when the command exists: its exit
// status and output, and true; or false.
func (c *flipCampaign) verify(b []byte) (verifyOut, bool) {
	require.NoError(c.t, os.WriteFile(c.path, b, 0o644))
	code, out, _ := runTool("verify", c.path)
	if code == 2 { // no such command (an older build)
		return verifyOut{}, false
	}
	return verifyOut{code, out}, true
}

// verifyOut is what verify said of a file.
type verifyOut struct {
	code int
	out  string
}

// fileText is a file's bytes as a string, "" when it is missing.
func fileText(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// flipRegions names the sections of a file, to count flips by where they
// land.
type flipRegions struct {
	spans []flipSpan
}

type flipSpan struct {
	start, end int64
	name       string
}

var flipRegionNames = []string{"header", "schema", "block header", "block data", "footer", "unused"}

// fileRegions lays out a file from its header and footer. A killed copy
// of the file (header rewritten, footer cut) has the same layout up to the
// footer.
func fileRegions(h schema.Header, f *schema.Footer) flipRegions {
	r := flipRegions{spans: []flipSpan{
		{0, schema.HeaderSize, "header"},
		{int64(h.SchemaOffset), int64(h.SchemaOffset + h.SchemaSize), "schema"},
		{int64(h.FooterOffset), int64(h.FooterOffset + h.FooterSize), "footer"},
	}}
	for _, b := range f.Blocks {
		d := int64(b.DataOffset)
		r.spans = append(r.spans,
			flipSpan{d, d + schema.BlockHeaderSize, "block header"},
			flipSpan{d + schema.BlockHeaderSize, d + schema.BlockHeaderSize + int64(b.CompressedSize), "block data"})
	}
	return r
}

func (r flipRegions) of(off int64) string {
	for _, s := range r.spans {
		if off >= s.start && off < s.end {
			return s.name
		}
	}
	return "unused"
}
