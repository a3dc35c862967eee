package tracesql

import (
	"fmt"
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
