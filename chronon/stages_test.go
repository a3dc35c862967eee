package chronon_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

func TestStages(t *testing.T) {
	st := chronon.MustStages("stg.fetch", "stg.decode", "stg.exec")
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	in := st.Start(0) // sequence number 0 is an instruction like any other
	require.Equal(t, uint64(1), in.Flow())
	require.Equal(t, uint64(0), chronon.FlowSeq(in.Flow()))
	require.Equal(t, -1, in.Stage())
	st.Enter(u, 10, &in, 0)
	st.Enter(u, 12, &in, 1) // fetch [10, 12)
	require.Equal(t, 1, in.Stage())
	st.Leave(13, &in) // decode [12, 13), then a bubble
	st.Leave(14, &in) // in no stage: nothing
	st.Enter(u, 15, &in, 2)
	st.Retire(u, 19, &in) // exec [15, 19), then retire
	other := st.Start(1)
	st.Enter(u, 16, &other, 0)
	st.Squash(u, 17, &other)
	var zero chronon.Inst // not made by Start: in no stage, records no span
	require.NotPanics(t, func() { st.Leave(18, &zero) })
	require.Equal(t, -1, zero.Stage())
	require.Zero(t, testing.AllocsPerRun(100, func() {
		x := st.Start(9)
		st.Enter(u, 20, &x, 0)
		st.Enter(u, 21, &x, 1)
		st.Retire(u, 22, &x)
	}))
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	byID := map[uint32]schema.Format{}
	for _, f := range got.schema.Formats {
		byID[f.ID] = f
	}
	type span struct {
		name       string
		start, dur uint64
		flow       uint64
	}
	var spans []span
	var ends []string
	for _, e := range got.events[:6] {
		f := byID[e.rec.FormatID]
		switch f.Kind {
		case schema.KindSpanComplete:
			a := []byte(e.args)
			spans = append(spans, span{f.Name, e.rec.Cycle, le64(a[12:]), le64(a[4:])})
		case schema.KindRetire, schema.KindFlush:
			ends = append(ends, f.Kind.String()+"@"+itoa(int(e.rec.Cycle))+" flow "+itoa(int(le64([]byte(e.args)))))
		}
	}
	require.Equal(t, []span{{"stg.fetch", 10, 2, 1}, {"stg.decode", 12, 1, 1}, {"stg.exec", 15, 4, 1}, {"stg.fetch", 16, 1, 2}}, spans)
	require.Equal(t, []string{"retire@19 flow 1", "flush@17 flow 2"}, ends)

	_, err := chronon.NewStages(nil)
	require.Error(t, err)
	_, err = chronon.NewStages([]string{"a", "a"})
	require.ErrorContains(t, err, `stage "a" named twice`)
}

// Between takes the end cycle, not a duration. An end before the start
// (the two swapped, a stage left before it was entered) records nothing:
// before, it recorded an empty span at the end, a wrong start nobody was
// told of. It is counted and kept as the tracer's error, as Complete's
// impossible spans are, and the refusal allocates nothing.
func TestSpanBetween(t *testing.T) {
	s := chronon.MustSpan("between")
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	s.Between(u, 5, 9, 2, 3)
	s.Between(u, 9, 5, 2, 3)
	s.Between(u, 7, 7, 1, 4) // an empty span is a real one
	require.ErrorIs(t, tr.Err(), chronon.ErrImpossibleSpan)
	require.ErrorContains(t, tr.Err(), `span "between" on unit "u0" from cycle 9 to cycle 5`)
	require.Zero(t, testing.AllocsPerRun(100, func() { s.Between(u, 9, 5, 2, 3) }))
	require.Equal(t, uint64(102), tr.Stats().Units[0].Rejected)

	// Stages.Leave at a cycle before the stage's Enter: the same.
	st, err := chronon.NewStages([]string{"btw.fetch", "btw.exec"})
	require.NoError(t, err)
	in := st.Start(1)
	st.Enter(u, 20, &in, 0)
	st.Enter(u, 22, &in, 1) // fetch 20..22
	st.Leave(21, &in)       // exec entered at 22, left at 21
	require.Equal(t, uint64(103), tr.Stats().Units[0].Rejected)
	require.ErrorIs(t, tr.Close(), chronon.ErrImpossibleSpan)

	got := readBack(t, path)
	require.Len(t, got.events, 3)
	require.Equal(t, uint64(5), got.events[0].rec.Cycle)
	require.Equal(t, string(cat(le32(2), u64(3), u64(4))), got.events[0].args)
	require.Equal(t, uint64(7), got.events[1].rec.Cycle)
	require.Equal(t, string(cat(le32(1), u64(4), u64(0))), got.events[1].args)
	require.Equal(t, uint64(20), got.events[2].rec.Cycle)
	require.Equal(t, string(cat(le32(0), u64(chronon.SeqFlow(1)), u64(2))), got.events[2].args)
}

func TestCounterOnChange(t *testing.T) {
	c := chronon.MustCounter("onchange.occupancy")
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	occ := c.OnChange(u)
	for cycle, v := range []int64{0, 0, 3, 3, 3, 1, 1, 0} {
		occ.Sample(uint64(cycle), v)
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { occ.Sample(100, 0) }))
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	var samples []string
	for _, e := range got.events {
		samples = append(samples, itoa(int(e.rec.Cycle))+"="+itoa(int(le64([]byte(e.args)))))
	}
	require.Equal(t, []string{"0=0", "2=3", "5=1", "7=0"}, samples)
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
