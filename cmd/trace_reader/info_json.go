package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/chronon-sim/chronon-go/internal/unitsel"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// infoReport is what info --json prints: what the text shows, with the
// schema's lists always (the text lists them with -v).
type infoReport struct {
	Files []infoFile `json:"files" doc:"One per file, in command line order"`
}

type infoFile struct {
	File       string         `json:"file" doc:"The path as given"`
	Label      string         `json:"label,omitempty" doc:"With several files: the prefix of its units in the timeline (rank<N>, else the file's name)"`
	Version    string         `json:"version" doc:"The format's version, major.minor"`
	Simulation string         `json:"simulation" doc:"The simulation name the writer recorded"`
	Writer     string         `json:"writer,omitempty" doc:"The library that wrote the file, when it said"`
	Status     string         `json:"status" doc:"complete, or what recovery found and ignored (recovered: N blocks, ...)"`
	Recovered  bool           `json:"recovered" doc:"The file has no usable footer: its blocks were found by walking them"`
	Size       int64          `json:"size_bytes" doc:"The file's size in bytes"`
	Created    string         `json:"created,omitempty" doc:"When the writer closed the file (RFC 3339, UTC), when recorded"`
	Events     uint64         `json:"events" doc:"Events in the file"`
	FirstCycle uint64         `json:"first_cycle" doc:"The cycle of its first event"`
	LastCycle  uint64         `json:"last_cycle" doc:"The cycle of its last event"`
	Compressed bool           `json:"compressed" doc:"The header's compression flag"`
	Emitted    *uint64        `json:"emitted" doc:"Events the simulation emitted, when the writer recorded unit stats (null otherwise)"`
	Dropped    *uint64        `json:"dropped" doc:"Events the writer dropped (drop policy, I/O errors), when it recorded unit stats (null otherwise)"`
	Blocks     infoBlocks     `json:"blocks" doc:"The block layout"`
	TimeBase   *infoTimeBase  `json:"time_base" doc:"How long one cycle of every unit lasts, unless the unit has its own (null: the file records none, cycles only)"`
	Symbols    int            `json:"symbols" doc:"Interned strings in the file's symbol table (Symbol arguments print them)"`
	SymbolList []infoSymbol   `json:"symbol_list,omitempty" doc:"With -v: the first 20 of them, by id (symbols counts them all); with --strings: all of them"`
	Formats    []infoFormat   `json:"formats" doc:"The registered formats"`
	Units      []infoUnit     `json:"units" doc:"The registered units, then any unit id the events or the writer's stats carry that the schema does not list"`
	Categories []infoCategory `json:"categories" doc:"The registered categories"`
	Metadata   []infoMeta     `json:"metadata" doc:"The run metadata, in file order"`
}

// infoSymbol is an interned string.
type infoSymbol struct {
	ID   uint32 `json:"id" doc:"Its id (what a Symbol argument holds)"`
	Text string `json:"text" doc:"The string"`
}

type infoBlocks struct {
	Count        int    `json:"count" doc:"Blocks"`
	Zstd         int    `json:"zstd" doc:"Blocks stored zstd-compressed"`
	Raw          int    `json:"raw" doc:"Blocks stored raw"`
	Bytes        uint64 `json:"bytes" doc:"Bytes of block data on disk, headers included"`
	Uncompressed uint64 `json:"uncompressed_bytes" doc:"Bytes of block data once decompressed"`
	MinEvents    uint32 `json:"min_events" doc:"Fewest events in a block"`
	MaxEvents    uint32 `json:"max_events" doc:"Most events in a block"`
	UnitSets     string `json:"unit_sets" doc:"The blocks' unit sets: none (a unit query decodes every block), recorded, one_unit_per_block, or recovered (found while verifying the recovered blocks)"`
	Overlapping  bool   `json:"overlapping" doc:"Block cycle ranges overlap (events are merged by cycle on read)"`
}

type infoFormat struct {
	ID     uint32 `json:"id" doc:"Its id"`
	Format string `json:"format" doc:"Its format string"`
	File   string `json:"file,omitempty" doc:"The source file that registered it, when recorded"`
	Line   uint32 `json:"line,omitempty" doc:"The line there"`
}

type infoUnit struct {
	ID          uint16        `json:"id" doc:"Its id"`
	Name        string        `json:"name" doc:"Its name"`
	Type        string        `json:"type,omitempty" doc:"Its type name, when recorded"`
	Events      *uint64       `json:"events" doc:"Its events in the file: the writer's unit stats, or with -v counted by reading the file; null otherwise"`
	Emitted     *uint64       `json:"emitted" doc:"Its events the simulation emitted (unit stats; null without)"`
	Dropped     *uint64       `json:"dropped" doc:"Its events the writer dropped (unit stats; null without)"`
	TimeBase    *infoTimeBase `json:"time_base" doc:"How long one of its cycles lasts, when it is on a clock of its own (null: the file's time base)"`
	NotInSchema bool          `json:"not_in_schema,omitempty" doc:"true: the schema lists no unit of this id, its events carry it (name empty)"`
}

// infoTimeBase is a time base: one cycle lasts num/den seconds.
type infoTimeBase struct {
	Text string `json:"text" doc:"The length of one cycle as info prints it (1 ps, 2500 ps, 1/3000000000 s)"`
	Num  uint64 `json:"num" doc:"One cycle lasts num/den seconds"`
	Den  uint64 `json:"den" doc:"... (num and den as the file records them)"`
}

// newInfoTimeBase returns tb's report, nil for a zero tb.
func newInfoTimeBase(tb schema.TimeBase) *infoTimeBase {
	if tb.IsZero() {
		return nil
	}
	return &infoTimeBase{Text: tb.String(), Num: tb.Num, Den: tb.Den}
}

type infoCategory struct {
	Mask        uint64 `json:"mask" doc:"Its bit in a unit's enable mask"`
	Name        string `json:"name" doc:"Its name"`
	Description string `json:"description,omitempty" doc:"Its description, when given"`
}

type infoMeta struct {
	Key       string `json:"key" doc:"The key (in a merged file, <label>/key for each input's)"`
	Value     string `json:"value" doc:"The value"`
	UnitsKept *int   `json:"units_kept,omitempty" doc:"A recorded selection (chronon.select) with units=: how many of the file's units its patterns kept"`
	UnitsOf   *int   `json:"units_of,omitempty" doc:"... of how many (the run's units, in a merged file)"`
}

// infoJSON builds the report of one file.
func infoJSON(c *config, path, label string) (*infoFile, error) {
	r, err := openTrace(c, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	h, s := r.Header(), r.Schema()
	blocks := r.Blocks()
	if err := r.Err(); err != nil {
		return nil, err
	}
	st := summarize(r)
	f := &infoFile{
		File: path, Label: label, Version: fmt.Sprintf("%d.%d", h.VersionMajor, h.VersionMinor),
		Simulation: s.SimulationName, Writer: s.Writer, Status: r.Status().String(),
		Recovered: r.Status().State != mmapio.StateComplete, Size: r.Size(),
		Events: st.total, FirstCycle: st.minCycle, LastCycle: st.maxCycle, Compressed: h.Flags&schema.FlagCompressed != 0,
		Blocks: infoBlocks{Count: len(blocks), Zstd: st.zstdBlocks, Raw: len(blocks) - st.zstdBlocks,
			Bytes: st.compressed + uint64(len(blocks))*schema.BlockHeaderSize, Uncompressed: st.uncompressed,
			MinEvents: st.minEvents, MaxEvents: st.maxEvents, Overlapping: st.overlapping},
		TimeBase: newInfoTimeBase(s.TimeBase), Symbols: len(s.Symbols),
		Formats: []infoFormat{}, Units: []infoUnit{}, Categories: []infoCategory{}, Metadata: []infoMeta{},
	}
	if c.verbose || c.allStrings {
		for id, str := range s.Symbols[:symbolsListed(len(s.Symbols), c.allStrings)] {
			f.SymbolList = append(f.SymbolList, infoSymbol{ID: uint32(id), Text: str})
		}
	}
	switch {
	case !r.HasUnitSets():
		f.Blocks.UnitSets = "none"
	case r.Footer() == nil:
		f.Blocks.UnitSets = "recovered"
	case st.oneUnit:
		f.Blocks.UnitSets = "one_unit_per_block"
	default:
		f.Blocks.UnitSets = "recorded"
	}
	if ft := r.Footer(); ft != nil && ft.CreatedTimestamp > 0 {
		f.Created = time.Unix(int64(ft.CreatedTimestamp), 0).UTC().Format(time.RFC3339)
	}
	for _, fm := range s.Formats {
		f.Formats = append(f.Formats, infoFormat{ID: fm.ID, Format: fm.Format, File: fm.File, Line: fm.Line})
	}
	for _, cat := range s.Categories {
		f.Categories = append(f.Categories, infoCategory{Mask: cat.Mask, Name: cat.Name, Description: cat.Description})
	}
	stats := map[uint16]schema.UnitStat{}
	if us := r.UnitStats(); us != nil {
		var emitted, dropped uint64
		for _, u := range us {
			stats[u.UnitID] = u
			emitted, dropped = emitted+u.Emitted, dropped+u.Dropped
		}
		f.Emitted, f.Dropped = &emitted, &dropped
	}
	var counted map[uint16]uint64
	if r.UnitStats() == nil && c.verbose {
		counted = map[uint16]uint64{}
		for ev := range r.Events(mmapio.Query{}) {
			counted[ev.UnitID]++
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	listed := map[uint16]bool{}
	for _, u := range s.Units {
		listed[u.ID] = true
		f.Units = append(f.Units, infoUnit{ID: u.ID, Name: u.Name, Type: u.TypeName, TimeBase: newInfoTimeBase(u.TimeBase)})
	}
	// Ids the events or the stats carry that the schema does not list.
	for id := 0; id < 1<<16; id++ {
		_, inStats := stats[uint16(id)]
		if !listed[uint16(id)] && (inStats || counted[uint16(id)] > 0) {
			f.Units = append(f.Units, infoUnit{ID: uint16(id), NotInSchema: true})
		}
	}
	for i := range f.Units {
		u := &f.Units[i]
		if us, ok := stats[u.ID]; ok {
			u.Events, u.Emitted, u.Dropped = &us.Written, &us.Emitted, &us.Dropped
		} else if r.UnitStats() != nil {
			var zero uint64
			u.Events, u.Emitted, u.Dropped = &zero, &zero, &zero
		} else if counted != nil {
			n := counted[u.ID]
			u.Events = &n
		}
	}
	for _, kv := range r.Metadata() {
		m := infoMeta{Key: kv.Key, Value: kv.Value}
		if label, ok := selectionLabel(kv.Key); ok {
			if patterns, ok := unitsel.Patterns(kv.Value); ok {
				names := runNames(readerNames(r), label)
				kept := unitsel.Count(patterns, names)
				m.UnitsKept, m.UnitsOf = &kept, new(int)
				*m.UnitsOf = len(names)
			}
		}
		f.Metadata = append(f.Metadata, m)
	}
	return f, nil
}

// writeInfoJSON prints info --json of c's files.
func writeInfoJSON(c *config, w io.Writer, labels []string) error {
	rep := infoReport{Files: []infoFile{}}
	for i, path := range c.files {
		label := ""
		if labels != nil {
			label = labels[i]
		}
		f, err := infoJSON(c, path, label)
		if err != nil {
			return err
		}
		rep.Files = append(rep.Files, *f)
	}
	return writeJSON(w, rep)
}

// writeJSON prints v as the reports print JSON: indented by two spaces.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
