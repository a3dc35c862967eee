package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/schema"
)

// verify: a file we wrote is ok; a flipped bit in one of its blocks is one
// line naming the file, the block, its offset and the checksum, exit 1; a
// file of the original writer is ok and says what could not be checked;
// info says which checksums a file carries.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "w1.ctrace")
	_, err := workload.Run("w1", good, 4000, 4, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	code, out, errOut := runTool("verify", good)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, good+": ok: ", out[:len(good)+6])
	require.NotContains(t, out, "not checked")

	// What merge and recover write carries the checksums too.
	merged, recovered := filepath.Join(dir, "merged.ctrace"), filepath.Join(dir, "recovered.ctrace")
	code, _, errOut = runTool("merge", "-o", merged, good)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runTool("recover", good, "-o", recovered)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	for _, p := range []string{merged, recovered} {
		code, out, errOut = runTool("verify", p)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, p+": ok: ", out[:len(p)+6])
		require.NotContains(t, out, "not checked")
		code, out, _ = runTool("info", p)
		require.Equal(t, 0, code)
		require.Contains(t, out, "  Checksums: CRC32C of header, schema, footer, every block")
	}

	code, out, _ = runTool("info", good)
	require.Equal(t, 0, code)
	require.Contains(t, out, "  Checksums: CRC32C of header, schema, footer, every block")

	b, err := os.ReadFile(good)
	require.NoError(t, err)
	h, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	foot, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	blk := foot.Blocks[1]
	bad := filepath.Join(dir, "bad.ctrace")
	c := append([]byte(nil), b...)
	c[blk.DataOffset+schema.BlockHeaderSize+uint64(blk.CompressedSize)/2] ^= 0x20
	require.NoError(t, os.WriteFile(bad, c, 0o644))
	code, out, errOut = runTool("verify", good, bad)
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2, out)
	require.True(t, strings.HasPrefix(lines[0], good+": ok: "), lines[0])
	require.Contains(t, lines[1], bad+": block 1 at byte ")
	require.Contains(t, lines[1], "checksum mismatch")
	require.Contains(t, errOut, "1 of 2 files have problems")
	// merge refuses it, and says what to do (new-user review).
	code, _, errOut = runTool("merge", "-o", filepath.Join(dir, "m.ctrace"), good, bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "checksum mismatch")
	require.Contains(t, errOut, "(trace_reader recover FILE -o FIXED writes a copy without the damaged blocks, to merge instead)")

	code, out, _ = runTool("verify", "--json", good, bad)
	require.Equal(t, 1, code)
	var rep verifyReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.False(t, rep.OK)
	require.Len(t, rep.Files, 2)
	require.True(t, rep.Files[0].OK)
	require.Empty(t, rep.Files[0].Problems)
	require.False(t, rep.Files[1].OK)
	require.Equal(t, []string{lines[1]}, rep.Files[1].Problems)

	// A flip in the footer: open refuses the file, verify says where.
	c = append([]byte(nil), b...)
	c[h.FooterOffset+h.FooterSize/2] ^= 1
	require.NoError(t, os.WriteFile(bad, c, 0o644))
	code, out, _ = runTool("verify", bad)
	require.Equal(t, 1, code)
	require.Contains(t, out, "footer")
	require.Contains(t, out, "checksum mismatch")

	// The original writer's file: ok, and what could not be checked.
	code, out, errOut = runTool("verify", ref("raw.ctrace"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, ref("raw.ctrace")+": not checked: no CRC32C checksums")
	require.Contains(t, out, ref("raw.ctrace")+": ok: 4 blocks, 5000 events")
	code, out, _ = runTool("info", ref("mixed-small.ctrace"))
	require.Equal(t, 0, code)
	require.Contains(t, out, "  Checksums: none\n")
}

// Hostile-review finding: verify died of SIGBUS when the file shrank while
// it checked the blocks (the block CRC read the mapping unguarded). Now
// the fault is a problem naming the file and the byte.
func TestVerifyOfAShrinkingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrinking.ctrace")
	data, err := os.ReadFile(ref("multiblock.ctrace"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	r, err := openTrace(&config{command: "verify"}, path)
	require.NoError(t, err)
	defer r.Close()
	f := rawread.File(r)
	blocks := f.Blocks()
	require.Greater(t, len(blocks), 2)
	require.NoError(t, os.Truncate(path, 4096))
	v := verifier{f: f, path: path, perUnit: map[uint16]uint64{}, formats: map[uint32]bool{}, units: map[uint16]bool{}}
	err = v.allBlocks(blocks)
	require.Error(t, err)
	require.Contains(t, err.Error(), path+": reading byte ")
	require.Contains(t, err.Error(), "the file shrank")
}

// Hostile-review finding: a closed file cut short (its footer past the new
// end) read as "ok" in verify and silently in every other command. Now
// verify reports it and the readers warn, naming the cut and what is read.
func TestCutShortFileIsNeverSilent(t *testing.T) {
	data, err := os.ReadFile(ref("multiblock.ctrace"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "cut.ctrace")
	require.NoError(t, os.WriteFile(path, data[:len(data)/2], 0o644))
	want := path + ": the file was cut short at byte " + strconv.Itoa(len(data)/2) + " (its footer lay further): only the "

	code, out, errOut := runTool("verify", path)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, want)
	for _, args := range [][]string{{"dump"}, {"stats"}, {"info"}, {"sql", "-c", "select count(*) from events"},
		{"export", "--format", "parquet", "-o", filepath.Join(t.TempDir(), "pq")}} {
		code, _, errOut := runTool(append(args, path)...)
		require.Equal(t, 0, code, "%q: %s", args, errOut)
		require.Contains(t, errOut, "trace_reader: warning: "+want, "%q", args)
	}
	// The file as written reads without a word.
	code, _, errOut = runTool("dump", ref("multiblock.ctrace"))
	require.Equal(t, 0, code)
	require.Empty(t, errOut)
}

// Hostile-review finding: verify of the original writer's killed file said
// "no schema" and skipped the id checks, though every other command reads
// the schema it finds after the header (its size in the header is 0 until
// close). Now it checks against it, as for the closed file. (The file
// was not closed: a problem, exit 1; TestVerifyOfAnUnclosedFile.)
func TestVerifyUsesTheSchemaOfAKilledFile(t *testing.T) {
	code, out, errOut := runTool("verify", ref("crash.ctrace.crash"))
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, ref("crash.ctrace.crash")+": not closed: no footer")
	require.NotContains(t, out, "no schema")
	require.Contains(t, out, "95 events have format ids the schema does not register (the first: 4000)")
}

// Hostile-review finding: a file we wrote whose header was stripped of its
// checksums (FLAG_CHECKSUMS cleared, header_crc32c and schema_crc32c
// zeroed) verified ok, "a file of the original writer". verify says what
// it sees: no checksums in the header, and, while the footer still carries
// its CRC32C fields, that the header and the footer disagree (a problem).
// With the footer's stripped too it names what it found, not a writer.
func TestVerifyOfAFileStrippedOfItsChecksumFlag(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "w1.ctrace")
	_, err := workload.Run("w1", good, 4000, 4, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	b, err := os.ReadFile(good)
	require.NoError(t, err)
	h, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	stripped := append([]byte(nil), b...)
	stripped[48] &^= byte(schema.FlagChecksums)
	clear(stripped[56:64])
	bad := filepath.Join(dir, "stripped.ctrace")
	require.NoError(t, os.WriteFile(bad, stripped, 0o644))
	code, out, _ := runTool("verify", bad)
	require.Equal(t, 1, code, out)
	require.NotContains(t, out, "original writer")
	require.Contains(t, out, bad+": header at byte 48: no checksums flagged (FLAG_CHECKSUMS clear, header_crc32c and schema_crc32c zero), but the footer at byte "+
		strconv.FormatUint(h.FooterOffset, 10)+" carries CRC32C fields: the header and the footer disagree")
	require.Contains(t, out, bad+": not checked: no CRC32C checksums flagged in the header: the header and schema are checked for structure only\n")

	// The footer rebuilt without its checksums as well.
	foot, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	foot.HasCRC = false
	fb := schema.BuildFooter(flatbuffers.NewBuilder(0), foot)
	h.FooterSize = uint64(len(fb))
	h.Flags &^= schema.FlagChecksums
	h.SchemaCRC, h.HeaderCRC = 0, 0
	c := schema.AppendHeader(nil, h)
	c = append(c, b[schema.HeaderSize:h.FooterOffset]...)
	c = append(c, fb...)
	require.NoError(t, os.WriteFile(bad, c, 0o644))
	code, out, _ = runTool("verify", bad)
	require.Equal(t, 0, code, out)
	require.NotContains(t, out, "original writer")
	require.Contains(t, out, bad+": not checked: no CRC32C checksums flagged in the header nor carried by the footer: the header, schema, footer and raw blocks are checked for structure only\n")
}

// Hostile-review finding: in a file without a footer, verify counted the
// schema frames between blocks (empty blocks holding a zstd skippable
// frame, where chronon-go appends a schema that outgrew its slots) as
// blocks: "ok: 14 blocks" for 12. They are not blocks of events; verify
// counts the blocks the file has, as the footer of a closed file would.
func TestVerifyDoesNotCountSchemaFramesAsBlocks(t *testing.T) {
	evs := ctracetest.W1Events(3000, 8, 5)
	s := ctracetest.W1Schema(8)
	opts := ctracetest.Options{BlockSize: 2048, PerUnit: true, Compress: true}
	closed, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "closed.ctrace")
	require.NoError(t, os.WriteFile(path, closed, 0o644))
	code, out, errOut := runTool("verify", path)
	require.Equal(t, 0, code, errOut)
	var blocks, events int
	_, err = fmt.Sscanf(out[strings.Index(out, path+": ok: ")+len(path)+6:], "%d blocks, %d events", &blocks, &events)
	require.NoError(t, err, out)
	require.Equal(t, len(evs), events)

	opts.NoFooter = true
	b, err := ctracetest.Build(s, evs, opts)
	require.NoError(t, err)
	h, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	first := int64(h.FirstBlockOffset)
	b = ctracetest.WithSchemaFrame(b, int64(len(b)), 100) // after the last block
	b = ctracetest.WithSchemaFrame(b, first, 40)          // before the first
	path = filepath.Join(dir, "killed.ctrace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, out, errOut = runTool("verify", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, fmt.Sprintf("%s: ok: %d blocks, %d events", path, blocks, events))
	code, out, _ = runTool("verify", "--json", path)
	require.Equal(t, 0, code)
	var rep verifyReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, blocks, rep.Files[0].Blocks)
}

// Hostile-review finding: a footer whose unit_stats listed a unit twice
// verified ok (each entry was checked against the blocks, and both agree).
// Our writers list a unit once; verify now says which unit is listed twice.
// A unit with events and no entry stays ok: merge writes the entries of
// the inputs that have them (a recovered input has none).
func TestVerifyUnitStatsListAUnitOnce(t *testing.T) {
	dir := t.TempDir()
	good, err := ctracetest.Build(ctracetest.W1Schema(4), ctracetest.W1Events(2000, 4, 3),
		ctracetest.Options{BlockSize: 4096, PerUnit: true, Compress: true, UnitStats: true})
	require.NoError(t, err)

	twice, err := ctracetest.EditFooter(append([]byte(nil), good...), func(f *schema.Footer) {
		f.UnitStats = append(f.UnitStats, f.UnitStats[1])
	})
	require.NoError(t, err)
	h, err := schema.ParseHeader(twice, int64(len(twice)))
	require.NoError(t, err)
	bad := filepath.Join(dir, "twice.ctrace")
	require.NoError(t, os.WriteFile(bad, twice, 0o644))
	code, out, _ := runTool("verify", bad)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, bad+": footer at byte "+strconv.FormatUint(h.FooterOffset, 10)+": unit_stats list unit 2 twice\n")

	missing, err := ctracetest.EditFooter(append([]byte(nil), good...), func(f *schema.Footer) {
		f.UnitStats = f.UnitStats[1:]
	})
	require.NoError(t, err)
	path := filepath.Join(dir, "missing.ctrace")
	require.NoError(t, os.WriteFile(path, missing, 0o644))
	code, out, errOut := runTool("verify", path)
	require.Equal(t, 0, code, out+errOut)
}

// Review finding (issue 21): verify of a file whose writer was killed (no
// footer) exited 0 with "not checked" notes, as if the file were whole.
// A file that was not closed is a problem: one line says so and that
// recover writes a closed copy, exit 1; its blocks are still checked and
// a damaged one still named. A file closed without an index (the original
// writer's option) and the copy recover writes are ok.
func TestVerifyOfAnUnclosedFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "w1.ctrace")
	_, err := workload.Run("w1", good, 4000, 4, 1, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	b, err := os.ReadFile(good)
	require.NoError(t, err)
	h, err := schema.ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	foot, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], int64(h.FooterOffset))
	require.NoError(t, err)
	kh := h
	kh.FooterOffset, kh.FooterSize = 0, 0
	killedBytes := append(schema.AppendHeader(nil, kh), b[schema.HeaderSize:h.FooterOffset]...)
	killed := filepath.Join(dir, "killed.ctrace")
	require.NoError(t, os.WriteFile(killed, killedBytes, 0o644))

	notClosed := fmt.Sprintf("%s: not closed: no footer (the writer did not close the file); %d blocks, %d events found by walking the blocks, checked as far as they go; trace_reader recover %s -o FIXED writes a closed copy\n",
		killed, len(foot.Blocks), foot.TotalEvents, killed)
	code, out, errOut := runTool("verify", killed)
	require.Equal(t, 1, code, out)
	require.True(t, strings.HasPrefix(out, notClosed), out)
	require.NotContains(t, out, ": ok: ")
	require.Contains(t, errOut, "1 of 1 files have problems")
	code, out, _ = runTool("verify", "--json", killed)
	require.Equal(t, 1, code)
	var rep verifyReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.False(t, rep.OK)
	require.Equal(t, []string{strings.TrimSuffix(notClosed, "\n")}, rep.Files[0].Problems)
	require.Equal(t, len(foot.Blocks), rep.Files[0].Blocks)

	// Its blocks are still checked: a flipped bit in a middle block's data
	// is named as well.
	blk := foot.Blocks[len(foot.Blocks)/2]
	bad := append([]byte(nil), killedBytes...)
	bad[blk.DataOffset+schema.BlockHeaderSize+uint64(blk.CompressedSize)/2] ^= 0x10
	damaged := filepath.Join(dir, "damaged.ctrace")
	require.NoError(t, os.WriteFile(damaged, bad, 0o644))
	code, out, _ = runTool("verify", damaged)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, damaged+": not closed: no footer")
	require.Contains(t, out, fmt.Sprintf("block at byte %d", blk.DataOffset), out)

	// The closed copy recover writes verifies ok.
	fixed := filepath.Join(dir, "fixed.ctrace")
	code, _, errOut = runTool("recover", killed, "-o", fixed)
	require.Equal(t, 0, code, errOut)
	code, out, _ = runTool("verify", fixed)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, fixed+": ok: ")

	// A file of ours with its index flag cleared is still
	// one whose writer did not close it: it carries checksums.
	noIndex := append([]byte(nil), killedBytes...)
	kh.Flags &^= schema.FlagHasIndex
	copy(noIndex, schema.AppendHeader(nil, kh))
	require.NoError(t, os.WriteFile(damaged, noIndex, 0o644))
	code, out, _ = runTool("verify", damaged)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, damaged+": not closed: no footer")

	// Closed without an index by the original writer: not a killed file.
	// (Nor can a file without either flag be told from one: the test
	// builder's footer-less files, TestVerifyDoesNotCountSchemaFramesAsBlocks.)
	code, out, _ = runTool("verify", ref("noindex.ctrace"))
	require.Equal(t, 0, code, out)
	require.NotContains(t, out, "not closed")
}
