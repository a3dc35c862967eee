package rewrite

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"

	"github.com/chronon-sim/chronon-go/internal/catmap"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/internal/tracefile"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// MergeOptions tune Merge.
type MergeOptions struct {
	// Created is the footer's timestamp (zero: none).
	Created time.Time
	// RawRewrites stores the blocks whose ids had to be rewritten
	// uncompressed: for a merged file that is only read once (a temporary
	// one), recompressing would cost more than it saves.
	RawRewrites bool
	// Level is the zstd level of rewritten blocks holding strings (default
	// SpeedFastest: W1 blocks compress about as well as at SpeedDefault,
	// twice as fast). Blocks of fixed-size events go to a record-aware
	// encoder, which has no levels.
	Level zstd.EncoderLevel
	// Workers is the number of blocks rewritten at once (default
	// GOMAXPROCS).
	Workers int
	// NoVerify copies the blocks that keep their ids without decoding them
	// first. By default each is decoded and checked as a dump would (the
	// frame, its events, the footer's counts and unit set), so that a
	// corrupt input fails the merge instead of going into its output; that
	// check is most of what a merge of disjoint-id files costs beyond a copy
	// (zstd decoding every block). With NoVerify a block is still compared
	// with the CRC32C its footer entry records (taken as it is copied, at
	// no extra cost), and a mismatch fails the merge; a corrupt block of a
	// file without block checksums is copied as it is and only a reader of
	// the output finds it. Blocks of a file without unit sets are still
	// checked (an id it does not name may clash), and rewritten blocks are
	// always decoded and checked.
	NoVerify bool
}

// merger is what a merge reads: the timeline's files and their labels.
type merger struct {
	ins     []*mmapio.Reader
	readers []*tracefile.File
	labels  []string
	far     *farSymbols // symbol entries for ids beyond an input's table; nil: none needed
}

func newMerger(mm *mmapio.Multi) *merger {
	m := &merger{ins: mm.Readers(), labels: mmapio.Labels(mm.Readers())}
	for _, r := range m.ins {
		m.readers = append(m.readers, rawread.File(r))
	}
	return m
}

// MetaRecovered is the key, after "<label>/", under which a merged file's
// metadata keeps the Status text of an input that was recovered rather
// than complete.
const MetaRecovered = "recovered"

// mergePlan is how one input's ids become the output's.
type mergePlan struct {
	units    []uint16           // by input unit id: output id (identity when not renumbered)
	unitsID  bool               // every unit keeps its id
	fmts     map[uint32]uint32  // input format id -> output id
	fmtDense []uint32           // the same for ids below 1<<16: output id + 1, 0 = none (no map lookup per event)
	fmtsID   bool               // every format keeps its id
	fixedFmt []bool             // by input format id below 1<<16: known, no string argument
	cats     catmap.Map         // category bits in the output's numbering (matched by name)
	syms     []uint32           // by input symbol id: output id; nil when every symbol keeps its id
	symTo    []uint32           // by input symbol id: output id, whether or not syms is set
	symMoved bool               // some symbol of the input's table changed its id
	far      *farSymbols        // maps ids beyond the input's table; nil when they keep their value
	symArgs  [][]schema.ArgType // by input format id below 1<<16: its argument types up to its last Symbol argument (only when syms is set)
	symRoles [][]bool           // the same: which of those arguments are Symbols
	label    string
	hasUnits map[uint16]bool // ids the schema or the unit sets name
	// taken: output ids of units some file names (its schema or unit
	// sets), shared by every plan. An event whose id its file does not name
	// keeps the id, so it must not be one of these: it would print as
	// another file's unit.
	taken *[1 << 16]bool
	named *[1 << 16]bool // hasUnits, dense: looked up per event
}

// Merge writes one trace holding every event of the files of the
// timeline m, with
// unit names labelled as the timeline names them ("<label>/<unit>",
// whatever the number of files), formats deduplicated (same text, argument
// types and appended fields: one entry), categories merged by name (one
// table where each name has one bit; see mergeCategories), and each
// file's metadata kept with its keys prefixed by "<label>/" (plus
// "<label>/simulation", "<label>/file"). Reading the result gives the
// timeline's events in its order: the blocks are written file after file,
// each file's in its own order, and the reader breaks cycle ties by block
// offset.
//
// An input that was recovered (cut short, no footer: Status) is merged as
// far as it was recovered; the output's metadata keeps its Status text
// under "<label>/recovered", so the output does not pass for the whole run.
//
// Unit ids are renumbered where files clash (the first file keeps its ids;
// a later file's unit whose id is taken gets the lowest id no file names,
// so that only the units that clash move), format ids where a format
// is new and its id taken, category bits where a name has another bit in
// an earlier file (event records carry them). A block whose ids all stay is checked as a dump
// checks it (on the pipeline's workers) and copied as it is, bytes unchanged
// (no re-encoding); the others are decoded, their event records
// rewritten and re-encoded (raw if zstd does not make them smaller, as the
// original writer does). Event ids the schema does not list keep their
// value (in a file without unit sets, a unit id that no unit entry names is
// not renumbered).
//
// w must be seekable: the header, written last, points at the footer.
func Merge(w io.WriteSeeker, m *mmapio.Multi, o MergeOptions) (res Result, err error) {
	mg := newMerger(m)
	if o.Level == 0 {
		o.Level = zstd.SpeedFastest
	}
	for _, r := range mg.readers {
		if !r.RLock() {
			return res, mmapio.ErrClosed
		}
		defer r.RUnlock()
	}
	plans, sch, err := mg.mergeSchema()
	if err != nil {
		return res, err
	}
	mw := &mergeWriter{w: bufio.NewWriterSize(w, 1<<20), o: o}
	if err := mw.write(make([]byte, schema.HeaderSize)); err != nil {
		return res, err
	}
	sec := schema.BuildSchema(flatbuffers.NewBuilder(4096), sch)
	schOff := mw.off
	if err := mw.write(sec); err != nil {
		return res, err
	}
	first := mw.off
	foot := &schema.Footer{}
	if !o.Created.IsZero() {
		foot.CreatedTimestamp = uint64(o.Created.Unix())
	}
	compressed := false
	for _, r := range mg.readers {
		if r.Header().Flags&schema.FlagCompressed != 0 {
			compressed = true
		}
	}
	if err := mw.writeBlocks(mg.readers, plans, foot, &res); err != nil {
		return res, err
	}
	for i, r := range mg.readers {
		for _, us := range r.UnitStats() {
			us.UnitID = plans[i].units[us.UnitID]
			foot.UnitStats = append(foot.UnitStats, us)
		}
	}
	for i := range foot.Blocks {
		b := &foot.Blocks[i]
		compressed = compressed || b.CompressedSize != b.UncompressedSize
		foot.TotalEvents += uint64(b.EventCount)
		if i == 0 || b.MinCycle < foot.MinCycle {
			foot.MinCycle = b.MinCycle
		}
		foot.MaxCycle = max(foot.MaxCycle, b.MaxCycle)
	}
	if extra := mg.far.added(); len(extra) > 0 {
		// Far symbol entries were added while the blocks were written: the
		// schema that holds them follows the blocks, and the header points
		// at it (the one before the blocks is left unused).
		sch.Symbols = append(slices.Clip(sch.Symbols), extra...)
		sec = schema.BuildSchema(flatbuffers.NewBuilder(4096), sch)
		schOff = mw.off
		if err := mw.write(sec); err != nil {
			return res, err
		}
	}
	footOff := mw.off
	foot.HasCRC = true // every entry's CRC was taken as its block was written
	fb := schema.BuildFooter(flatbuffers.NewBuilder(1024), foot)
	if err := mw.write(fb); err != nil {
		return res, err
	}
	if err := mw.w.Flush(); err != nil {
		return res, err
	}
	flags := schema.FlagHasIndex | schema.FlagHasSchema | schema.FlagChecksums
	if compressed {
		flags |= schema.FlagCompressed
	}
	h := schema.NewHeader(flags)
	h.SchemaOffset, h.SchemaSize = uint64(schOff), uint64(len(sec))
	h.SchemaCRC = schema.CRC32C(sec)
	h.FirstBlockOffset = uint64(first)
	h.FooterOffset, h.FooterSize = uint64(footOff), uint64(len(fb))
	if _, err := w.Seek(0, io.SeekStart); err != nil {
		return res, err
	}
	if _, err := w.Write(schema.AppendHeader(nil, h)); err != nil {
		return res, err
	}
	if _, err := w.Seek(mw.off, io.SeekStart); err != nil {
		return res, err
	}
	res.Blocks, res.Events, res.Bytes = len(foot.Blocks), foot.TotalEvents, mw.off
	return res, nil
}

// formatKey is what makes two formats the same: their text and argument
// types, and what gives their events a meaning beyond the text (a span, a
// counter, a flow id: kind and roles; a log level). The source location
// is the first entry's; mergeSchema adds the category (by name) to the key.
func formatKey(f *schema.Format) string {
	var b strings.Builder
	level := -1 // the level of a format that is not a log means nothing
	if f.IsLog {
		level = int(f.LogLevel)
	}
	fmt.Fprintf(&b, "%q|%v|%d|%d|", f.Format, f.ArgTypes, level, f.Kind)
	for i := range f.ArgTypes {
		fmt.Fprintf(&b, "%d,", f.Role(i))
	}
	return b.String()
}

// mergeSchema builds the output schema and each input's id plan.
func (m *merger) mergeSchema() ([]*mergePlan, *schema.Schema, error) {
	out := &schema.Schema{Version: 1, Writer: "chronon-go trace_reader merge"}
	fileIDs, named, err := m.mergeUnitIDs()
	if err != nil {
		return nil, nil, err
	}
	var usedUnits [1 << 16]bool
	usedUnits[0] = true
	ids := newIDPicker(named)
	usedFmt := map[uint32]bool{}
	byKey := map[string]uint32{}  // formatKey and category -> output id
	byBase := map[string]uint32{} // formatKey -> the first output id
	var nextFmt uint32
	cats, err := m.mergeCategories()
	if err != nil {
		return nil, nil, err
	}
	out.Categories = cats.t.Categories()
	out.TimeBase = m.readers[0].Schema().TimeBase
	for _, r := range m.readers[1:] {
		if r.Schema().TimeBase != out.TimeBase {
			out.TimeBase = schema.TimeBase{} // no one time base: each unit keeps its file's
			break
		}
	}
	out.Symbols = slices.Clip(m.readers[0].Schema().Symbols) // grown by copying: the reader's table stays its own
	symID := map[string]uint32{}
	for id, str := range out.Symbols {
		if _, ok := symID[str]; !ok {
			symID[str] = uint32(id)
		}
	}
	plans := make([]*mergePlan, len(m.readers))
	sims := map[string]bool{}
	for i, r := range m.readers {
		p := &mergePlan{units: make([]uint16, 1<<16), unitsID: true, fmts: map[uint32]uint32{}, fmtsID: true,
			label: m.labels[i], hasUnits: map[uint16]bool{}, cats: cats.maps[i]}
		plans[i] = p
		for id := range p.units {
			p.units[id] = uint16(id)
		}
		local := map[uint16]bool{}
		for _, id := range fileIDs[i] {
			p.hasUnits[id] = true
			if !usedUnits[id] {
				usedUnits[id], local[id] = true, true
				continue
			}
			if local[id] {
				continue
			}
			to, ok := ids.pick(&usedUnits)
			if !ok {
				return nil, nil, fmt.Errorf("the files have more than 65535 units in all (%s is one too many)", r.Path())
			}
			p.units[id] = to
			p.unitsID = false
			usedUnits[to] = true
		}
		for _, u := range r.Schema().Units {
			name := "" // a unit without a name prints without one, as in the timeline
			if u.Name != "" {
				name = p.label + "/" + u.Name
			}
			tb := u.TimeBase
			if tb.IsZero() && r.Schema().TimeBase != out.TimeBase {
				tb = r.Schema().TimeBase // the file's, where the output's is another
			}
			out.Units = append(out.Units, schema.Unit{ID: p.units[u.ID], Name: name, TypeName: u.TypeName, TimeBase: tb})
		}
		for _, f := range r.Schema().Formats {
			if _, seen := p.fmts[f.ID]; seen {
				continue // the reader uses the first entry with an id
			}
			// A format in another category (by name) is another format; one
			// without a category (the original writer records none) is the
			// first entry of its text, whatever that entry's category.
			base := formatKey(&f)
			k := base + strconv.FormatUint(p.cats.Mask(f.Category), 16)
			g, ok := byKey[k]
			if !ok && f.Category == 0 {
				g, ok = byBase[base]
			}
			if ok {
				p.fmts[f.ID] = g
				p.fmtsID = p.fmtsID && g == f.ID
				continue
			}
			id := f.ID
			if usedFmt[id] {
				for usedFmt[nextFmt] || nextFmt == 0 {
					nextFmt++
				}
				id = nextFmt
				p.fmtsID = false
			}
			usedFmt[id] = true
			byKey[k] = id
			if _, ok := byBase[base]; !ok {
				byBase[base] = id
			}
			p.fmts[f.ID] = id
			nf := f
			nf.ID = id
			nf.Category = p.cats.Mask(f.Category)
			out.Formats = append(out.Formats, nf)
		}
		out.Symbols = p.mergeSymbols(r.Schema(), out.Symbols, symID)
		if r.Schema().SimulationName != "" {
			out.Metadata = append(out.Metadata, schema.KeyValue{Key: p.label + "/simulation", Value: r.Schema().SimulationName})
		}
		sims[r.Schema().SimulationName] = true
		out.Metadata = append(out.Metadata, schema.KeyValue{Key: p.label + "/file", Value: r.Path()})
		if st := m.ins[i].Status(); st.State != mmapio.StateComplete {
			// The output is complete, its input was not: the output keeps
			// what was recovered of it and what was ignored.
			out.Metadata = append(out.Metadata, schema.KeyValue{Key: p.label + "/" + MetaRecovered, Value: st.String()})
		}
		for _, kv := range r.Schema().Metadata {
			out.Metadata = append(out.Metadata, schema.KeyValue{Key: p.label + "/" + kv.Key, Value: kv.Value})
		}
	}
	taken := new([1 << 16]bool)
	*taken = usedUnits
	taken[0] = false // unit 0 (no unit) is the same in every file
	for i, p := range plans {
		p.taken = taken
		p.named = new([1 << 16]bool)
		for id := range p.hasUnits {
			p.named[id] = true
		}
		p.fixedFmt = make([]bool, 1<<16)
		for _, f := range m.readers[i].Schema().Formats {
			if f.ID < 1<<16 && !slices.Contains(f.ArgTypes, schema.ArgString) {
				p.fixedFmt[f.ID] = true
			}
		}
		p.fmtDense = make([]uint32, 1<<16)
		for from, to := range p.fmts {
			if from < 1<<16 {
				p.fmtDense[from] = to + 1
			}
		}
	}
	m.far = planFarSymbols(plans, m.readers, out.Symbols, symID)
	if len(sims) == 1 {
		out.SimulationName = m.readers[0].Schema().SimulationName
	} else {
		out.SimulationName = "merged"
	}
	return plans, out, nil
}

// mergeSymbols maps the symbol table of the input with schema s into the
// output's table syms (the first file's table first, then each string a
// later file adds, once): the input's events print the same strings. It
// returns the grown table and records the input's map (symTo, symMoved)
// and, when its formats have Symbol arguments, which arguments those are;
// planFarSymbols then decides which inputs' events are rewritten (syms).
func (p *mergePlan) mergeSymbols(s *schema.Schema, syms []string, symID map[string]uint32) []string {
	to := make([]uint32, len(s.Symbols))
	moved := false
	for id, str := range s.Symbols {
		g, ok := symID[str]
		if !ok {
			g = uint32(len(syms))
			syms = append(syms, str)
			symID[str] = g
		}
		to[id] = g
		moved = moved || g != uint32(id)
	}
	p.symTo, p.symMoved = to, moved
	p.symArgs, p.symRoles = nil, nil
	any := false
	for _, f := range s.Formats {
		if f.ID >= 1<<16 || p.symArgs != nil && p.symArgs[f.ID] != nil {
			continue // the reader uses the first entry with an id
		}
		last := -1
		for i := range f.ArgTypes {
			if f.Role(i) == schema.RoleSymbol && f.ArgTypes[i] == schema.ArgUInt32 {
				last = i
			}
		}
		if last < 0 {
			continue
		}
		if !any { // the tables by format id, for inputs with Symbol arguments only
			p.symArgs, p.symRoles = make([][]schema.ArgType, 1<<16), make([][]bool, 1<<16)
		}
		any = true
		p.symArgs[f.ID] = f.ArgTypes[:last+1]
		p.symRoles[f.ID] = make([]bool, last+1)
		for i := range last + 1 {
			p.symRoles[f.ID][i] = f.Role(i) == schema.RoleSymbol && f.ArgTypes[i] == schema.ArgUInt32
		}
	}
	if !any {
		p.symArgs, p.symRoles = nil, nil // no event holds a symbol: nothing to rewrite
	}
	return syms
}

// farSymbols gives the ids of the inputs' events that their own tables do
// not hold (a damaged id; not SymbolOverflow) an entry of the output's
// table whose text is what the input printed for them, "[symbol N]":
// kept as they are, they could name a string another file added. The
// entries are appended to the output's table as the events are met (by the
// merge's workers, so their order may differ between runs; what every
// event prints does not), and the output's schema is then written after
// the blocks.
type farSymbols struct {
	mu    sync.Mutex
	base  int               // the output's table before these entries
	symID map[string]uint32 // every string of the output's table: its id
	extra []string          // the entries added, from id base on
}

// planFarSymbols decides which inputs' events have their Symbol arguments
// rewritten. An input whose table is shorter than the output's may hold
// ids that the output's table would misname; then every input with Symbol
// arguments is rewritten and its ids beyond its own table get far entries
// (an input's kept id N could otherwise be one of those entries). When no
// input can be misnamed (every table with Symbol arguments is the whole
// output's, or none has any), only the moved tables are rewritten. It
// returns the far map, nil when not needed.
func planFarSymbols(plans []*mergePlan, readers []*tracefile.File, out []string, symID map[string]uint32) *farSymbols {
	need := false
	for i, p := range plans {
		if p.symArgs != nil && len(readers[i].Schema().Symbols) < len(out) {
			need = true
		}
	}
	var far *farSymbols
	if need {
		far = &farSymbols{base: len(out), symID: symID}
	}
	for _, p := range plans {
		switch {
		case p.symArgs == nil:
		case need:
			p.syms, p.far = p.symTo, far
		case p.symMoved:
			p.syms = p.symTo
		default:
			p.symArgs, p.symRoles = nil, nil // every id keeps its value and its string
		}
	}
	return far
}

// id returns the output id printing as id did in an input without it.
func (fs *farSymbols) id(id uint32) uint32 {
	text := "[symbol " + strconv.FormatUint(uint64(id), 10) + "]"
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if g, ok := fs.symID[text]; ok {
		return g
	}
	g := uint32(fs.base + len(fs.extra))
	fs.extra = append(fs.extra, text)
	fs.symID[text] = g
	return g
}

// added returns the entries added to the output's table.
func (fs *farSymbols) added() []string {
	if fs == nil {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.extra
}

// renumberSymbols rewrites in place the Symbol arguments of the arguments
// args (argc of them, as the event says) of an event of input format f.
// It walks the arguments as the reader prints them (ctext.ParsedLen): where
// the reader stops (a short argument, a string without its NUL) it stops,
// leaving the rest as it is, so the merge prints the event as its input
// did. An id the input's table does not hold gets the far entry printing
// as it did (p.far), or keeps its value when there is no far map (no
// other file's string can take it) or it is SymbolOverflow.
func (p *mergePlan) renumberSymbols(args []byte, argc int, f uint32) {
	roles := p.symRoles[f]
	q := 0
	for i, t := range p.symArgs[f] {
		if i >= argc {
			return
		}
		n := t.Size()
		if t == schema.ArgString {
			z := bytes.IndexByte(args[q:], 0)
			if z < 0 {
				return
			}
			n = z + 1
		}
		if n == 0 || len(args)-q < n {
			return
		}
		if roles[i] {
			if id := binary.LittleEndian.Uint32(args[q:]); int64(id) < int64(len(p.syms)) {
				binary.LittleEndian.PutUint32(args[q:], p.syms[id])
			} else if p.far != nil && id != schema.SymbolOverflow {
				binary.LittleEndian.PutUint32(args[q:], p.far.id(id))
			}
		}
		q += n
	}
}

// mergedCategories is the output's category table and each input's map
// into it.
type mergedCategories struct {
	t    *catmap.Table
	maps []catmap.Map
}

// mergeCategories merges the inputs' categories by name (catmap): runs
// that registered the same categories in another order share one table,
// where each name has one bit, and their events' bits are renumbered. The
// first file keeps its bits.
func (m *merger) mergeCategories() (mergedCategories, error) {
	mc := mergedCategories{t: catmap.NewTable(), maps: make([]catmap.Map, len(m.readers))}
	for i, r := range m.readers {
		var masks []uint64
		for _, f := range r.Schema().Formats {
			masks = append(masks, f.Category)
		}
		cm, err := mc.t.Add(r.Schema().Categories, masks)
		if err != nil {
			paths := make([]string, len(m.readers))
			for j, r := range m.readers {
				paths[j] = r.Path()
			}
			return mc, fmt.Errorf("%w once categories are matched by name (adding %s; files %s)", err, r.Path(), strings.Join(paths, ", "))
		}
		mc.maps[i] = cm
	}
	return mc, nil
}

// mergeBlocks decodes r's block table (once: the pipeline's feeder uses
// the same table) under the fault guard: the footer lies in the mapping,
// and a file cut after it was opened must fail the merge with a
// *FaultError naming it, not kill the process with SIGBUS.
func mergeBlocks(r *tracefile.File) (blocks []tracefile.Block, err error) {
	defer r.Guard(&err, tracefile.PanicOnFault())
	blocks = r.BlocksLocked()
	if blocks == nil && r.NumBlocks() > 0 {
		// An earlier fault left the table undecoded: its error stands.
		if err := r.Err(); err != nil {
			return nil, err
		}
		return nil, r.Errorf("footer", int64(r.Header().FooterOffset), "the block table could not be read")
	}
	return blocks, nil
}

// mergeWriter writes the output sequentially, counting its offset.
type mergeWriter struct {
	w   *bufio.Writer
	o   MergeOptions
	off int64
}

func (mw *mergeWriter) write(b []byte) error {
	n, err := mw.w.Write(b)
	mw.off += int64(n)
	return err
}

// keeps reports whether block b of a file with plan p can be copied as it
// is: its units (as recorded, else all the file's) and every format keep
// their ids.
func (p *mergePlan) keeps(b *tracefile.Block) bool {
	if !p.fmtsID || !p.cats.Identity() || p.syms != nil {
		return false // events carry their category bits and symbol ids: a moved one rewrites them
	}
	if p.unitsID {
		return true
	}
	if b.Units == nil {
		return false
	}
	for _, u := range b.Units {
		if p.units[u] != u {
			return false
		}
	}
	return true
}

// writeBlocks writes every block of the files in order: copied from the
// mapping, or rewritten by the pipeline (merge_rewrite.go).
func (mw *mergeWriter) writeBlocks(readers []*tracefile.File, plans []*mergePlan, foot *schema.Footer, res *Result) error {
	mp, err := startMergePipe(readers, plans, mw.o)
	if err != nil {
		return err
	}
	defer mp.stop()
	var hdr []byte
	for it := range mp.order {
		if it.err != nil {
			return it.err // the reader lost its index
		}
		b := it.b
		e := schema.BlockIndex{Index: uint32(len(foot.Blocks)), EventCount: b.EventCount, MinCycle: b.MinCycle, MaxCycle: b.MaxCycle,
			UncompressedSize: b.UncompressedSize, CompressedSize: b.CompressedSize, DataOffset: uint64(mw.off), Units: b.Units}
		if j := it.job; j != nil && j.keep {
			<-j.done
			err := j.err
			mp.give(j)
			if err == nil {
				e.CRC, err = mw.copyBlock(it.r, b)
			}
			if err != nil {
				return err
			}
			res.Copied++
		} else if j != nil {
			<-j.done
			if err := j.err; err != nil {
				mp.give(j) // j is the feeder's again: err was read before
				return err
			}
			e.CompressedSize = uint32(len(j.data))
			if b.Units != nil {
				e.Units = append([]uint16(nil), j.units...) // the footer keeps it; the job's is reused
			}
			hdr = schema.AppendBlockHeader(hdr[:0], e.Inline())
			e.CRC = schema.UpdateCRC32C(schema.BlockCRC(hdr), j.data)
			err := mw.write(hdr)
			if err == nil {
				err = mw.write(j.data)
			}
			mp.give(j)
			if err != nil {
				return err
			}
			res.Rewritten++
		} else {
			if e.CRC, err = mw.copyBlock(it.r, b); err != nil {
				return err
			}
			res.Copied++
		}
		foot.Blocks = append(foot.Blocks, e)
	}
	return nil
}

// copyBlock copies block b of r, header and payload, as it is, and
// returns the copy's checksum (schema.BlockCRC). A block whose bytes do not
// have the checksum its footer entry records is refused, with NoVerify too:
// the copy's checksum, taken from the damaged bytes, would hide the damage
// from every reader of the output.
func (mw *mergeWriter) copyBlock(r *tracefile.File, b *tracefile.Block) (crc uint32, err error) {
	defer r.Guard(&err, tracefile.PanicOnFault())
	ih, _ := schema.DecodeBlockHeader(r.Data()[tracefile.HeaderOff(b):])
	if ih != b.Inline() {
		return 0, r.Errorf(tracefile.BlockSection(int(b.Index)), tracefile.HeaderOff(b), "inline block header disagrees with the footer")
	}
	p := r.Data()[tracefile.HeaderOff(b):tracefile.BlockEnd(b)]
	crc = schema.BlockCRC(p)
	if b.HasCRC && crc != b.CRC {
		return 0, r.Errorf(tracefile.BlockSection(int(b.Index)), tracefile.HeaderOff(b),
			"checksum mismatch: the block's %d bytes (inline header and data) have CRC32C %08x, the footer says %08x", len(p), crc, b.CRC)
	}
	return crc, mw.write(p)
}

// mergeEncoders are the zstd encoders of rewritten blocks, one per level.
var mergeEncoders sync.Map

func mergeEncoder(level zstd.EncoderLevel) (*zstd.Encoder, error) {
	if e, ok := mergeEncoders.Load(level); ok {
		return e.(*zstd.Encoder), nil
	}
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	act, _ := mergeEncoders.LoadOrStore(level, e)
	return act.(*zstd.Encoder), nil
}

func tzc(v uint64) int { return bits.TrailingZeros64(v) }
