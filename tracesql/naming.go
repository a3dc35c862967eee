package tracesql

import (
	"slices"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// namer names a table for every format of every trace. A name is the
// format's base (formatBase), made free (reservedNames.tableName); one
// another format already has gets _<format_id>. The names writers gave
// (spans, async spans) are taken first (pass(true)), then the formats'
// first words (pass(false)), each in trace then schema order: a span's
// table is named after it whatever order its formats were registered in.
// Traces share a table when their formats have the same name and argument
// types (a span: the same name). The spans of a named span are one table.
// Tables are listed in the order of their first format (trace, then
// schema order). A table is names only until built (fmtTable.build).
//
// The writers' names are few and decide the span tables' views, made when
// the database opens; the first words (a trace may have 100k formats) are
// named when a query first needs a per-format table or a format's name.
type namer struct {
	readers    []*mmapio.Reader
	lead       []string
	rn         *reservedNames
	runNames   bool // span tables are NAME_spans (WithRunNames)
	tables     []*fmtTable
	byName     map[string]*fmtTable
	spanTables map[string]*fmtTable // by span name
	// fmtNames are each trace's table names by format id (the first entry
	// of an id).
	fmtNames []formatNames
}

// formatNames are table names by format id: a slice when the ids are
// dense enough, else a map.
type formatNames struct {
	dense  [][]byte
	sparse map[uint32][]byte
}

func newFormatNames(fs []*mmapio.Format) formatNames {
	maxID := uint32(0)
	for _, f := range fs {
		maxID = max(maxID, f.ID)
	}
	if uint64(maxID) < 4*uint64(len(fs))+1024 {
		return formatNames{dense: make([][]byte, maxID+1)}
	}
	return formatNames{sparse: make(map[uint32][]byte, len(fs))}
}

// get returns format id's table name (nil: none).
func (n *formatNames) get(id uint32) []byte {
	if n.sparse != nil {
		return n.sparse[id]
	}
	if uint64(id) < uint64(len(n.dense)) {
		return n.dense[id]
	}
	return nil
}

func (n *formatNames) set(id uint32, name []byte) {
	if n.sparse != nil {
		n.sparse[id] = name
	} else {
		n.dense[id] = name
	}
}

func newNamer(readers []*mmapio.Reader, multi, timed, runNames bool, rn *reservedNames) *namer {
	lead := []string{"cycle", "time", "unit", "unit_id", "seq"}
	if !timed {
		lead = slices.DeleteFunc(lead, func(s string) bool { return s == "time" })
	}
	if multi {
		lead = append([]string{"trace"}, lead...)
	}
	n := &namer{readers: readers, lead: lead, rn: rn, runNames: runNames, byName: map[string]*fmtTable{},
		spanTables: map[string]*fmtTable{}, fmtNames: make([]formatNames, len(readers))}
	for i, r := range readers {
		n.fmtNames[i] = newFormatNames(r.Formats())
	}
	return n
}

// pass names the formats whose table a writer's name names (writers), or
// the others.
func (n *namer) pass(writers bool) {
	order := namingOrder(n.readers, writers)
	bases := make([]string, len(order))
	spans := make([]bool, len(order))
	var check []string
	for i, at := range order {
		bases[i], spans[i] = formatBase(at.f)
		if spans[i] && n.runNames {
			bases[i] += "_spans"
		}
		if !n.rn.tableKeywords[bases[i]] && !n.rn.tables[bases[i]] {
			check = append(check, bases[i])
		}
	}
	n.rn.precheck(tableQueries, check)
	if len(order) > len(n.byName) { // grown once, not by doubling
		byName := make(map[string]*fmtTable, len(n.byName)+len(order))
		for k, v := range n.byName {
			byName[k] = v
		}
		n.byName = byName
	}
	// One allocation each for the tables, their ids and their names (at
	// 100k formats, allocating each was most of the naming).
	slab := make([]fmtTable, len(order))
	ids := make([]int64, len(order)*len(n.readers))
	size := 0
	for _, b := range bases {
		size += len(b) + 8 // a suffix _<id> now and then
	}
	arena := make([]byte, 0, size)
	for i, at := range order {
		ti, f := at.trace, at.f
		base, span := bases[i], spans[i]
		if t := n.spanTables[f.Name]; span && t != nil {
			var b []byte
			b, arena = intern(arena, t.Name) // another format of the span, or the span in another trace
			n.fmtNames[ti].set(f.ID, b)
			continue
		}
		base = n.rn.tableName(base)
		name := base
		var t *fmtTable
		for k := 0; ; k++ {
			t = n.byName[name]
			if t == nil && !n.rn.tables[name] || t != nil && !span && t.Span == "" && t.ids[ti] < 0 && slices.Equal(t.types, f.ArgTypes) && slices.Equal(symbolArgs(t.f), symbolArgs(f)) {
				break // free, or the same format in another trace
			}
			name = strings.TrimSuffix(base, "_") + "_" + strconv.FormatUint(uint64(f.ID), 10)
			if k > 0 {
				name += "_" + strconv.Itoa(k)
			}
		}
		if t == nil {
			t = &slab[i]
			t.init(name, f, span, ids[i*len(n.readers):(i+1)*len(n.readers):(i+1)*len(n.readers)], n.lead)
			t.pos = at.pos
			n.byName[name] = t
			n.tables = append(n.tables, t)
		}
		if span {
			n.spanTables[f.Name] = t
		} else {
			t.ids[ti] = int64(f.ID)
		}
		var b []byte
		b, arena = intern(arena, name)
		n.fmtNames[ti].set(f.ID, b)
	}
	if !slices.IsSortedFunc(n.tables, byPos) {
		slices.SortStableFunc(n.tables, byPos)
	}
}

func byPos(a, b *fmtTable) int { return a.pos - b.pos }

// intern returns s's bytes appended to arena (a new arena when it is
// full: the slices handed out stay valid).
func intern(arena []byte, s string) (b, rest []byte) {
	if cap(arena)-len(arena) < len(s) {
		arena = make([]byte, 0, max(len(s), 4096))
	}
	arena = append(arena, s...)
	return arena[len(arena)-len(s) : len(arena) : len(arena)], arena
}

// placedFormat is a format, its trace and its position among all the
// traces' formats.
type placedFormat struct {
	f          *mmapio.Format
	trace, pos int
}

// namingOrder returns the formats the readers use (the first entry of an
// id), in trace then schema order: those whose table is named by a name
// the writer gave (formatBase: spans, async spans) when writers is true,
// the others when false.
func namingOrder(readers []*mmapio.Reader, writers bool) []placedFormat {
	var out []placedFormat
	if !writers {
		all := 0
		for _, r := range readers {
			all += len(r.Formats())
		}
		out = make([]placedFormat, 0, all)
	}
	pos := 0
	for ti, r := range readers {
		for _, f := range r.Formats() {
			pos++
			named := f.Name != "" && (spanKind(f.Kind) || f.Kind == schema.KindAsyncBegin || f.Kind == schema.KindAsyncEnd)
			if named == writers && r.Format(f.ID) == f { // Format: an id's first entry
				out = append(out, placedFormat{f, ti, pos})
			}
		}
	}
	return out
}

// init makes t the table named name for format f, reading it in ids'
// traces: names only, its columns made by build.
func (t *fmtTable) init(name string, f *mmapio.Format, span bool, ids []int64, lead []string) {
	t.f, t.lead, t.types, t.ids = f, lead, f.ArgTypes, ids
	for i := range t.ids {
		t.ids[i] = -1
	}
	t.Name = name
	if span {
		t.Span = f.Name
	} else {
		t.Format = f.Format.Format
	}
}

// build makes t's doc line and columns (and its arguments' roles), once:
// a trace's tables are built when a query reads them, not when it opens.
// It reports whether this call built them.
func (t *fmtTable) build(rn *reservedNames) (built bool) {
	t.once.Do(func() {
		built = true
		if t.Span != "" {
			t.Doc = "spans named " + strconvQuote(t.Span)
			if t.lead[0] == "trace" {
				t.Columns = append(t.Columns, leadColumn("trace"))
			}
			timed := slices.Contains(t.lead, "time")
			for _, c := range spansColumns {
				if c.Name != "name" && (timed || !isTimeColumn(c.Name)) {
					t.Columns = append(t.Columns, c)
				}
			}
			return
		}
		t.symbol = symbolArgs(t.f)
		t.Doc = "events of format " + strconvQuote(t.Format)
		for _, l := range t.lead {
			t.Columns = append(t.Columns, leadColumn(l))
		}
		t.Columns = append(t.Columns, argColumns(t.f, t.lead, rn)...)
	})
	return built
}
