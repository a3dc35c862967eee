package chronon_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Registered categories get bits of their own: the first one used to be
// handed CategoryDefault's bit, so masking it off also masked every format,
// span and counter registered without WithCategory.
func TestRegisteredCategoryIsNotTheDefault(t *testing.T) {
	verbose, err := chronon.RegisterCategory("test.verbose", "registered first")
	require.NoError(t, err)
	mem, err := chronon.RegisterCategory("test.mem", "registered second")
	require.NoError(t, err)
	require.Zero(t, verbose&chronon.CategoryDefault, "first category %#x shares the default bit", verbose)
	require.Zero(t, mem&chronon.CategoryDefault, "second category %#x shares the default bit", mem)
	require.NotEqual(t, verbose, mem)

	plain := chronon.MustFormat1[uint32]("plain {}") // CategoryDefault
	chatty := chronon.MustFormat1[uint32]("chatty {}", chronon.WithCategory(verbose))
	tr, path := create(t)
	u := units(t, tr, 1)[0]
	u.Disable(verbose)
	require.True(t, u.Enabled(chronon.CategoryDefault), "disabling a registered category disabled the default one")
	plain.Emit(u, 1, 7)
	chatty.Emit(u, 2, 8)
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	require.Equal(t, []rbEvent{ev(1, plain.ID(), uint32(chronon.CategoryDefault), u, 1, le32(7))}, got.events)
	names := map[string]uint64{}
	for _, c := range got.schema.Categories {
		names[c.Name] = c.Mask
	}
	require.Equal(t, verbose, names["test.verbose"])
	require.Equal(t, mem, names["test.mem"])
}
