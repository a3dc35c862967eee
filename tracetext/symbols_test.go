package tracetext_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// A symbol argument prints as its string in the dump and in messages
// (the original reader prints its id); control characters in it are
// escaped like any string of the file.
func TestDumpPrintsSymbols(t *testing.T) {
	f := chronon.MustFormat3[chronon.Symbol, uint32, chronon.Symbol]("sym test kind={} n={} where={:x}")
	path := filepath.Join(t.TempDir(), "sym.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false), chronon.WithSymbolLimit(2))
	require.NoError(t, err)
	u, err := tr.NewUnit("l2")
	require.NoError(t, err)
	f.Emit(u, 5, tr.Intern("req_in"), 7, tr.Intern("L2\tbank"))
	f.Emit(u, 6, tr.Intern("req_in"), 8, tr.Intern("full"))
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	var out bytes.Buffer
	_, err = tracetext.WriteDump(&out, r, mmapio.Query{}, 0)
	require.NoError(t, err)
	require.Equal(t, "[         5] l2: sym test kind=req_in n=7 where=L2\\tbank\n"+
		"[         6] l2: sym test kind=req_in n=8 where=[symbol table full]\n", out.String())
	for ev := range r.Events(mmapio.Query{}) {
		require.Contains(t, ev.Message(), "kind=req_in")
	}
}

// A symbol after a string argument prints as its string too (the format
// takes the general path from its first string on).
func TestDumpPrintsSymbolsAfterStrings(t *testing.T) {
	f := chronon.MustFormat2[string, chronon.Symbol]("sym test text={} kind={}")
	path := filepath.Join(t.TempDir(), "sym2.ctrace")
	tr, err := chronon.Create(path, chronon.WithAutoMetadata(false))
	require.NoError(t, err)
	u, err := tr.NewUnit("l2")
	require.NoError(t, err)
	f.Emit(u, 5, "hello", tr.Intern("req_out"))
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	var out bytes.Buffer
	_, err = tracetext.WriteDump(&out, r, mmapio.Query{}, 0)
	require.NoError(t, err)
	require.Equal(t, "[         5] l2: sym test text=hello kind=req_out\n", out.String())
}
