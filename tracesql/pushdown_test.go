//go:build cgo

package tracesql_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// pushdownTraces writes W1 in small blocks in both layouts: one unit per
// block (our writer's) and the original writer's one stream with no unit
// sets, where a unit's predicate cannot skip a block.
func pushdownTraces(t *testing.T) (perUnit, original string) {
	t.Helper()
	dir := t.TempDir()
	for i, o := range []ctracetest.Options{
		{BlockSize: 4096, PerUnit: true, Compress: true},
		{BlockSize: 4096, Compress: true, NoUnitSets: true},
	} {
		b, err := ctracetest.Build(ctracetest.W1Schema(16), ctracetest.W1Events(30_000, 16, 3), o)
		require.NoError(t, err)
		p := filepath.Join(dir, fmt.Sprintf("w1-%d.ctrace", i))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		if i == 0 {
			perUnit = p
		} else {
			original = p
		}
	}
	return perUnit, original
}

// TestPushdownAnswersAsAFullScan runs a few hundred generated queries
// (predicates on cycle and unit of every form the pushdown takes, and of
// forms it must leave alone: OR across columns, NOT, functions of cycle,
// joins, outer joins, subqueries, CTEs named like a table, the same table
// twice with different ranges) with the pushdown and without it, and
// requires the same answers; and that the pushdown did skip blocks.
func TestPushdownAnswersAsAFullScan(t *testing.T) {
	perUnit, original := pushdownTraces(t)
	dbs := map[string]*tracesql.DB{
		"per-unit": open(t, []string{perUnit}),
		"original": open(t, []string{original}),
		"two":      open(t, []string{perUnit, original}),
	}
	rng := rand.New(rand.NewPCG(7, 11))
	n := 300
	if testing.Short() {
		n = 60
	}
	if raceEnabled {
		// 94 s for 300 under the race detector, 38 s for 90: what it
		// watches (DuckDB's threads and the scans') every query exercises,
		// and make test's stage 5 runs the 300, every form, without it.
		n = 45
	}
	for _, name := range []string{"per-unit", "original", "two"} {
		db := dbs[name]
		g := &queryGen{rng: rng, multi: name == "two", maxCycle: maxCycle(t, db)}
		var saved int64
		for i := range n / 3 {
			q, joined := g.query()
			tracesql.SetPushdown(db, false)
			b0 := db.BlocksDecoded()
			want := sortedRows(t, db, q)
			full := db.BlocksDecoded() - b0
			tracesql.SetPushdown(db, true)
			b0 = db.BlocksDecoded()
			got := sortedRows(t, db, q)
			pushed := db.BlocksDecoded() - b0
			require.Equal(t, want, got, "%s query %d: %s\nrewritten: %s", name, i, q, tracesql.Rewrite(db, q))
			if !joined {
				// A join's probe side may go unread when its build side is
				// empty, with or without the pushdown: only scans of single
				// tables compare block for block.
				require.LessOrEqual(t, pushed, full, "%s query %d decoded more blocks with the pushdown: %s", name, i, q)
			}
			saved += full - pushed
		}
		t.Logf("%s: %d blocks fewer", name, saved)
		require.Positive(t, saved, "%s: the pushdown skipped no block", name)
	}
}

func maxCycle(t *testing.T, db *tracesql.DB) uint64 {
	var m uint64
	fmt.Sscan(one(t, db, "SELECT max(cycle) FROM events"), &m)
	return m
}

func sortedRows(t *testing.T, db *tracesql.DB, q string) []string {
	t.Helper()
	r := rows(t, db, q)
	sort.Strings(r)
	return r
}

// queryGen writes random queries over the W1 tables.
type queryGen struct {
	rng      *rand.Rand
	multi    bool
	maxCycle uint64
}

func (g *queryGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }

func (g *queryGen) cycle() uint64 { return g.rng.Uint64N(g.maxCycle + 2) }

// cyclePred is a predicate on col (the cycle column, maybe qualified).
func (g *queryGen) cyclePred(col string) string {
	a, b := g.cycle(), g.cycle()
	if a > b {
		a, b = b, a
	}
	switch g.rng.IntN(17) {
	case 0:
		return fmt.Sprintf("%s = %d", col, a)
	case 1:
		return fmt.Sprintf("%s < %d", col, a)
	case 2:
		return fmt.Sprintf("%s <= %d", col, a)
	case 3:
		return fmt.Sprintf("%s > %d", col, a)
	case 4:
		return fmt.Sprintf("%d <= %s", a, col)
	case 5:
		return fmt.Sprintf("%s BETWEEN %d AND %d", col, a, b)
	case 6:
		return fmt.Sprintf("%s IN (%d, %d, %d)", col, a, b, g.cycle())
	case 7:
		return fmt.Sprintf("%s <> %d", col, a)
	case 8:
		return fmt.Sprintf("NOT (%s < %d)", col, a)
	case 9:
		return fmt.Sprintf("%s + 1 = %d", col, a)
	case 10:
		return fmt.Sprintf("%s %% 7 = 3", col)
	case 11:
		return fmt.Sprintf("(%s < %d OR %s > %d)", col, a, col, b)
	case 12:
		return fmt.Sprintf("%s BETWEEN %d.5 AND %d.25", col, a, b)
	case 13:
		return fmt.Sprintf("%s > -%d", col, a)
	case 14:
		return fmt.Sprintf("%s::UBIGINT < %d::UBIGINT", col, b)
	case 15:
		return fmt.Sprintf("%s::VARCHAR LIKE '%d%%'", col, a%100)
	default:
		return fmt.Sprintf("%s NOT BETWEEN %d AND %d", col, a, b)
	}
}

var w1Units = []string{"core0.fetch", "core0.decode", "core0.rob", "core0.l2", "core1.fetch", "core1.lsu", "core1.rob", "core1.dram"}

// unitPred is a predicate on the unit columns of qualifier q ("" or "x.").
func (g *queryGen) unitPred(q string) string {
	u, v := w1Units[g.rng.IntN(len(w1Units))], w1Units[g.rng.IntN(len(w1Units))]
	switch g.rng.IntN(14) {
	case 0:
		return fmt.Sprintf("%sunit = '%s'", q, u)
	case 1:
		return fmt.Sprintf("%sunit IN ('%s', '%s')", q, u, v)
	case 2:
		return fmt.Sprintf("%sunit LIKE '%s%%'", q, u[:6])
	case 3:
		return fmt.Sprintf("%sunit GLOB 'core?.%s*'", q, u[6:8])
	case 4:
		return fmt.Sprintf("%sunit_id = %d", q, g.rng.IntN(18))
	case 5:
		return fmt.Sprintf("%sunit_id IN (%d, %d)", q, g.rng.IntN(18), g.rng.IntN(18))
	case 6:
		return fmt.Sprintf("%sunit <> '%s'", q, u)
	case 7:
		return fmt.Sprintf("lower(%sunit) = '%s'", q, strings.ToUpper(u))
	case 8:
		return fmt.Sprintf("%sunit ILIKE '%%%s'", q, strings.ToUpper(u[6:]))
	case 9:
		return fmt.Sprintf("regexp_matches(%sunit, '(fetch|rob)$')", q)
	case 10:
		return fmt.Sprintf("NOT (%sunit = '%s')", q, u)
	case 11:
		return fmt.Sprintf("%sunit_id + 0 < %d", q, g.rng.IntN(18))
	case 12:
		if g.multi {
			return fmt.Sprintf("%strace = 'w1-%d.ctrace'", q, g.rng.IntN(2))
		}
		return fmt.Sprintf("%sunit_id BETWEEN 2 AND %d", q, 2+g.rng.IntN(14))
	default:
		return fmt.Sprintf("%sunit IS NOT NULL", q)
	}
}

// where is a conjunction of one to three predicates on the table
// qualified q, sometimes with an OR across columns.
func (g *queryGen) where(q string) string {
	var ps []string
	for range 1 + g.rng.IntN(3) {
		switch g.rng.IntN(5) {
		case 0, 1:
			ps = append(ps, g.cyclePred(q+"cycle"))
		case 2, 3:
			ps = append(ps, g.unitPred(q))
		default:
			ps = append(ps, fmt.Sprintf("(%s OR %s)", g.cyclePred(q+"cycle"), g.unitPred(q)))
		}
	}
	return strings.Join(ps, " AND ")
}

// query returns a query and whether it joins tables.
func (g *queryGen) query() (string, bool) {
	t := g.pick("events", "fetch_", "decode")
	agg := "count(*), sum(cycle), min(unit), max(unit_id), max(seq)"
	k := g.rng.IntN(12)
	return g.queryOf(k, t, agg), k == 5 || k == 9 || k == 10
}

func (g *queryGen) queryOf(k int, t, agg string) string {
	switch k {
	case 0, 1, 2, 3:
		return fmt.Sprintf("SELECT %s FROM %s WHERE %s", agg, t, g.where(""))
	case 4:
		return fmt.Sprintf("SELECT unit, count(*), min(cycle) FROM %s x WHERE %s GROUP BY unit", t, g.where("x."))
	case 5: // a join of two tables, each narrowed by its own predicates
		return fmt.Sprintf("SELECT count(*), sum(a.cycle) FROM events a JOIN %s b ON a.cycle = b.cycle AND a.unit_id = b.unit_id WHERE %s AND %s",
			g.pick("fetch_", "decode"), g.where("a."), g.where("b."))
	case 6: // the same table twice, different ranges
		return fmt.Sprintf("SELECT (SELECT count(*) FROM %[1]s WHERE %[2]s), (SELECT sum(cycle) FROM %[1]s WHERE %[3]s)", t, g.where(""), g.where(""))
	case 7: // a subquery in FROM, predicates outside and inside
		return fmt.Sprintf("SELECT count(*), max(s.cycle) FROM (SELECT * FROM %s WHERE %s) s WHERE %s", t, g.where(""), g.where("s."))
	case 8: // a CTE named like a table: the name means the CTE
		return fmt.Sprintf("WITH events AS (SELECT * FROM %s WHERE %s) SELECT count(*), sum(cycle) FROM events WHERE %s", g.pick("fetch_", "decode"), g.where(""), g.where(""))
	case 9: // the null-supplying side of an outer join
		return fmt.Sprintf("SELECT count(*), count(e.cycle) FROM units u LEFT JOIN %s e ON e.unit_id = u.unit_id AND %s WHERE coalesce(e.unit, 'none') <> '%s'",
			t, g.cyclePred("e.cycle"), w1Units[g.rng.IntN(len(w1Units))])
	case 10: // a correlated subquery, a set operation
		return fmt.Sprintf("SELECT count(*) FROM %s x WHERE %s AND EXISTS (SELECT 1 FROM units u WHERE u.unit_id = x.unit_id AND %s) UNION ALL SELECT count(*) FROM events WHERE %s",
			t, g.where("x."), g.unitPred("u."), g.where(""))
	default: // windows and ordering over a narrowed table
		return fmt.Sprintf("SELECT cycle, seq, unit, row_number() OVER (PARTITION BY unit ORDER BY cycle, seq) AS k FROM %s WHERE %s ORDER BY cycle, seq LIMIT 50", t, g.where(""))
	}
}

// TestPushdownNarrows: the predicates of the queries reach the
// seek index: a window decodes what --cycles decodes, a unit what --unit
// decodes.
func TestPushdownNarrows(t *testing.T) {
	perUnit, _ := pushdownTraces(t)
	db := open(t, []string{perUnit})
	dbc := open(t, []string{perUnit}, tracesql.WithCycles(9000, 9100))
	dbu := open(t, []string{perUnit}, tracesql.WithUnit("=core1.rob"))
	for _, c := range []struct {
		flagged  *tracesql.DB
		flagQ, q string
	}{
		{dbc, "SELECT count(*), sum(cycle) FROM events", "SELECT count(*), sum(cycle) FROM events WHERE cycle BETWEEN 9000 AND 9100"},
		{dbc, "SELECT count(*), sum(cycle) FROM events", "SELECT count(*), sum(cycle) FROM events WHERE cycle >= 9000 AND 9100 >= cycle AND unit_id > 0"},
		{dbu, "SELECT count(*), sum(dst) FROM decode", "SELECT count(*), sum(dst) FROM decode WHERE unit = 'core1.rob'"},
		{dbu, "SELECT count(*), sum(dst) FROM decode", "SELECT count(*), sum(dst) FROM decode d WHERE d.unit LIKE 'core1.ro%' AND d.unit_id IN (SELECT unit_id FROM units)"},
		{dbu, "SELECT count(*), sum(cycle) FROM events", "SELECT count(*), sum(cycle) FROM events WHERE unit GLOB 'core1.r?b'"},
	} {
		b0 := c.flagged.BlocksDecoded()
		want := one(t, c.flagged, c.flagQ)
		flagBlocks := c.flagged.BlocksDecoded() - b0
		b0 = db.BlocksDecoded()
		require.Equal(t, want, one(t, db, c.q), c.q)
		require.Equal(t, flagBlocks, db.BlocksDecoded()-b0, "%s: blocks decoded, against the flag's", c.q)
	}
}
