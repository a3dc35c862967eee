package mmapio

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// A format's text is compiled when a message is first printed with it,
// not at Open: a schema of 100,000 formats spent most of `info`'s and
// `sql`'s start compiling texts neither prints. Printing one event
// compiles its format only, and the message is what it was.
func TestFormatsCompileOnFirstMessage(t *testing.T) {
	evs := ctracetest.W1Events(200, 4, 1)
	b, _, err := ctracetest.BuildLayout(ctracetest.W1Schema(4), evs, ctracetest.Options{Compress: true})
	require.NoError(t, err)
	r := openBytesT(t, b)
	require.Greater(t, len(r.Formats()), 1)
	for _, f := range r.Formats() {
		require.Nil(t, f.prog.Load(), "format %d compiled at Open", f.ID)
	}
	it := r.Iter(Query{})
	defer it.Close()
	require.True(t, it.Next())
	ev := it.Event()
	msg := ev.Message()
	require.NotEmpty(t, msg)
	for _, f := range r.Formats() {
		require.Equal(t, f.ID == ev.FormatID, f.prog.Load() != nil, "format %d", f.ID)
	}
	require.Equal(t, msg, ev.Message())
}
