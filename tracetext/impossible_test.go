package tracetext_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/tracetext"
)

// The one description of an impossible span that stats, the exports and
// SQL print: names escaped as a dump escapes them, the duration signed.
func TestImpossibleSpan(t *testing.T) {
	start, end := uint64(200), uint64(150)
	require.Equal(t, `span ex\nec on core 0 at cycle 200, duration -50`, tracetext.ImpossibleSpan("ex\nec", "core 0", start, end-start))
}
