package catmap

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

func cat(name string, mask uint64) schema.Category { return schema.Category{Name: name, Mask: mask} }

// Two runs that registered the same categories in opposite order: the
// second's bits move to the first's, by name.
func TestOppositeOrder(t *testing.T) {
	tb := NewTable()
	a, err := tb.Add([]schema.Category{cat("stall", 2), cat("exec", 4)}, []uint64{1, 2, 4})
	require.NoError(t, err)
	require.True(t, a.Identity())
	b, err := tb.Add([]schema.Category{cat("exec", 2), cat("stall", 4)}, []uint64{1, 2, 4})
	require.NoError(t, err)
	require.False(t, b.Identity())
	require.Equal(t, uint64(4), b.Mask(2), "exec")
	require.Equal(t, uint64(2), b.Mask(4), "stall")
	require.Equal(t, uint64(1), b.Mask(1), "the unnamed default bit keeps its number")
	require.Equal(t, uint32(1|2|4), b.Field(1|2|4))
	require.Equal(t, []schema.Category{cat("stall", 2), cat("exec", 4)}, tb.Categories())
}

// A name only the second file has keeps its bit when free, else takes the
// lowest free one; a bit no name holds is known by its number.
func TestNewNamesAndUnnamedBits(t *testing.T) {
	tb := NewTable()
	_, err := tb.Add([]schema.Category{cat("a", 2)}, nil)
	require.NoError(t, err)
	b, err := tb.Add([]schema.Category{cat("b", 2), cat("c", 8)}, []uint64{16})
	require.NoError(t, err)
	require.Equal(t, uint64(1), b.Mask(2), "b: bit 1 is a's, bit 0 is free")
	require.Equal(t, uint64(8), b.Mask(8), "c keeps its bit")
	require.Equal(t, uint64(16), b.Mask(16), "an unnamed bit keeps its number")
	c, err := tb.Add(nil, []uint64{2, 16})
	require.NoError(t, err)
	require.Equal(t, uint64(4), c.Mask(2), "the third file's unnamed bit 1 is not a's")
	require.Equal(t, uint64(16), c.Mask(16), "unnamed bit 4 is the same bit in every file")
	require.Equal(t, uint64(1<<9), c.Mask(1<<9), "a bit the file does not mention keeps its number")
	require.Equal(t, []schema.Category{cat("a", 2), cat("b", 1), cat("c", 8)}, tb.Categories())
}

// A category of several bits maps bit by bit; a bit it shares with
// another category is known by both names.
func TestMultiBit(t *testing.T) {
	tb := NewTable()
	_, err := tb.Add([]schema.Category{cat("mem", 6), cat("l2", 4)}, nil)
	require.NoError(t, err)
	b, err := tb.Add([]schema.Category{cat("l2", 1<<5), cat("mem", 1<<5|1<<6)}, nil)
	require.NoError(t, err)
	require.Equal(t, uint64(4), b.Mask(1<<5), "the bit named mem and l2")
	require.Equal(t, uint64(2), b.Mask(1<<6), "the bit named mem only")
}

// More distinct low bits than events hold is an error, not a silent
// collision.
func TestTooManyBits(t *testing.T) {
	tb := NewTable()
	var first, second []schema.Category
	for i := range 32 {
		first = append(first, cat(fmt.Sprint("a", i), 1<<i))
		second = append(second, cat(fmt.Sprint("b", i), 1<<i))
	}
	_, err := tb.Add(first, nil)
	require.NoError(t, err)
	_, err = tb.Add(second, nil)
	require.ErrorContains(t, err, "more than 32 distinct category bits")
}

// The zero Map keeps every bit (the first file's, a file not mapped).
func TestZeroMap(t *testing.T) {
	var m Map
	require.True(t, m.Identity())
	require.Equal(t, uint64(0xF0F0), m.Mask(0xF0F0))
	require.Equal(t, uint32(7), m.Field(7))
}
