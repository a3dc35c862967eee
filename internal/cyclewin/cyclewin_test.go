package cyclewin

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

func TestWindowAndReporter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("u")
	require.NoError(t, err)
	f := chronon.MustFormat1[uint64]("v {}")
	for c := uint64(100); c <= 200; c++ {
		f.Emit(u, c, c)
	}
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()

	first, last, ok := Of(r, mmapio.Query{})
	require.True(t, ok)
	require.Equal(t, [2]uint64{100, 200}, [2]uint64{first, last})
	first, last, ok = Of(r, mmapio.Query{}.WithCycles(150, 1000))
	require.True(t, ok)
	require.Equal(t, [2]uint64{150, 200}, [2]uint64{first, last})
	_, _, ok = Of(r, mmapio.Query{}.WithCycles(300, 400))
	require.False(t, ok)

	var got [][2]uint64
	p := NewReporter(r, mmapio.Query{}.WithCycles(150, 1000), func(done, total uint64) {
		got = append(got, [2]uint64{done, total})
	})
	require.True(t, p.Active())
	p.Report(100) // before the window
	p.Report(150)
	p.Report(175)
	p.Report(900) // past the file's end
	p.Done()
	require.Equal(t, [][2]uint64{{0, 51}, {1, 51}, {26, 51}, {51, 51}, {51, 51}}, got)

	none := NewReporter(r, mmapio.Query{}, nil)
	require.False(t, none.Active())
	none.Report(1) // no function: nothing happens
	none.Done()
}
