package spantree

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Spans of one cycle whose parent ids name each other (a cycle of ids)
// cannot all have their parent: one on the cycle goes without, marked
// Cycle, and the rest resolve. An event whose parent is on the cycle
// without being on it (tail) is not the one sacrificed: it gets its parent.
func TestCycleOfParentIDs(t *testing.T) {
	var got []string
	or := NewOrderer[string]()
	emit := func(in Info, v string, r Resolved) error {
		s := v
		if r.Missing {
			s += " missing"
		}
		if r.Cycle {
			s += " cycle"
		}
		if r.Parent >= 0 {
			s += " has-parent"
		}
		got = append(got, s)
		return nil
	}
	for _, x := range []ev{
		b(5, 1, 3, 1, "tail"), // its parent 1 is on the cycle
		b(5, 1, 1, 2, "one"),
		b(5, 1, 2, 1, "two"),
		b(6, 1, 9, 8, "orphan"), // parent 8 never begins: missing, not a cycle
	} {
		require.NoError(t, or.Push(x.Info, x.name, emit))
	}
	require.NoError(t, or.Flush(emit))
	require.Equal(t, []string{"one missing cycle", "tail has-parent", "two has-parent", "orphan missing"}, got)
}
