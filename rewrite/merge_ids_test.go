package rewrite

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A unit that moves takes the lowest id no file names; once there is none,
// the lowest id still free; then none.
func TestIDPickerPrefersUnnamedIDs(t *testing.T) {
	named, used := new([1 << 16]bool), new([1 << 16]bool)
	used[0] = true
	for _, id := range []uint16{1, 2, 3, 4, 100} {
		named[id] = true
	}
	used[1], used[2] = true, true
	p := newIDPicker(named)
	id, ok := p.pick(used)
	require.True(t, ok)
	require.Equal(t, uint16(5), id, "3 and 4 are free but named: a later unit keeps them")
	used[5] = true
	for id := 6; id < 1<<16; id++ {
		if id != 100 {
			used[id] = true
		}
	}
	id, ok = p.pick(used)
	require.True(t, ok)
	require.Equal(t, uint16(3), id, "no unnamed id left: the lowest free one")
	used[3], used[4], used[100] = true, true, true
	_, ok = p.pick(used)
	require.False(t, ok)
}
