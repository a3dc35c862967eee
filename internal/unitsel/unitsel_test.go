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
