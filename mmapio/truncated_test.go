package mmapio

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// A file cut anywhere in its header or its schema fails Open with one kind
// of error: the file, the section and its offset, "truncated: N bytes, need
// M" (a cut at 64 bytes said "the file ends inside the schema", one at 100
// bytes what the partial FlatBuffer made of it: a table outside its section).
// Our files and the original writer's alike.
func TestTruncatedHeaderAndSchemaSayTheSame(t *testing.T) {
	ours := sampleTrace(t, ctracetest.Options{BlockSize: 1024, Compress: true})
	original, err := os.ReadFile(filepath.Join("..", "testdata", "reference", "mixed-small.ctrace"))
	require.NoError(t, err)
	for name, good := range map[string][]byte{"ours": ours, "original": original} {
		h, ok := schema.DecodeHeader(good)
		require.True(t, ok)
		require.NotZero(t, h.SchemaSize, name)
		for n := 0; n < int(h.SchemaOffset+h.SchemaSize); n++ {
			r, err := OpenBytes("bad.ctrace", good[:n])
			if err == nil && n > int(h.SchemaOffset+h.SchemaSize)-8 {
				// Only the schema's padding lost: it is found after the
				// header, and the file is recovered.
				require.NoError(t, r.Close())
				continue
			}
			require.Nil(t, r, "%s cut at %d", name, n)
			if n < schema.HeaderSize {
				requireFormatError(t, err, "header", 0, fmt.Sprintf("bad.ctrace: header at byte 0: truncated: %d bytes, need %d", n, schema.HeaderSize))
				continue
			}
			requireFormatError(t, err, "schema", int64(h.SchemaOffset), fmt.Sprintf("bad.ctrace: schema at byte %d: truncated: %d bytes, need %d", h.SchemaOffset, n-int(h.SchemaOffset), h.SchemaSize))
		}
	}
}
