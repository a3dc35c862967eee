package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// verifyFiles checks every byte of each file that can be checked: opening
// it verifies the header, schema and footer (their checksums and
// structure); then every block is decoded (its CRC32C, its zstd frames'
// content checksums, its events), and the footer's totals, unit sets and
// unit_stats and the events' format and unit ids are checked against what
// the blocks hold. One line per problem (file, section, offset, what), one
// line for each thing a file gives nothing to check against, one "ok" line
// for a file without problems (--json: the same as one object). Exit 1 when
// any file has a problem.
func verifyFiles(c *config, stdout io.Writer) error {
	rep := verifyReport{Files: []verifyFileReport{}}
	bad := 0
	for _, path := range c.files {
		fr := verifyFile(c, path)
		if !fr.OK {
			bad++
		}
		if !c.json {
			for _, p := range fr.Problems {
				fmt.Fprintf(stdout, "%s\n", p)
			}
			for _, s := range fr.NotChecked {
				fmt.Fprintf(stdout, "%s: not checked: %s\n", path, s)
			}
			if fr.OK {
				fmt.Fprintf(stdout, "%s: ok: %d blocks, %d events\n", path, fr.Blocks, fr.Events)
			}
		}
		rep.Files = append(rep.Files, fr)
	}
	rep.OK = bad == 0
	if c.json {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	}
	if bad > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("verify: %d of %d files have problems", bad, len(c.files))}
	}
	return nil
}

// verifyReport is what verify --json prints.
type verifyReport struct {
	OK    bool               `json:"ok" doc:"No file has a problem (the exit status is then 0, else 1)"`
	Files []verifyFileReport `json:"files" doc:"One per file, in the order given"`
}

type verifyFileReport struct {
	File       string   `json:"file" doc:"The file"`
	OK         bool     `json:"ok" doc:"Nothing verify checked has a problem"`
	Problems   []string `json:"problems" doc:"One message per problem: the file, the section, the byte offset and what is wrong"`
	NotChecked []string `json:"not_checked" doc:"What the file gives nothing to check against (no CRC32C flagged in its header, as in the original writer's files; no footer)"`
	Blocks     int      `json:"blocks" doc:"Blocks read (the schema frames a file without a footer holds between its blocks are not blocks)"`
	Events     uint64   `json:"events" doc:"Events in the blocks that decoded"`
}

// verifyFile verifies one file.
func verifyFile(c *config, path string) verifyFileReport {
	fr := verifyFileReport{File: path, Problems: []string{}, NotChecked: []string{}}
	r, err := openTrace(c, path)
	if err != nil {
		fr.Problems = append(fr.Problems, oneLine(err.Error()))
		return fr
	}
	defer r.Close()
	f := rawread.File(r)
	v := verifier{f: f, path: path, perUnit: map[uint16]uint64{}}
	v.formats = map[uint32]bool{}
	v.units = map[uint16]bool{}
	v.ours = f.Header().HasChecksums()
	v.ours = v.ours || v.footerCRC() // a header stripped of its flag: checksumFlag says so
	// The schema of a file whose writer was killed is found after the
	// header though the header's size for it is 0 (the original writer
	// writes it at close): it is checked against all the same.
	if s := f.Schema(); s != nil && (f.Header().SchemaSize != 0 || len(s.Formats) > 0 || len(s.Units) > 0) {
		v.hasSchema = true
		for _, x := range s.Formats {
			v.formats[x.ID] = true
		}
		for _, u := range s.Units {
			v.units[u.ID] = true
		}
	}
	for _, d := range f.Status().Damaged { // left out by the walk of a footer-less file
		v.problem("%s: %s", path, oneLine(d))
	}
	if st := r.Status(); tornByDamage(st) {
		v.problem("%s: torn tail at byte %d: %s", path, st.TornOffset, oneLine(st.TornReason))
	}
	if st := r.Status(); st.CutShort {
		v.problem("%s", cutShortLine(path, st))
	}
	if err := v.allBlocks(f.Blocks()); err != nil {
		v.problem("%s", oneLine(err.Error()))
	} else if err := r.Err(); err != nil { // the file shrank while it was read
		v.problem("%s", oneLine(err.Error()))
	}
	v.totals()
	v.checksumFlag()
	if unclosed(f) {
		fr.Problems = append(fr.Problems, fmt.Sprintf("%s: not closed: no footer (the writer did not close the file); %d blocks, %d events found by walking the blocks, checked as far as they go; trace_reader recover %s -o FIXED writes a closed copy",
			path, v.blocks, v.events, path))
	}
	fr.Problems = append(fr.Problems, v.problems...)
	fr.NotChecked = append(fr.NotChecked, v.cannot()...)
	fr.OK = len(fr.Problems) == 0
	fr.Blocks, fr.Events = v.blocks, v.events
	return fr
}

type verifier struct {
	f        *tracefile.File
	path     string
	problems []string

	formats map[uint32]bool // format ids of the schema
	units   map[uint16]bool // unit ids of the schema

	blocks, decoded int
	events          uint64
	minC, maxC      uint64
	perUnit         map[uint16]uint64 // events of each unit in the good blocks
	framesWithSum   int               // zstd blocks whose frame has a content checksum
	zstdBlocks      int
	rawUnsummed     int    // raw blocks with no CRC32C (a footer-less file's)
	unknownFormats  int    // events whose format id the schema does not register
	firstUnknown    uint32 // the first of those ids
	unknownUnits    int
	hasSchema       bool
	ours            bool // the file carries checksums: chronon-go wrote it
}

func (v *verifier) problem(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

// allBlocks checks blocks. A file that shrinks while verify reads it
// faults on the mapping: that ends the walk as the error naming the file
// and the byte, not the process with SIGBUS.
func (v *verifier) allBlocks(blocks []tracefile.Block) (err error) {
	defer v.f.Guard(&err, tracefile.PanicOnFault())
	for _, b := range blocks {
		v.block(b)
	}
	return nil
}

// block decodes block b (every check a read makes) and checks its events'
// ids against the schema and its recorded unit set against its events.
func (v *verifier) block(b tracefile.Block) {
	f := v.f
	if schemaFrame(f, &b) {
		return // not a block of events: the walk of a footer-less file lists it, a footer does not
	}
	v.blocks++
	if !tracefile.IsRaw(&b) && b.UncompressedSize > 0 && b.CompressedSize >= 5 {
		v.zstdBlocks++
		if f.Data()[tracefile.PayloadOff(&b)+4]&4 != 0 { // Frame_Header_Descriptor: Content_Checksum_flag
			v.framesWithSum++
		}
	}
	if tracefile.IsRaw(&b) && b.UncompressedSize > 0 && !b.HasCRC {
		v.rawUnsummed++
	}
	data, buf, err := f.BlockBytes(&b)
	if err != nil {
		v.problem("%s", oneLine(err.Error()))
		return
	}
	if buf != nil {
		defer bufpool.Put(buf)
	}
	var bd tracefile.Decoded
	sel := &tracefile.Selector{All: true, Start: 0, End: ^uint64(0)}
	if err := f.ScanEvents(&b, data, sel, &bd); err != nil {
		v.problem("%s", oneLine(err.Error()))
		return
	}
	var seen []uint16
	for i := range bd.Recs {
		rc := &bd.Recs[i]
		if !v.hasSchema {
			continue
		}
		if !v.formats[rc.Fid] {
			// The original writer records events of formats it never
			// registered (dump prints them as unknown): a note for its
			// files, a problem in ours (chronon registers before it emits).
			if v.ours {
				v.problem("%s: %s at byte %d: event at cycle %d has format id %d, which the schema does not register",
					v.path, tracefile.BlockSection(int(b.Index)), tracefile.HeaderOff(&b), rc.Cycle, rc.Fid)
				return
			}
			if v.unknownFormats++; v.unknownFormats == 1 {
				v.firstUnknown = rc.Fid
			}
		}
		if rc.Unit != 0 && !v.units[rc.Unit] {
			if !v.ours {
				v.unknownUnits++
				continue
			}
			v.problem("%s: %s at byte %d: event at cycle %d has unit id %d, which the schema does not register",
				v.path, tracefile.BlockSection(int(b.Index)), tracefile.HeaderOff(&b), rc.Cycle, rc.Unit)
			return
		}
	}
	v.decoded++ // the totals count only blocks whose every event was checked
	for i := range bd.Recs {
		rc := &bd.Recs[i]
		v.perUnit[rc.Unit]++
		if !slices.Contains(seen, rc.Unit) {
			seen = append(seen, rc.Unit)
		}
	}
	v.events += uint64(len(bd.Recs))
	if len(bd.Recs) > 0 {
		if v.events == uint64(len(bd.Recs)) || b.MinCycle < v.minC {
			v.minC = b.MinCycle
		}
		v.maxC = max(v.maxC, b.MaxCycle)
	}
	if b.Units != nil {
		slices.Sort(seen)
		if !slices.Equal(seen, b.Units) {
			v.problem("%s: footer at byte %d: block %d lists units %v, its events are of units %v",
				v.path, v.footerOff(), b.Index, b.Units, seen)
		}
	}
}

// schemaFrame reports whether b is an empty block holding one zstd
// skippable frame (magic 0x184D2A50..5F, u32 length, payload), where
// chronon-go appends a schema that outgrew its slots (docs/format.md,
// "Schema frame"): the walk of a footer-less file lists it among the
// blocks, having checked it whole; it holds no event and is not counted.
func schemaFrame(f *tracefile.File, b *tracefile.Block) bool {
	if b.EventCount != 0 || b.UncompressedSize != 0 || b.CompressedSize < 8 {
		return false
	}
	d := f.Data()[tracefile.PayloadOff(b):]
	return binary.LittleEndian.Uint32(d)&^0xF == 0x184D2A50 && binary.LittleEndian.Uint32(d[4:]) == b.CompressedSize-8
}

func (v *verifier) footerOff() int64 { return int64(v.f.Header().FooterOffset) }

// totals checks the footer's totals and unit_stats against the blocks,
// when every block decoded (else the sums mean nothing): each unit_stats
// entry against its unit's events, and that no unit is listed twice. A
// unit with events and no entry is not a problem: merge keeps the entries
// of the inputs that have them (an original writer's file or a recovered
// one has none).
func (v *verifier) totals() {
	ft := v.f.Footer()
	if ft == nil || v.f.Status().Recovered || v.decoded != v.blocks {
		return
	}
	if ft.TotalEvents != v.events {
		v.problem("%s: footer at byte %d: total_events %d, the blocks hold %d", v.path, v.footerOff(), ft.TotalEvents, v.events)
	}
	if v.events > 0 && (ft.MinCycle != v.minC || ft.MaxCycle != v.maxC) {
		v.problem("%s: footer at byte %d: cycles %d-%d, the blocks' are %d-%d", v.path, v.footerOff(), ft.MinCycle, ft.MaxCycle, v.minC, v.maxC)
	}
	stats := v.f.UnitStats()
	listed := make(map[uint16]bool, len(stats)) // bounded by the footer's size, checked at open
	for _, s := range stats {
		if listed[s.UnitID] {
			v.problem("%s: footer at byte %d: unit_stats list unit %d twice", v.path, v.footerOff(), s.UnitID)
			continue
		}
		listed[s.UnitID] = true
		if got := v.perUnit[s.UnitID]; s.Written != got {
			v.problem("%s: footer at byte %d: unit_stats of unit %d say %d events written, the blocks hold %d", v.path, v.footerOff(), s.UnitID, s.Written, got)
		}
		if s.Emitted != s.Written+s.Dropped {
			v.problem("%s: footer at byte %d: unit_stats of unit %d: emitted %d is not written %d + dropped %d", v.path, v.footerOff(), s.UnitID, s.Emitted, s.Written, s.Dropped)
		}
	}
}

// unclosed reports whether f is a file its writer did not close: it places
// no footer, and its header flags an index (both writers set the flag when
// they start) or checksums (chronon-go's writers always end with a footer).
// A file cut short after Close is reported as such; one the original
// writer closed without an index (neither flag) is whole.
func unclosed(f *tracefile.File) bool {
	h := f.Header()
	return f.Status().Recovered && !f.Status().CutShort && h.FooterOffset == 0 && h.FooterSize == 0 &&
		(h.Flags&schema.FlagHasIndex != 0 || h.HasChecksums())
}

// footerCRC reports whether the file's footer carries its CRC32C field.
func (v *verifier) footerCRC() bool {
	ft := v.f.Footer()
	return ft != nil && !v.f.Status().Recovered && ft.HasCRC
}

// checksumFlag: a header that flags no checksums over a footer that
// carries them is a header that disagrees with its file (whose writer set
// the flag with the footer's checksums): the readers take the footer's
// word for the footer and the blocks, and nothing checks the header and
// schema.
func (v *verifier) checksumFlag() {
	h := v.f.Header()
	if !h.HasChecksums() && v.footerCRC() {
		v.problem("%s: header at byte 48: no checksums flagged (FLAG_CHECKSUMS clear, header_crc32c and schema_crc32c zero), but the footer at byte %d carries CRC32C fields: the header and the footer disagree",
			v.path, h.FooterOffset)
	}
}

// cannot says what the file gives nothing to check against: what it holds,
// not a guess at who wrote it (a header stripped of its flag reads like
// the original writer's).
func (v *verifier) cannot() []string {
	var out []string
	switch {
	case v.f.Header().HasChecksums():
	case v.footerCRC():
		out = append(out, "no CRC32C checksums flagged in the header: the header and schema are checked for structure only")
	case v.f.Footer() == nil || v.f.Status().Recovered:
		out = append(out, "no CRC32C checksums flagged in the header: the header, schema and raw blocks are checked for structure only")
	default:
		out = append(out, "no CRC32C checksums flagged in the header nor carried by the footer: the header, schema, footer and raw blocks are checked for structure only")
	}
	if n := v.zstdBlocks - v.framesWithSum; n > 0 && !v.f.Header().HasChecksums() {
		out = append(out, fmt.Sprintf("%d of %d zstd blocks have no content checksum: their data is checked only by decoding it", n, v.zstdBlocks))
	}
	if v.rawUnsummed > 0 && v.f.Header().HasChecksums() {
		out = append(out, fmt.Sprintf("%d raw blocks have no CRC32C (it is kept in the footer): their events' structure is checked, not their cycles, format ids, categories or argument values", v.rawUnsummed))
	}
	if !v.hasSchema {
		out = append(out, "no schema: the events' format and unit ids have nothing to be checked against")
	} else if v.unknownFormats > 0 {
		out = append(out, fmt.Sprintf("%d events have format ids the schema does not register (the first: %d): what they print cannot be checked", v.unknownFormats, v.firstUnknown))
	}
	if v.unknownUnits > 0 {
		out = append(out, fmt.Sprintf("%d events have unit ids the schema does not register", v.unknownUnits))
	}
	if v.f.Status().Recovered {
		out = append(out, "no usable footer (recovered by walking the blocks): no totals, unit sets or unit_stats to check the blocks against")
	}
	return out
}

// checksumsLine is what info says of a file's checksums.
func checksumsLine(r *mmapio.Reader) string {
	f := rawread.File(r)
	var frames, sums int
	for _, b := range f.Blocks() {
		if !tracefile.IsRaw(&b) && b.UncompressedSize > 0 && b.CompressedSize >= 5 {
			frames++
			if f.Data()[tracefile.PayloadOff(&b)+4]&4 != 0 {
				sums++
			}
		}
	}
	s := "none"
	if f.Header().HasChecksums() {
		s = "CRC32C of header, schema"
		if f.Footer() != nil && !f.Status().Recovered {
			s += ", footer, every block"
		}
	}
	if sums > 0 {
		if s == "none" {
			s = ""
		} else {
			s += "; "
		}
		s += fmt.Sprintf("zstd content checksum in %d of %d frames", sums, frames)
	}
	return s
}
