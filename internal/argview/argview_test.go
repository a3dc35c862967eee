package argview

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/schema"
)

// ResetFirst(n) locates the arguments Reset does, the first n of them
// only; a string without its NUL and arg_count end the arguments as in
// Reset.
func TestResetFirst(t *testing.T) {
	types := []schema.ArgType{schema.ArgUInt32, schema.ArgString, schema.ArgUInt64, schema.ArgString, schema.ArgUInt8}
	raw := []byte{1, 0, 0, 0, 'a', 'b', 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 9}
	var all, first View
	all.Reset(types, raw, len(types))
	require.Equal(t, 5, all.n)
	require.Equal(t, uint64(7), all.Uint(2))
	require.Equal(t, uint64(9), all.Uint(4))
	for n := 0; n <= len(types); n++ {
		first.ResetFirst(types, raw, len(types), n)
		require.Equal(t, n, first.n, "n=%d", n)
		require.Equal(t, all.off[:n], first.off[:n], "n=%d", n)
		require.False(t, first.Has(n), "n=%d", n)
	}
	all.Reset(types, raw[:10], len(types)) // cut in the uint64
	require.Equal(t, 2, all.n)
	all.Reset(types, raw[:6], len(types)) // cut in the first string: no NUL
	require.Equal(t, 1, all.n)
	all.Reset(types, raw, 3) // arg_count
	require.Equal(t, 3, all.n)
}
