package tracesql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// Names of the generated tables and columns.
//
// Every name a trace gives is one a query can write bare, anywhere: a
// format's table is its first word (a span's, its name), lower-cased;
// a name DuckDB's parser takes for a keyword in some place (fetch, at,
// select, float, if), one of DuckDB's table functions, table macros, tables
// or views (range, read_parquet, generate_series, duckdb_tables), or one of
// our own tables (events, spans) gets a trailing '_' (fetch_, range_,
// events_). What is avoided comes from the database itself when it opens
// (duckdb_keywords, duckdb_functions, duckdb_tables, duckdb_views, and the
// parser, asked whether the queries one writes with a name parse), so a
// later DuckDB's keywords and functions are avoided too. Our table
// functions are named with a ':' (ctrace:events), which no generated name
// has.

// reservedNames is what generated names avoid.
type reservedNames struct {
	// tableKeywords are the keywords a table cannot be named (all but
	// DuckDB's unreserved ones: float( is a type's cast, not a table
	// macro), columnKeywords those a column cannot (reserved and
	// type_function: select, at).
	tableKeywords, columnKeywords map[string]bool
	// tables are the names a table may not take: DuckDB's table functions
	// and macros (a view's macro of that name would hide it), its tables
	// and views on the search path, and ours.
	tables map[string]bool
	// parses reports whether a query parses (whatever it names need not
	// exist); nil: not asked.
	parses func(query string) bool
	// mu guards cache: tables are named and their columns built when a
	// query first needs them, on DuckDB's threads.
	mu    sync.Mutex
	cache map[string]bool
}

// newReservedNames makes the set from DuckDB's lists: keywords by
// category (reserved, type_function, column_name, unreserved), and the
// names of its table functions, macros, tables and views.
func newReservedNames(keywords map[string]string, tables []string, parses func(string) bool) *reservedNames {
	rn := &reservedNames{tableKeywords: map[string]bool{}, columnKeywords: map[string]bool{}, tables: map[string]bool{},
		parses: parses, cache: map[string]bool{}}
	for k, cat := range keywords {
		k = strings.ToLower(k)
		rn.tableKeywords[k] = cat != "unreserved"
		rn.columnKeywords[k] = cat == "reserved" || cat == "type_function"
	}
	for _, t := range tables {
		rn.tables[strings.ToLower(t)] = true
	}
	for _, t := range fixedTables {
		rn.tables[t.Name] = true
	}
	return rn
}

// tableName is name, or name with '_' appended until it is free to be a
// table's.
func (rn *reservedNames) tableName(name string) string {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for rn.tableKeywords[name] || rn.tables[name] || !rn.check(tableQueries, name) {
		name += "_"
	}
	return name
}

// tableQueries are the queries a user writes with a table's name.
const tableQueries = "SELECT * FROM events e, %[1]s f JOIN %[1]s(cycles := '', unit := '') AS g USING (cycle) WHERE f.cycle IN (SELECT cycle FROM %[1]s(unit := ''));" +
	"DESCRIBE %[1]s; SUMMARIZE %[1]s; SELECT * FROM %[1]s, %[1]s(cycles := '') %[1]s"

// plainIdent reports whether name is an ASCII identifier (a lower-case
// letter or '_', then letters, digits, '_') that is no keyword of DuckDB's
// in any category: the lexer makes it an IDENT token, which the grammar
// takes wherever these queries put a table's or a column's name, so the
// parser need not be asked (at 100k formats, asking took most of the start).
func (rn *reservedNames) plainIdent(name string) bool {
	if _, kw := rn.tableKeywords[name]; kw || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkBatch is how many names precheck asks the parser about at once.
const checkBatch = 256

// precheck asks the parser about the queries (query with each of names)
// that check would ask about one at a time, many in one parse: a batch
// that parses vouches for all its queries, one that does not is split in
// two until the failing queries are found. Each parse costs DuckDB a
// fraction of a millisecond whatever its length, so a trace of 100k
// formats starts in 100k/checkBatch parses instead of 100k.
func (rn *reservedNames) precheck(query string, names []string) {
	if rn.parses == nil {
		return
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	var qs []string
	seen := map[string]bool{}
	for _, n := range names {
		if rn.plainIdent(n) {
			continue
		}
		q := fmt.Sprintf(query, n)
		if _, cached := rn.cache[q]; !cached && !seen[q] {
			seen[q] = true
			qs = append(qs, q)
		}
	}
	for len(qs) > 0 {
		k := min(len(qs), checkBatch)
		rn.checkAll(qs[:k])
		qs = qs[k:]
	}
}

// checkAll parses the queries qs together and caches each one's answer.
func (rn *reservedNames) checkAll(qs []string) {
	if len(qs) == 1 {
		rn.cache[qs[0]] = rn.parses(qs[0])
		return
	}
	if rn.parses(strings.Join(qs, ";\n")) {
		for _, q := range qs {
			rn.cache[q] = true
		}
		return
	}
	rn.checkAll(qs[:len(qs)/2])
	rn.checkAll(qs[len(qs)/2:])
}

// columnName is name, or name with '_' appended until it is not a keyword.
func (rn *reservedNames) columnName(name string) string {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for rn.columnKeywords[name] || !rn.check(columnQueries, name) {
		name += "_"
	}
	return name
}

// columnQueries are the queries a user writes with a column's name.
const columnQueries = "SELECT %[1]s, t.%[1]s, sum(%[1]s), max(%[1]s) FILTER (WHERE %[1]s > 0) AS %[1]s FROM t WHERE %[1]s IS NOT NULL GROUP BY %[1]s, t.%[1]s ORDER BY %[1]s"

// check reports whether the queries a user writes with name (query, name
// in place of %[1]s) parse. The caller holds rn.mu.
func (rn *reservedNames) check(query, name string) bool {
	if rn.parses == nil || rn.plainIdent(name) {
		return true
	}
	q := fmt.Sprintf(query, name)
	ok, seen := rn.cache[q]
	if !seen {
		ok = rn.parses(q)
		rn.cache[q] = ok
	}
	return ok
}

// funcName is the name of the table function behind table t: never a
// table's (a generated name has no ':'), quoted where it is used.
func funcName(t string) string { return "ctrace:" + t }

// isIdentRune reports whether r may be part of a bare identifier: ASCII
// letters, digits and '_', and other letters and digits (DuckDB takes UTF-8
// identifiers).
func isIdentRune(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	case r == utf8.RuneError:
		return false // a byte that is not UTF-8
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// lowerASCII lower-cases the ASCII letters of s: DuckDB matches bare
// identifiers without regard to ASCII case (only).
func lowerASCII(s string) string {
	upper := false
	for i := 0; i < len(s) && !upper; i++ {
		upper = s[i] >= 'A' && s[i] <= 'Z'
	}
	if !upper {
		return s // no copy: a trace's 100k table names are its formats' text
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// tableBase is the table name a format's text gives: its first word,
// ASCII lower-cased ("" when the text starts with no letter or '_').
func tableBase(text string) string {
	end := 0
	for end < len(text) {
		r, n := utf8.DecodeRuneInString(text[end:])
		if !isIdentRune(r) || end == 0 && unicode.IsDigit(r) {
			break
		}
		end += n
	}
	return lowerASCII(text[:end])
}

// ident makes a name (an argument's, a span's) an identifier: ASCII
// lower-cased, every run of other characters (spaces, punctuation, bytes
// that are not UTF-8) between two parts one '_'; "" when nothing is left.
// A leading digit gets prefix in front of it.
func ident(s, prefix string) string {
	var b strings.Builder
	sep := false          // a '_' is due before the next identifier character
	for _, r := range s { // a byte that is not UTF-8 comes as RuneError
		if !isIdentRune(r) {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('_')
		}
		sep = false
		b.WriteRune(r)
	}
	out := lowerASCII(b.String())
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = prefix + out
	}
	return out
}

// argColumns names the argument columns of a format: the name before each
// placeholder (Format.ArgName), else argN; a keyword gets '_' (at_); a
// name that repeats one before it, or one of the leading columns, gets a
// suffix.
func argColumns(f *mmapio.Format, lead []string, rn *reservedNames) []Column {
	taken := map[string]bool{}
	for _, l := range lead {
		taken[l] = true
	}
	cols := make([]Column, len(f.ArgTypes))
	for i, t := range f.ArgTypes {
		name := rn.columnName(ident(f.ArgName(i), "a"))
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		base := strings.TrimRight(name, "0123456789_")
		if base == "" {
			base = "arg"
		}
		for k := 2; taken[name]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		taken[name] = true
		typ := sqlType(t)
		if f.Role(i) == schema.RoleSymbol {
			typ = "VARCHAR" // an interned string, read as its text
		}
		cols[i] = Column{Name: name, Type: typ, Doc: fmt.Sprintf("argument %d (%s)", i, t)}
	}
	return cols
}

// spanKind reports whether formats of kind k are a span's begin, end or
// complete: a named span is one table, its spans.
func spanKind(k schema.EventKind) bool {
	return k == schema.KindSpanBegin || k == schema.KindSpanEnd || k == schema.KindSpanComplete
}

// formatBase is the name a format's table starts from: a named span's
// name; a named async span's name with _begin or _end; else the text's
// first word ("format" when it has none).
func formatBase(f *mmapio.Format) (base string, span bool) {
	if f.Name != "" {
		switch {
		case spanKind(f.Kind):
			base, span = ident(f.Name, "span_"), true
		case f.Kind == schema.KindAsyncBegin:
			base = ident(f.Name, "span_") + "_begin"
		case f.Kind == schema.KindAsyncEnd:
			base = ident(f.Name, "span_") + "_end"
		}
		if base == "_begin" || base == "_end" {
			base = "span" + base
		}
	}
	if base == "" && !span {
		base = tableBase(f.Format.Format)
	}
	if base == "" {
		base = "format"
	}
	return base, span
}

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

// sqlText is s as a VARCHAR holds it (DuckDB's strings are UTF-8): s
// itself when it is UTF-8, else with every byte that is not part of a
// UTF-8 character written \xHH, as dump writes control bytes. Two unit
// names that differ in such bytes stay two names.
func sqlText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
