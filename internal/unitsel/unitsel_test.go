package unitsel

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatchIsOnTheWholeName(t *testing.T) {
	require.True(t, Match("core1.*", "core1.fetch"))
	require.False(t, Match("core1", "core1.fetch"), "not a substring")
	require.False(t, Match("core1.*", "rank0/core1.fetch"), "* does not cross /")
	require.True(t, Match("*/core1.*", "rank0/core1.fetch"))
	require.False(t, Match("[", "["), "a bad pattern matches nothing")
	require.Error(t, Check("["))
	require.NoError(t, Check("core[01].*"))
	require.True(t, Any([]string{"x", "core0.l2"}, "core0.l2"))
	require.False(t, Any(nil, "core0.l2"))
}

func TestPatternsOfARecordedSelection(t *testing.T) {
	ps, ok := Patterns("units=core1.*,core0.l2;cycles=5-9")
	require.True(t, ok)
	require.Equal(t, []string{"core1.*", "core0.l2"}, ps)
	ps, ok = Patterns("categories=fetch; units = a* ")
	require.True(t, ok)
	require.Equal(t, []string{"a*"}, ps)
	_, ok = Patterns("cycles=5-")
	require.False(t, ok)
}

func TestCountAndWiden(t *testing.T) {
	names := []string{"core0.fetch", "core0.l2", "core1.fetch", "core1.l2"}
	require.Equal(t, 0, Count([]string{"core1"}, names))
	require.Equal(t, 2, Count([]string{"core1.*"}, names))
	w, n := Widen([]string{"core1"}, names)
	require.Equal(t, "core1*", w)
	require.Equal(t, 2, n)
	w, n = Widen([]string{"l2"}, names)
	require.Equal(t, "*l2*", w)
	require.Equal(t, 2, n)
	w, n = Widen([]string{"gpu"}, names)
	require.Equal(t, "", w)
	require.Zero(t, n)
}

// A backslash escapes the next character in units= and --unit alike:
// core\1.fetch is core1.fetch to both (the writer's path.Match always read
// it so; --unit took it as a literal part of the name and found nothing).
func TestEscapesAgree(t *testing.T) {
	names := []string{"core1.fetch", `core\1.fetch`, "a*b", "axb", `back\slash`}
	for _, c := range []struct {
		v    string
		want []string // the names Match (units=) and Filter (--unit) both select
	}{
		{`core\1.fetch`, []string{"core1.fetch"}},
		{`core\\1.fetch`, []string{`core\1.fetch`}},
		{`a\*b`, []string{"a*b"}},
		{`a*b`, []string{"a*b", "axb"}},
		{`back\\slash`, []string{`back\slash`}},
	} {
		require.NoError(t, Check(c.v), c.v)
		var byMatch, byFilter []string
		for _, n := range names {
			if Match(c.v, n) {
				byMatch = append(byMatch, n)
			}
			if Filter(c.v, n) {
				byFilter = append(byFilter, n)
			}
		}
		require.Equal(t, c.want, byMatch, "units=%s", c.v)
		require.Equal(t, c.want, byFilter, "--unit %s", c.v)
	}
	require.Equal(t, "core1.fetch", Unescape(`core\1.fetch`))
	require.Equal(t, `a\`, Unescape(`a\`), "a trailing backslash stands for itself")
	require.Error(t, Check(`a\`), "units= cannot end in an escape (path.Match)")
	require.Error(t, Check(`=a\`))
	require.NoError(t, Check(`=a\\`))
}

// Names with brackets, as simulators write them (ROB[0].Top.incoming):
// =NAME is exact; the name as it is written finds it too, whole (units=)
// or as a part (--unit), beside what it matches as a pattern.
func TestNamesWithBrackets(t *testing.T) {
	names := []string{"ROB[0].Top.incoming", "ROB[0].Top.outgoing", "ROB0", "ROB[1].Top.incoming"}
	sel := func(f func(v, n string) bool, v string) []string {
		var out []string
		for _, n := range names {
			if f(v, n) {
				out = append(out, n)
			}
		}
		return out
	}
	require.Equal(t, []string{"ROB[0].Top.incoming"}, sel(Match, "=ROB[0].Top.incoming"))
	require.Equal(t, []string{"ROB[0].Top.incoming"}, sel(Filter, "=ROB[0].Top.incoming"))
	require.Equal(t, []string{"ROB[0].Top.incoming"}, sel(Match, "ROB[0].Top.incoming"), "the exact name, though [0] is a class")
	require.Equal(t, []string{"ROB[0].Top.incoming"}, sel(Match, `ROB\[0\].Top.incoming`))
	require.Equal(t, []string{"ROB0"}, sel(Match, "ROB[0]"), "units= is on the whole name")
	require.Equal(t, []string{"ROB[0].Top.incoming", "ROB[0].Top.outgoing", "ROB0"}, sel(Filter, "ROB[0]"),
		"--unit: the names containing ROB[0], and those the pattern matches whole")
	require.Equal(t, []string{"ROB[0].Top.incoming", "ROB[0].Top.outgoing"}, sel(Filter, `ROB\[0]`))
	require.Equal(t, []string{"ROB[0].Top.incoming", "ROB[1].Top.incoming"}, sel(Match, `ROB\[?\].Top.incoming`))
	require.Empty(t, sel(Filter, "=ROB[0]"), "= is the whole name")
	require.Equal(t, []string{"ROB[0].Top.incoming", "ROB[1].Top.incoming"}, sel(Match, "ROB[[]?].Top.incoming"))

	require.True(t, IsPattern("ROB[0]"))
	require.False(t, IsPattern(`ROB\[0]`))
	require.False(t, IsPattern("=ROB[0]"))
	require.Equal(t, `is "ROB[0]"`, Describe("=ROB[0]"))
	require.Equal(t, `matches "ROB[0]"`, Describe("ROB[0]"))
	require.Equal(t, `contains "core1"`, Describe(`core\1`))
	require.Error(t, Check("="))
	require.NoError(t, Check("=ROB[0"), "an exact name is never a bad pattern")
	require.Error(t, Check("ROB[0"))
	require.False(t, Match("ROB[0", "ROB[0"), "a malformed pattern matches nothing")
}

// A list splits at the commas and semicolons no backslash escapes, the
// escapes kept for Match: a unit name with a comma can be selected.
func TestSplitKeepsEscapes(t *testing.T) {
	require.Equal(t, []string{`a\,b`, "c"}, Split(`a\,b,c`, ','))
	require.Equal(t, []string{`x\\`, "y"}, Split(`x\\,y`, ','))
	require.Equal(t, []string{""}, Split("", ','))
	ps, ok := Patterns(`units==q\,r,s*;cycles=1-2`)
	require.True(t, ok)
	require.Equal(t, []string{`=q\,r`, "s*"}, ps)
	require.True(t, Any(ps, "q,r"))
	require.Equal(t, `a\*\[b]\\\,\;`, QuoteMeta(`a*[b]\,;`))
	for _, n := range []string{"a*[b", `x\y,z;`} {
		require.True(t, Match(QuoteMeta(n), n), n)
		require.True(t, Match("="+QuoteMeta(n), n), n)
	}
	w, n := Widen([]string{"=ROB[0]"}, []string{"ROB[0].Top.incoming", "ROB0.x"})
	require.Equal(t, `ROB\[0]*`, w)
	require.Equal(t, 1, n)
}
