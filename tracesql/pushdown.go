//go:build cgo

package tracesql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Predicate pushdown. DuckDB's C API gives a table function the columns a
// query reads, never its filters: a WHERE on cycle or unit would scan
// every block. So Query asks DuckDB's own parser for the statement's
// syntax tree (json_serialize_sql), finds each event table the query
// reads (events, counters, flows, a per-format table) and the WHERE and
// inner-join conjuncts that restrict its cycle or unit, and rewrites that
// table reference, in the query's own text, into a call that carries the
// selection (ctrace_pushdown := '...'): the scan then plans through the
// seek index the blocks that can hold what the predicates keep. Every
// predicate stays in the query, so the rewrite changes what is read, not
// what is answered. A conjunct is used only when it is certain to hold for
// every row the query keeps:
//
//   - cycle compared with an integer constant (=, <>, <, <=, >, >=,
//     BETWEEN, IN), or an AND/OR of such comparisons;
//   - any deterministic expression of the unit, unit_id and trace columns
//     alone (=, IN, LIKE, GLOB, regexp_matches, lower(unit) = ...):
//     DuckDB evaluates it on every unit id of every trace, and the units
//     for which it is true are the selection;
//   - of a table that the query reads directly (not the null-supplying side
//     of an outer join, not an ASOF or POSITIONAL join, not a CTE or
//     user table of the same name), whose columns it names unambiguously.
//
// Anything else (OR across columns, NOT, functions of cycle, parameters,
// subqueries) is left to DuckDB, over a full scan. A statement that is not
// a single or set of SELECTs (json_serialize_sql serializes only those) is
// run as written.

// pushdownTables are the fixed tables whose cycle and unit predicates are
// pushed down. spans is not: a span selected by cycles is cut at the
// window, so a predicate on its start or end is no selection of it.
var pushdownTables = map[string]bool{"events": true, "counters": true, "flows": true}

// rewrite returns query with its event table references narrowed by the
// selections its predicates imply (or query itself).
func (d *DB) rewrite(query string) string {
	var text string
	if err := d.sqldb.QueryRow("SELECT json_serialize_sql(" + sqlString(query) + ")::VARCHAR").Scan(&text); err != nil {
		return query
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc["error"] == true {
		return query
	}
	pd := &pushdown{d: d, query: query, ctes: map[string]bool{}}
	walkJSON(doc, func(m map[string]any) {
		if cm, ok := m["cte_map"].(map[string]any); ok {
			for _, e := range asList(cm["map"]) {
				if k, ok := asMap(e)["key"].(string); ok {
					pd.ctes[strings.ToLower(k)] = true
				}
			}
		}
	})
	walkJSON(doc, func(m map[string]any) {
		if m["type"] == "SELECT_NODE" {
			pd.selectNode(m)
		}
	})
	return pd.apply()
}

// pushdown is the state of one query's rewrite.
type pushdown struct {
	d     *DB
	query string
	ctes  map[string]bool
	edits []edit
	user  map[string]bool // names of the user's tables and views, when looked up
}

// edit replaces query[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// ref is a table reference of a SELECT's FROM.
type ref struct {
	node    map[string]any
	name    string          // the name columns are qualified with (alias, else table name)
	cols    map[string]bool // its columns; nil: not known (not one of ours)
	ours    string          // our table's name ("" for any other reference)
	pushOK  bool            // filtering it before the join changes no answer
	fnCall  bool            // written as a function call: events(...), fetch(...)
	ambig   map[string]bool // columns named in a USING clause it is part of
	cycles  []cycleRange    // the selection found, nil: every cycle
	unitPrd []any           // unit predicates found (expression nodes)
}

// selectNode finds the references of one SELECT and pushes its conjuncts.
func (pd *pushdown) selectNode(m map[string]any) {
	var refs []*ref
	var conds []any
	pd.collect(asMap(m["from_table"]), true, &refs, &conds)
	if len(refs) == 0 {
		return
	}
	if w := m["where_clause"]; w != nil {
		conds = append(conds, w)
	}
	var conj []any
	for _, c := range conds {
		conj = append(conj, conjuncts(c)...)
	}
	for _, c := range conj {
		r, cols, ok := pd.owner(c, refs)
		if !ok || r.ours == "" || !r.pushOK {
			continue
		}
		switch {
		case onlyCols(cols, "cycle"):
			if rs, ok := cycleRanges(c); ok {
				if r.cycles == nil {
					r.cycles = rs
				} else {
					r.cycles = (selection{cycles: r.cycles}).withCycles(rs).cycles
				}
			}
		case onlyCols(cols, "unit", "unit_id", "trace") && deterministic(c):
			r.unitPrd = append(r.unitPrd, c)
		}
	}
	for _, r := range refs {
		if r.ours != "" {
			pd.editRef(r)
		}
	}
}

// collect lists the references under a FROM node; pushOK says whether
// filtering the node's rows before its joins changes nothing. The
// conditions of inner joins are gathered with the WHERE's.
func (pd *pushdown) collect(n map[string]any, pushOK bool, refs *[]*ref, conds *[]any) {
	if n == nil {
		return
	}
	switch n["type"] {
	case "JOIN":
		jt, rt := n["join_type"], n["ref_type"]
		regular := rt == "REGULAR" || rt == "CROSS"
		left, right := pushOK && regular, pushOK && regular
		switch jt {
		case "INNER":
			if regular && n["condition"] != nil {
				*conds = append(*conds, n["condition"])
			}
		case "LEFT":
			right = false
		case "RIGHT":
			left = false
		default:
			left, right = false, false
		}
		before := len(*refs)
		pd.collect(asMap(n["left"]), left, refs, conds)
		pd.collect(asMap(n["right"]), right, refs, conds)
		if using := asList(n["using_columns"]); len(using) > 0 {
			for _, r := range (*refs)[before:] {
				if r.ambig == nil {
					r.ambig = map[string]bool{}
				}
				for _, u := range using {
					if s, ok := u.(string); ok {
						r.ambig[strings.ToLower(s)] = true
					}
				}
			}
		}
	case "BASE_TABLE":
		r := &ref{node: n, pushOK: pushOK}
		name, _ := n["table_name"].(string)
		r.name = name
		if a, _ := n["alias"].(string); a != "" {
			r.name = a
		}
		schema, _ := n["schema_name"].(string)
		catalog, _ := n["catalog_name"].(string)
		lname := strings.ToLower(name)
		if (schema == "" || strings.EqualFold(schema, "main")) && catalog == "" && !pd.ctes[lname] &&
			n["sample"] == nil && n["at_clause"] == nil && len(asList(n["column_name_alias"])) == 0 {
			r.ours = pd.ourTable(lname)
		}
		r.cols = pd.columnsOf(r.ours)
		*refs = append(*refs, r)
	case "TABLE_FUNCTION":
		r := &ref{node: n, pushOK: pushOK, fnCall: true}
		f := asMap(n["function"])
		name, _ := f["function_name"].(string)
		schema, _ := f["schema"].(string)
		r.name = name
		if a, _ := n["alias"].(string); a != "" {
			r.name = a
		}
		if (schema == "" || strings.EqualFold(schema, "main")) && n["sample"] == nil && len(asList(n["column_name_alias"])) == 0 {
			r.ours = pd.ourTable(strings.ToLower(name))
		}
		r.cols = pd.columnsOf(r.ours)
		*refs = append(*refs, r)
	default: // a subquery, a VALUES list, an empty FROM ...: not ours, columns unknown
		*refs = append(*refs, &ref{node: n})
	}
}

// ourTable returns the table name lname is, when it is one of ours that a
// reference can be narrowed in ("" otherwise).
func (pd *pushdown) ourTable(lname string) string {
	if pushdownTables[lname] {
		return lname
	}
	if ft := pd.d.formatTable(lname); ft != nil && !pd.userHas(lname) {
		return ft.Name
	}
	return ""
}

// userHas reports whether the user created a table or view named lname,
// which a query's name then means instead of the per-format table.
func (pd *pushdown) userHas(lname string) bool {
	if pd.user == nil {
		pd.user = map[string]bool{}
		rows, err := pd.d.sqldb.Query("SELECT lower(table_name) FROM duckdb_tables() UNION ALL SELECT lower(view_name) FROM duckdb_views() WHERE NOT internal")
		if err != nil {
			return true // not knowing: leave the reference alone
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil {
				pd.user[n] = true
			}
		}
	}
	return pd.user[lname]
}

func (pd *pushdown) columnsOf(table string) map[string]bool {
	if table == "" {
		return nil
	}
	var cols []Column
	ft := (*fmtTable)(nil)
	if !pushdownTables[table] { // events names no format: the names are made on first need
		ft = pd.d.formatTable(table)
	}
	if ft != nil {
		cols = pd.d.built(ft).Columns
	} else {
		for _, t := range pd.d.fixedTables() {
			if t.Name == table {
				cols = t.Columns
			}
		}
	}
	m := map[string]bool{}
	for _, c := range cols {
		m[c.Name] = true
	}
	return m
}

// owner returns the one reference all the columns conjunct c names belong
// to, and those columns (lower-case); false when c names none, names
// another reference's, or a name is ambiguous or unknown.
func (pd *pushdown) owner(c any, refs []*ref) (*ref, map[string]bool, bool) {
	var owner *ref
	cols := map[string]bool{}
	ok := true
	walkJSON(c, func(m map[string]any) {
		if !ok || m["class"] != "COLUMN_REF" {
			return
		}
		names := asList(m["column_names"])
		var r *ref
		var col string
		switch len(names) {
		case 1:
			col = strings.ToLower(fmt.Sprint(names[0]))
			for _, cand := range refs {
				if cand.cols == nil {
					ok = false // a reference whose columns are not known might have it
					return
				}
				if cand.cols[col] {
					if r != nil {
						ok = false
						return
					}
					r = cand
				}
			}
			if r != nil && r.ambig[col] {
				ok = false
				return
			}
		case 2:
			q := strings.ToLower(fmt.Sprint(names[0]))
			col = strings.ToLower(fmt.Sprint(names[1]))
			for _, cand := range refs {
				if strings.ToLower(cand.name) == q {
					if r != nil {
						ok = false
						return
					}
					r = cand
				}
			}
			if r == nil || r.cols == nil || !r.cols[col] {
				ok = false
				return
			}
		default:
			ok = false
			return
		}
		if r == nil || owner != nil && owner != r {
			ok = false
			return
		}
		owner = r
		cols[col] = true
	})
	return owner, cols, ok && owner != nil
}

func onlyCols(cols map[string]bool, allowed ...string) bool {
	for c := range cols {
		found := false
		for _, a := range allowed {
			found = found || c == a
		}
		if !found {
			return false
		}
	}
	return true
}

// conjuncts splits an expression at its top-level ANDs.
func conjuncts(e any) []any {
	m := asMap(e)
	if m != nil && m["type"] == "CONJUNCTION_AND" {
		var out []any
		for _, c := range asList(m["children"]) {
			out = append(out, conjuncts(c)...)
		}
		return out
	}
	return []any{e}
}

// cycleRanges returns the cycles an expression of cycle alone can be true
// for, when it is a comparison with integer constants or an AND or OR of
// those.
func cycleRanges(e any) ([]cycleRange, bool) {
	m := asMap(e)
	if m == nil {
		return nil, false
	}
	all := []cycleRange{{0, math.MaxUint64}}
	switch t, _ := m["type"].(string); t {
	case "CONJUNCTION_AND", "CONJUNCTION_OR":
		var out []cycleRange
		for i, c := range asList(m["children"]) {
			rs, ok := cycleRanges(c)
			if !ok {
				return nil, false
			}
			switch {
			case i == 0:
				out = rs
			case t == "CONJUNCTION_AND":
				out = (selection{cycles: out}).withCycles(rs).cycles
			default:
				out = normalize(append(out, rs...))
			}
		}
		return out, out != nil
	case "COMPARE_BETWEEN":
		if !isCycle(m["input"]) {
			return nil, false
		}
		lo, ok1 := constant(m["lower"])
		hi, ok2 := constant(m["upper"])
		if !ok1 || !ok2 {
			return nil, false
		}
		return clamp(ceil(lo), floor(hi)), true
	case "COMPARE_IN":
		ch := asList(m["children"])
		if len(ch) < 2 || !isCycle(ch[0]) {
			return nil, false
		}
		var out []cycleRange
		for _, c := range ch[1:] {
			v, ok := constant(c)
			if !ok {
				return nil, false
			}
			out = append(out, clamp(ceil(v), floor(v))...)
		}
		return normalize(out), true
	case "COMPARE_EQUAL", "COMPARE_NOT_DISTINCT_FROM", "COMPARE_NOTEQUAL", "COMPARE_DISTINCT_FROM",
		"COMPARE_LESSTHAN", "COMPARE_LESSTHANOREQUALTO", "COMPARE_GREATERTHAN", "COMPARE_GREATERTHANOREQUALTO":
		l, r := m["left"], m["right"]
		if !isCycle(l) {
			l, r = r, l
			t = flip[t]
		}
		if !isCycle(l) {
			return nil, false
		}
		v, ok := constant(r)
		if !ok {
			return nil, false
		}
		switch t {
		case "COMPARE_EQUAL", "COMPARE_NOT_DISTINCT_FROM":
			return clamp(ceil(v), floor(v)), true
		case "COMPARE_NOTEQUAL", "COMPARE_DISTINCT_FROM":
			if !v.IsInt() {
				return all, true
			}
			n := v.Num()
			return normalize(append(clamp(big.NewRat(0, 1), ratSub(n, 1)), clamp(ratAdd(n, 1), maxRat)...)), true
		case "COMPARE_LESSTHAN": // cycle < v: cycle <= ceil(v)-1
			return clamp(big.NewRat(0, 1), ratSub(ceil(v).Num(), 1)), true
		case "COMPARE_LESSTHANOREQUALTO":
			return clamp(big.NewRat(0, 1), floor(v)), true
		case "COMPARE_GREATERTHAN":
			return clamp(ratAdd(floor(v).Num(), 1), maxRat), true
		case "COMPARE_GREATERTHANOREQUALTO":
			return clamp(ceil(v), maxRat), true
		}
	}
	return nil, false
}

var flip = map[string]string{
	"COMPARE_LESSTHAN": "COMPARE_GREATERTHAN", "COMPARE_GREATERTHAN": "COMPARE_LESSTHAN",
	"COMPARE_LESSTHANOREQUALTO": "COMPARE_GREATERTHANOREQUALTO", "COMPARE_GREATERTHANOREQUALTO": "COMPARE_LESSTHANOREQUALTO",
	"COMPARE_EQUAL": "COMPARE_EQUAL", "COMPARE_NOTEQUAL": "COMPARE_NOTEQUAL",
	"COMPARE_NOT_DISTINCT_FROM": "COMPARE_NOT_DISTINCT_FROM", "COMPARE_DISTINCT_FROM": "COMPARE_DISTINCT_FROM",
}

var maxRat = new(big.Rat).SetInt(new(big.Int).SetUint64(math.MaxUint64))

func ratAdd(n *big.Int, k int64) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Add(n, big.NewInt(k)))
}
func ratSub(n *big.Int, k int64) *big.Rat { return ratAdd(n, -k) }

func floor(v *big.Rat) *big.Rat {
	q := new(big.Int).Div(v.Num(), v.Denom()) // Euclidean: floor for a positive denominator
	return new(big.Rat).SetInt(q)
}

func ceil(v *big.Rat) *big.Rat {
	f := floor(v)
	if f.Cmp(v) == 0 {
		return f
	}
	return ratAdd(f.Num(), 1)
}

// clamp is the range lo..hi of integers, cut to the cycles' domain.
func clamp(lo, hi *big.Rat) []cycleRange {
	if lo.Sign() < 0 {
		lo = big.NewRat(0, 1)
	}
	if hi.Cmp(maxRat) > 0 {
		hi = maxRat
	}
	if lo.Cmp(hi) > 0 {
		return []cycleRange{}
	}
	return []cycleRange{{lo.Num().Uint64(), hi.Num().Uint64()}}
}

// isCycle reports whether e is the cycle column (or a cast of it that
// changes no value: to UBIGINT, HUGEINT, UHUGEINT).
func isCycle(e any) bool {
	m := asMap(e)
	if m == nil {
		return false
	}
	if m["type"] == "OPERATOR_CAST" {
		switch typeID(m["cast_type"]) {
		case "UBIGINT", "HUGEINT", "UHUGEINT":
			return isCycle(m["child"])
		}
		return false
	}
	if m["class"] != "COLUMN_REF" {
		return false
	}
	names := asList(m["column_names"])
	return len(names) > 0 && strings.EqualFold(fmt.Sprint(names[len(names)-1]), "cycle")
}

func typeID(t any) string {
	id, _ := asMap(t)["id"].(string)
	return id
}

// constant returns the value of an integer or decimal constant (or of a
// cast of one to an integer type it fits).
func constant(e any) (*big.Rat, bool) {
	m := asMap(e)
	if m == nil {
		return nil, false
	}
	if m["type"] == "OPERATOR_CAST" {
		v, ok := constant(m["child"])
		if !ok || !v.IsInt() {
			return nil, false
		}
		lo, hi, isInt := intRange(typeID(m["cast_type"]))
		if !isInt || v.Num().Cmp(lo) < 0 || v.Num().Cmp(hi) > 0 {
			return nil, false
		}
		return v, true
	}
	if m["type"] != "VALUE_CONSTANT" {
		return nil, false
	}
	val := asMap(m["value"])
	if val == nil || val["is_null"] != false {
		return nil, false
	}
	t := asMap(val["type"])
	id, _ := t["id"].(string)
	switch id {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT":
		n, ok := new(big.Int).SetString(fmt.Sprint(val["value"]), 10)
		if !ok {
			return nil, false
		}
		return new(big.Rat).SetInt(n), true
	case "HUGEINT", "UHUGEINT":
		hv := asMap(val["value"])
		up, ok1 := new(big.Int).SetString(fmt.Sprint(hv["upper"]), 10)
		lo, ok2 := new(big.Int).SetString(fmt.Sprint(hv["lower"]), 10)
		if !ok1 || !ok2 {
			return nil, false
		}
		return new(big.Rat).SetInt(up.Lsh(up, 64).Add(up, lo)), true
	case "DECIMAL":
		info := asMap(t["type_info"])
		scale, err := strconv64(info["scale"])
		if err != nil || scale > 38 {
			return nil, false
		}
		var n *big.Int
		if hv := asMap(val["value"]); hv != nil { // a wide decimal is a HUGEINT
			up, ok1 := new(big.Int).SetString(fmt.Sprint(hv["upper"]), 10)
			lo, ok2 := new(big.Int).SetString(fmt.Sprint(hv["lower"]), 10)
			if !ok1 || !ok2 {
				return nil, false
			}
			n = up.Lsh(up, 64).Add(up, lo)
		} else {
			var ok bool
			if n, ok = new(big.Int).SetString(fmt.Sprint(val["value"]), 10); !ok {
				return nil, false
			}
		}
		return new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(scale), nil)), true
	}
	return nil, false
}

func strconv64(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	return n.Int64()
}

// intRange is the range of an integer type.
func intRange(id string) (lo, hi *big.Int, ok bool) {
	bits := map[string]int{"TINYINT": -8, "SMALLINT": -16, "INTEGER": -32, "BIGINT": -64, "HUGEINT": -128,
		"UTINYINT": 8, "USMALLINT": 16, "UINTEGER": 32, "UBIGINT": 64, "UHUGEINT": 128}[id]
	if bits == 0 {
		return nil, nil, false
	}
	one := big.NewInt(1)
	if bits > 0 {
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits)), one), true
	}
	b := uint(-bits - 1)
	return new(big.Int).Neg(new(big.Int).Lsh(one, b)), new(big.Int).Sub(new(big.Int).Lsh(one, b), one), true
}

// deterministic reports whether an expression computes the same value for
// the same column values: constants, column references, comparisons,
// AND/OR/NOT, IN, BETWEEN, CASE, casts and the functions of
// deterministicFuncs; no subquery, parameter or window.
func deterministic(e any) bool {
	ok := true
	walkJSON(e, func(m map[string]any) {
		switch m["class"] {
		case nil, "CONSTANT", "COLUMN_REF", "COMPARISON", "CONJUNCTION", "OPERATOR", "BETWEEN", "CASE", "CAST":
		case "FUNCTION":
			name, _ := m["function_name"].(string)
			if !deterministicFuncs[strings.ToLower(name)] || m["filter"] != nil || m["distinct"] == true {
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

var deterministicFuncs = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(`~~ !~~ ~~* !~~* ~~~ !~~~ like_escape not_like_escape ilike_escape
		not_ilike_escape glob regexp_matches regexp_full_match regexp_extract regexp_replace
		starts_with prefix suffix ends_with contains lower upper lcase ucase length strlen
		substr substring strpos instr position split_part concat concat_ws || replace trim ltrim
		rtrim left right reverse repeat lpad rpad + - * / // % abs least greatest coalesce ifnull
		nullif hash md5 string_split list_contains array_contains len`) {
		m[f] = true
	}
	return m
}()

// editRef narrows reference r when its predicates select something less
// than everything; a per-format table written as a function call is
// rewritten into its function in any case.
func (pd *pushdown) editRef(r *ref) {
	spec := &pushSpec{cycles: r.cycles, units: make([][]uint16, len(pd.d.traces))}
	if pd.d.noPushdown {
		spec.cycles, r.unitPrd = nil, nil
	}
	if len(r.unitPrd) > 0 {
		units, err := pd.d.unitsWhere(r.unitPrd)
		if err == nil {
			spec.units = units
		}
	}
	params := ""
	if s := spec.String(); s != "" {
		params = pushdownParam + " := '" + s + "'"
	}
	format := !pushdownTables[r.ours]
	loc, ok := location(r.node, pd.query)
	if !ok {
		return
	}
	end, ok := identEnd(pd.query, loc)
	if !ok {
		return
	}
	if !r.fnCall {
		if params == "" {
			return // the replacement scan reads the per-format table as it is
		}
		text := quoteIdent(r.ours) + "(" + params + ")"
		if format {
			text = formatFunc + "(" + sqlString(r.ours) + ", " + params + ")"
		}
		if a, _ := r.node["alias"].(string); a == "" {
			text += " AS " + quoteIdent(pd.query[loc:end][strings.LastIndexByte(pd.query[loc:end], '.')+1:])
		}
		pd.edits = append(pd.edits, edit{loc, end, text})
		return
	}
	if !format && params == "" {
		return // the macro takes the call as it is
	}
	open := skipSpace(pd.query, end)
	if open >= len(pd.query) || pd.query[open] != '(' {
		return
	}
	first := skipSpace(pd.query, open+1)
	empty := first < len(pd.query) && pd.query[first] == ')'
	var args []string
	if format {
		args = append(args, sqlString(r.ours))
	}
	if params != "" {
		args = append(args, params)
	}
	text := strings.Join(args, ", ")
	if text != "" && !empty {
		text += ", "
	}
	name := quoteIdent(r.ours)
	if format {
		name = formatFunc
	}
	if format {
		if a, _ := r.node["alias"].(string); a == "" {
			close, ok := matchParen(pd.query, open)
			if !ok {
				return
			}
			pd.edits = append(pd.edits, edit{close + 1, close + 1, " AS " + quoteIdent(r.ours)})
		}
	}
	pd.edits = append(pd.edits, edit{loc, open + 1, name + "(" + text})
}

// location is a node's query_location, when it lies in the query.
func location(n map[string]any, query string) (int, bool) {
	v, ok := n["query_location"].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := v.Int64()
	if err != nil || i < 0 || i >= int64(len(query)) {
		return 0, false
	}
	return int(i), true
}

// apply returns the query with the edits made (none overlap: each is a
// table reference).
func (pd *pushdown) apply() string {
	if len(pd.edits) == 0 {
		return pd.query
	}
	es := pd.edits
	for i := 1; i < len(es); i++ { // by position, last first
		for j := i; j > 0 && es[j].start > es[j-1].start; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
	q := pd.query
	prev := len(q) + 1
	for _, e := range es {
		if e.end > prev {
			return pd.query // overlapping: leave the query alone
		}
		q = q[:e.start] + e.text + q[e.end:]
		prev = e.start
	}
	return q
}

// unitsWhere evaluates unit predicates (expression nodes naming only
// unit, unit_id and trace) on every unit id of every trace, and returns
// the ids for which all hold, by trace.
func (d *DB) unitsWhere(preds []any) ([][]uint16, error) {
	where := preds[0]
	if len(preds) > 1 {
		where = map[string]any{"class": "CONJUNCTION", "type": "CONJUNCTION_AND", "alias": "", "query_location": json.Number("18446744073709551615"), "children": preds}
	}
	where = unqualify(where)
	stmt, err := d.unitTemplate()
	if err != nil {
		return nil, err
	}
	node := asMap(asMap(asList(stmt["statements"])[0])["node"])
	node["where_clause"] = where
	b, err := json.Marshal(stmt)
	if err != nil {
		return nil, err
	}
	rows, err := d.sqldb.Query("SELECT * FROM json_execute_serialized_sql(" + sqlString(string(b)) + ")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([][]uint16, len(d.traces))
	for i := range out {
		out[i] = []uint16{}
	}
	for rows.Next() {
		var ti int
		var id uint16
		if err := rows.Scan(&ti, &id); err != nil {
			return nil, err
		}
		if ti >= 0 && ti < len(out) {
			out[ti] = append(out[ti], id)
		}
	}
	return out, rows.Err()
}

// unitTemplate is the serialized statement unit predicates are evaluated
// in: every unit id (0-65535) of every trace, with its name and the
// trace's name; its WHERE is replaced by the predicates.
func (d *DB) unitTemplate() (map[string]any, error) {
	const q = `SELECT ti, unit_id FROM (SELECT t.ti, t.trace, r.range::USMALLINT AS unit_id, coalesce(n.unit, '') AS unit
		FROM ctrace_traces() t CROSS JOIN range(65536) r LEFT JOIN ctrace_unit_names() n ON n.ti = t.ti AND n.unit_id = r.range) WHERE ctrace_placeholder`
	var text string
	if err := d.sqldb.QueryRow("SELECT json_serialize_sql(" + sqlString(q) + ")::VARCHAR").Scan(&text); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if doc["error"] == true {
		return nil, fmt.Errorf("tracesql: unit template: %v", doc["error_message"])
	}
	return doc, nil
}

// unqualify drops the qualifier of every column reference (the
// predicates are evaluated where unit, unit_id and trace are the only
// columns).
func unqualify(e any) any {
	walkJSON(e, func(m map[string]any) {
		if m["class"] == "COLUMN_REF" {
			names := asList(m["column_names"])
			if len(names) > 1 {
				m["column_names"] = []any{names[len(names)-1]}
			}
		}
	})
	return e
}

// walkJSON calls visit for every object in v, outer ones first.
func walkJSON(v any, visit func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		visit(x)
		for _, c := range x {
			walkJSON(c, visit)
		}
	case []any:
		for _, c := range x {
			walkJSON(c, visit)
		}
	}
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// The few lexical rules the rewrite needs to find the end of a table
// name and the parentheses of a call in the query's text (the tree gives
// where a reference starts, not where it ends).

func skipSpace(q string, i int) int {
	for i < len(q) {
		switch {
		case q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r':
			i++
		case strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return len(q)
			}
			i += j
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return len(q)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// identEnd returns the end of the (possibly qualified, possibly quoted)
// name that starts at i.
func identEnd(q string, i int) (int, bool) {
	for {
		if i >= len(q) {
			return 0, false
		}
		if q[i] == '"' {
			j := i + 1
			for {
				k := strings.IndexByte(q[j:], '"')
				if k < 0 {
					return 0, false
				}
				j += k + 1
				if j < len(q) && q[j] == '"' {
					j++
					continue
				}
				break
			}
			i = j
		} else {
			j := i
			for j < len(q) && (isWordByte(q[j]) || q[j] >= 0x80) {
				j++
			}
			if j == i {
				return 0, false
			}
			i = j
		}
		k := skipSpace(q, i)
		if k < len(q) && q[k] == '.' {
			i = skipSpace(q, k+1)
			continue
		}
		return i, true
	}
}

// matchParen returns the index of the ')' that closes the '(' at i,
// skipping strings, quoted names and comments.
func matchParen(q string, i int) (int, bool) {
	depth := 0
	for i < len(q) {
		switch c := q[i]; {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
			continue
		case c == '-' && strings.HasPrefix(q[i:], "--") || c == '/' && strings.HasPrefix(q[i:], "/*"):
			i = skipSpace(q, i)
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
		i++
	}
	return 0, false
}

// isWordByte reports whether c may be part of a bare word.
func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
