package mmapio

import (
	"bytes"
	"errors"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// A footer that disagrees with its blocks (an entry listed twice, blocks
// that overlap or are out of file order, totals that are not the blocks')
// fails Open, as the conformance oracle rejects it, with an error naming the
// file, the footer and the byte offset; WithRepair reads the blocks by
// walking them instead (and the rewrite package's Complete then writes a
// correct footer).
func TestFooterDisagreesWithBlocks(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, Compress: true})
	want := string(dumpText(t, openBytesT(t, good), Query{}, 0))
	h, _ := schema.DecodeHeader(good)
	// What Open reports for each lie: the entry (-1: the footer as a
	// whole) and the finding.
	expect := map[string]struct {
		entry  int
		reason string
	}{
		"one block listed twice":                  {3, "lists the block at byte"},
		"one block listed twice, totals adjusted": {3, "again"},
		"the last block listed again first":       {1, "overlaps the previous block"},
		"overlapping blocks":                      {4, "overlaps the previous block"},
		"out of file order":                       {2, "overlaps"},
		"block_index not the position":            {5, "records block_index 9, want 5"},
		"total_events 2^64-1":                     {-1, "total_events is 18446744073709551615 but its"},
		"total_events one short":                  {-1, "blocks hold 400 events"},
		"min_cycle":                               {-1, "cycle range"},
		"max_cycle":                               {-1, "cycle range"},
	}
	lies := ctracetest.FooterLies()
	require.Len(t, lies, len(expect))
	for _, lie := range lies {
		c, ok := expect[lie.Name]
		require.True(t, ok, lie.Name)
		t.Run(lie.Name, func(t *testing.T) {
			b := rewriteFooter(t, bytes.Clone(good), lie.Edit)
			_, err := OpenBytes("bad.ctrace", b)
			off := int64(h.FooterOffset)
			if c.entry >= 0 {
				x, xerr := schema.DecodeFooterIndex(b[h.FooterOffset:], off, nil)
				require.NoError(t, xerr)
				off = x.EntryOffset(c.entry)
				require.Greater(t, off, int64(h.FooterOffset))
			}
			requireFormatError(t, err, "footer", off, c.reason)
			if c.entry >= 0 {
				require.Contains(t, err.Error(), "blocks["+itoa(c.entry)+"]")
			}
			checkRepaired(t, b, want, c.reason)
		})
	}
}

// The footer may end where the last block does, not before.
func TestFooterOverlapsLastBlock(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024, Compress: true})
	want := string(dumpText(t, openBytesT(t, good), Query{}, 0))
	h, _ := schema.DecodeHeader(good)
	f, err := schema.DecodeFooter(good[h.FooterOffset:], 0)
	require.NoError(t, err)
	foot := schema.BuildFooter(flatbuffers.NewBuilder(0), f)
	at := h.FooterOffset - 4 // the footer starts 4 bytes before the last block ends
	b := append(bytes.Clone(good[:at]), foot...)
	h.FooterOffset, h.FooterSize = at, uint64(len(foot))
	copy(b, schema.AppendHeader(nil, h))
	_, err = OpenBytes("bad.ctrace", b)
	requireFormatError(t, err, "footer", int64(at), "the footer overlaps the last block")

	// The last block is damaged (its last 4 bytes are the footer's): the
	// walk keeps the blocks before it.
	r, err := OpenBytes("bad.ctrace", b, WithRepair())
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, StateRecovered, r.Status().State)
	require.Equal(t, len(f.Blocks)-1, r.Status().Blocks)
	got := string(dumpText(t, r, Query{}, 0))
	require.True(t, len(got) < len(want))
}

// checkRepaired opens b with WithRepair: every block once, the dump of the
// good file.
func checkRepaired(t *testing.T, b []byte, want, reason string) {
	t.Helper()
	r, err := OpenBytes("bad.ctrace", b, WithRepair())
	require.NoError(t, err)
	defer r.Close()
	st := r.Status()
	require.Equal(t, StateRecovered, st.State)
	require.Contains(t, st.Why, "the footer is rejected: footer at byte ")
	require.Contains(t, st.Why, reason)
	require.Zero(t, st.TornBytes, st.String())
	require.Equal(t, uint64(400), st.Events)
	require.Equal(t, want, string(dumpText(t, r, Query{}, 0)))
}

// Without WithRepair a rejected footer is an error; the error is a
// FormatError whatever the finding.
func TestFooterCheckErrorIsFormatError(t *testing.T) {
	good := sampleTrace(t, ctracetest.Options{BlockSize: 1024})
	b := rewriteFooter(t, good, func(f *schema.Footer) { f.TotalEvents = 7 })
	_, err := OpenBytes("bad.ctrace", b)
	var fe *schema.FormatError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "bad.ctrace: footer at byte "+itoa(int(fe.Offset))+": total_events is 7 but its "+itoa(len(mustFooter(t, good).Blocks))+" blocks hold 400 events", err.Error())
}

func mustFooter(t *testing.T, b []byte) *schema.Footer {
	t.Helper()
	h, _ := schema.DecodeHeader(b)
	f, err := schema.DecodeFooter(b[h.FooterOffset:h.FooterOffset+h.FooterSize], 0)
	require.NoError(t, err)
	return f
}
