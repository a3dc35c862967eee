package mmapio

import (
	"io"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/schema"
)

// schemaFromRecipe builds a structurally valid schema as recipe says, for
// the real events of a W1 trace (formats 1 and 2, units 1..4): how many
// formats and units, each format's text (placeholders, specs, control
// characters), argument types (out of range ones too), roles and kind, unit
// ids (duplicates, 0) and names. The events then meet formats that do not
// describe their arguments: too few or too many, strings where the bytes
// hold no NUL, kinds whose roles point at arguments that do not exist. The
// bytes are a recipe, not the file, so the fuzzer reaches the schema's
// meaning instead of its FlatBuffers framing.
func schemaFromRecipe(recipe []byte) *schema.Schema {
	next := func() byte {
		if len(recipe) == 0 {
			return 0
		}
		c := recipe[0]
		recipe = recipe[1:]
		return c
	}
	s := &schema.Schema{Version: 1, SimulationName: "fuzz\x1b[2J"}
	texts := []string{"{}", "{:x}", "{:d}", "{{", "}", "x=", "\n", "\x1b", " ", "{:", "name={}"}
	for i := range int(next() % 6) {
		f := schema.Format{ID: uint32(next()) % 5, Kind: schema.EventKind(next() % 8)}
		if next()%4 != 0 {
			f.ID = uint32(i + 1)
		}
		var text strings.Builder
		for range int(next() % 12) {
			text.WriteString(texts[int(next())%len(texts)])
		}
		f.Format = text.String()
		for range int(next() % 10) {
			t := schema.ArgType(next() % 16) // 0, 14 and 15 are not types
			f.ArgTypes = append(f.ArgTypes, t)
			if next()%3 == 0 {
				f.ArgRoles = append(f.ArgRoles, schema.ArgRole(next()%8))
			}
		}
		s.Formats = append(s.Formats, f)
	}
	for range int(next() % 6) {
		s.Units = append(s.Units, schema.Unit{ID: uint16(next() % 6), Name: string([]byte{'u', next()})})
	}
	return s
}

// FuzzSchemaRecipe: whatever the schema says about real blocks, every
// reading path ends with events or a clear error, never a panic or hang.
func FuzzSchemaRecipe(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 1, 0, 1, 3, 0, 1, 2, 8, 1, 13, 1, 2, 3, 4, 5})
	f.Add([]byte{1, 1, 3, 1, 1, 4, 12, 12, 12, 12, 2, 1, 1})
	f.Add([]byte{5, 9, 1, 1, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 9, 15, 0, 14, 1, 255})
	evs := ctracetest.W1Events(300, 4, 3)
	f.Fuzz(func(t *testing.T, recipe []byte) {
		s := schemaFromRecipe(recipe)
		for _, compress := range []bool{false, true} {
			b, err := ctracetest.Build(s, evs, ctracetest.Options{BlockSize: 1024, Compress: compress, PerUnit: true})
			if err != nil {
				return // the builder refused the schema: nothing to read
			}
			r, err := OpenBytes("fuzz.ctrace", b)
			if err != nil {
				if !strings.Contains(err.Error(), "fuzz.ctrace") {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			_, _ = writeDump(r, io.Discard, Query{}, 0)
			for ev := range r.Events(Query{}.WithCycles(0, 2000)) {
				_ = ev.Message()
				for _, a := range ev.Args() {
					_ = a.String()
				}
			}
			if err := r.Err(); err != nil && !strings.Contains(err.Error(), "fuzz.ctrace") {
				t.Fatalf("error does not name the file: %v", err)
			}
			r.Close()
		}
	})
}
