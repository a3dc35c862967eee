package spantree

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ev is a test event: "b u id parent" (begin), "e u id", "m u id", "o parent".
type ev struct {
	Info
	name string
}

func b(c uint64, u uint16, id, parent uint64, name string) ev {
	return ev{Info{Cycle: c, Unit: u, Kind: Begin, ID: id, Parent: parent}, name}
}
func e(c uint64, u uint16, id uint64, name string) ev {
	return ev{Info{Cycle: c, Unit: u, Kind: End, ID: id}, name}
}
func m(c uint64, u uint16, id uint64, name string) ev {
	return ev{Info{Cycle: c, Unit: u, Kind: Member, ID: id}, name}
}
func o(c uint64, parent uint64, name string) ev {
	return ev{Info{Cycle: c, Kind: Other, Parent: parent}, name}
}

// run pushes the events and returns, in the order handled, one line per
// event: "name node=N parent=P#child [missing] [late]".
func run(t *testing.T, o *Orderer[string], evs ...ev) []string {
	t.Helper()
	var out []string
	emit := func(in Info, v string, r Resolved) error {
		s := fmt.Sprintf("%s node=%d parent=%d#%d", v, r.Node, r.Parent, r.Child)
		if r.Missing {
			s += " missing"
		}
		if r.Late {
			s += " late"
		}
		out = append(out, s)
		return nil
	}
	for _, x := range evs {
		require.NoError(t, o.Push(x.Info, x.name, emit))
	}
	require.NoError(t, o.Flush(emit))
	return out
}

func TestPairing(t *testing.T) {
	got := run(t, NewOrderer[string](),
		b(1, 1, 7, 0, "A"), b(1, 2, 7, 0, "B"), // the same id on two units: two spans
		b(2, 1, 8, 0, "C"), e(3, 1, 7, "endA"), // spans of one unit end in any order
		m(3, 1, 8, "tagC"), m(3, 1, 7, "tagNone"), e(4, 1, 8, "endC"),
		e(5, 1, 9, "endNothing"),               // an end without a begin
		b(6, 1, 7, 0, "D"), e(7, 1, 7, "endD"), // an id reused after its end: a new span
		e(8, 2, 7, "endB"),
	)
	require.Equal(t, []string{
		"A node=0 parent=-1#0", "B node=1 parent=-1#0", "C node=2 parent=-1#0", "endA node=0 parent=-1#0",
		"tagC node=2 parent=-1#0", "tagNone node=-1 parent=-1#0", "endC node=2 parent=-1#0",
		"endNothing node=-1 parent=-1#0", "D node=3 parent=-1#0", "endD node=3 parent=-1#0", "endB node=1 parent=-1#0",
	}, got)
}

func TestIDReusedWhileOpenNests(t *testing.T) {
	got := run(t, NewOrderer[string](), b(1, 1, 5, 0, "outer"), b(2, 1, 5, 0, "inner"), e(3, 1, 5, "e1"), e(4, 1, 5, "e2"))
	require.Equal(t, []string{"outer node=0 parent=-1#0", "inner node=1 parent=-1#0", "e1 node=1 parent=-1#0", "e2 node=0 parent=-1#0"}, got)
}

func TestParents(t *testing.T) {
	got := run(t, NewOrderer[string](),
		b(1, 1, 100, 0, "root"),
		b(2, 2, 200, 100, "c1"), // parent open on another unit
		b(2, 3, 300, 100, "c2"),
		o(3, 100, "instant"),   // an instant child
		b(3, 2, 201, 200, "g"), // a grandchild
		e(9, 1, 100, "endRoot"),
		b(10, 2, 202, 100, "afterEnd"), // the root ended: the id still names it
		b(11, 2, 203, 999, "orphan"),   // no span ever had the id
	)
	require.Equal(t, []string{
		"root node=0 parent=-1#0", "c1 node=1 parent=0#0", "c2 node=2 parent=0#1", "instant node=-1 parent=0#2",
		"g node=3 parent=1#0", "endRoot node=0 parent=-1#0",
		"afterEnd node=4 parent=0#3 late", "orphan node=5 parent=-1#0 missing late",
	}, got)
}

// A child that begins before its parent in the same cycle waits for it;
// what refers to the waiting child (its end, a tag, its own children)
// waits behind it; events that do not depend on it go on.
func TestChildBeforeParentInOneCycle(t *testing.T) {
	got := run(t, NewOrderer[string](),
		b(5, 2, 20, 10, "child"), // parent 10 begins later this cycle
		m(5, 2, 20, "childTag"),
		b(5, 3, 30, 20, "grandchild"), // parent 20 is waiting
		e(5, 2, 20, "childEnd"),       // a zero-length child
		b(5, 4, 40, 0, "unrelated"),
		b(5, 1, 10, 0, "parent"),
		b(6, 1, 11, 0, "next cycle"),
	)
	require.Equal(t, []string{
		"unrelated node=0 parent=-1#0",
		"parent node=1 parent=-1#0",
		"child node=2 parent=1#0 late", "childTag node=2 parent=-1#0 late", "grandchild node=3 parent=2#0 late",
		"childEnd node=2 parent=-1#0 late",
		"next cycle node=4 parent=-1#0",
	}, got)
}

// At the end of the cycle the waiting events go parents first, and a
// child whose parent never began in it is missing (or takes the span with
// the id that ended before).
func TestFlushOrder(t *testing.T) {
	got := run(t, NewOrderer[string](),
		b(1, 1, 1, 0, "old1"), e(2, 1, 1, "endOld1"),
		b(3, 2, 3, 2, "c"), // waits for 2
		b(3, 2, 2, 9, "p"), // waits for 9, which never comes
		b(3, 2, 4, 1, "d"), // 1 ended: it waits for the cycle to end, then takes it
		b(3, 3, 5, 6, "x"), // x and y wait for each other
		b(3, 3, 6, 5, "y"),
	)
	require.Equal(t, []string{
		"old1 node=0 parent=-1#0", "endOld1 node=0 parent=-1#0",
		"p node=1 parent=-1#0 missing late", "c node=2 parent=1#0 late",
		"d node=3 parent=0#0 late",
		"x node=4 parent=-1#0 missing late", "y node=5 parent=4#0 late",
	}, got)
}

func TestRunsDoNotMeet(t *testing.T) {
	a := b(1, 1, 7, 0, "run0")
	c := b(2, 2, 8, 7, "run1child")
	c.Run = 1
	got := run(t, NewOrderer[string](), a, c)
	require.Equal(t, []string{"run0 node=0 parent=-1#0", "run1child node=1 parent=-1#0 missing late"}, got)
}

// Only the last maxEnded ended ids resolve; open spans always do.
func TestEndedIDsAreBounded(t *testing.T) {
	or := NewOrderer[string]()
	or.maxEnded = 2
	var evs []ev
	evs = append(evs, b(0, 9, 1000, 0, "long"))
	for i := uint64(1); i <= 4; i++ {
		evs = append(evs, b(i, 1, i, 0, "s"), e(i, 1, i, "e"))
	}
	evs = append(evs, b(10, 2, 50, 1, "of1"), b(10, 2, 51, 4, "of4"), b(10, 2, 52, 1000, "ofLong"))
	got := run(t, or, evs...)
	// ofLong's parent is open: it goes at once; the others wait for the cycle's end.
	require.Equal(t, []string{"ofLong node=5 parent=0#0", "of1 node=6 parent=-1#0 missing late", "of4 node=7 parent=4#0 late"}, got[len(got)-3:])

	// Ended ids too old to resolve are dropped now and then: the table stays
	// bounded however many spans end.
	or = NewOrderer[string]()
	or.maxEnded = 16
	emit := func(Info, string, Resolved) error { return nil }
	for i := uint64(1); i <= 50_000; i++ {
		require.NoError(t, or.Push(Info{Cycle: i, Unit: 1, Kind: Begin, ID: i}, "", emit))
		require.NoError(t, or.Push(Info{Cycle: i, Unit: 1, Kind: End, ID: i}, "", emit))
	}
	require.LessOrEqual(t, len(or.ids[0]), 2*16+4096+16)
}

// A cycle of more waiting events than maxHeld lets the oldest go.
func TestHeldIsBounded(t *testing.T) {
	or := NewOrderer[string]()
	or.maxHeld = 3
	var evs []ev
	for i := uint64(0); i < 10; i++ {
		evs = append(evs, b(1, 1, 100+i, 50, fmt.Sprint("c", i)))
	}
	evs = append(evs, b(1, 2, 50, 0, "parent"))
	got := run(t, or, evs...)
	require.Len(t, got, 11)
	missing := 0
	for _, l := range got {
		if strings.Contains(l, "missing") {
			missing++
		}
	}
	require.Equal(t, 7, missing, "%v", got)
	require.LessOrEqual(t, len(or.held), 3)
	require.Equal(t, "parent node=7 parent=-1#0", got[7])
	require.Equal(t, uint32(3), or.Children(7))
}

func TestCloneAndErrors(t *testing.T) {
	or := NewOrderer[[]byte]()
	or.Clone = func(v []byte) []byte { return append([]byte(nil), v...) }
	buf := []byte("child")
	var got []string
	emit := func(in Info, v []byte, r Resolved) error {
		got = append(got, string(v))
		if string(v) == "boom" {
			return fmt.Errorf("boom")
		}
		return nil
	}
	require.NoError(t, or.Push(Info{Cycle: 1, Unit: 1, Kind: Begin, ID: 2, Parent: 1}, buf, emit))
	copy(buf, "XXXXX") // the caller reuses its buffer: the waiting event kept a copy
	require.NoError(t, or.Push(Info{Cycle: 1, Unit: 1, Kind: Begin, ID: 1}, []byte("parent"), emit))
	require.Equal(t, []string{"parent", "child"}, got)
	require.EqualError(t, or.Push(Info{Cycle: 2, Kind: Other}, []byte("boom"), emit), "boom")
	require.Equal(t, int64(2), or.Nodes())
	require.Equal(t, []uint32{1, 0}, or.ChildCounts())
}

// Random events: every event is handled once, in cycle order; a parent is
// handled before its children; an end closes a begin handled before it;
// and a second pass over the same events handles them identically.
func TestRandomInvariants(t *testing.T) {
	rng := uint64(1)
	next := func(n uint64) uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng % n
	}
	var evs []ev
	cycle := uint64(0)
	for i := 0; i < 5000; i++ {
		if next(3) == 0 {
			cycle++
		}
		u, id := uint16(1+next(3)), 1+next(40)
		switch next(4) {
		case 0, 1:
			evs = append(evs, b(cycle, u, id, next(45), fmt.Sprint(i)))
		case 2:
			evs = append(evs, e(cycle, u, id, fmt.Sprint(i)))
		default:
			evs = append(evs, o(cycle, next(45), fmt.Sprint(i)))
		}
	}
	pass := func() []string {
		or := NewOrderer[string]()
		var out []string
		seen := map[int64]bool{}
		last := uint64(0)
		emit := func(in Info, v string, r Resolved) error {
			require.GreaterOrEqual(t, in.Cycle, last)
			last = in.Cycle
			if r.Parent >= 0 {
				require.True(t, seen[r.Parent], "event %s: parent node %d not handled yet", v, r.Parent)
			}
			if in.Kind == End && r.Node >= 0 {
				require.True(t, seen[r.Node])
			}
			if in.Kind == Begin {
				seen[r.Node] = true
			}
			out = append(out, fmt.Sprintf("%s %d %d %d %v", v, r.Node, r.Parent, r.Child, r.Missing))
			return nil
		}
		for _, x := range evs {
			require.NoError(t, or.Push(x.Info, x.name, emit))
		}
		require.NoError(t, or.Flush(emit))
		return out
	}
	first := pass()
	require.Len(t, first, len(evs))
	require.Equal(t, first, pass())
}
