package tracetext_test

import (
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

var exAccess = chronon.MustFormat2[uint64, bool]("example access addr=0x{:x} hit={}")

// exampleTrace writes a small two-unit trace for the examples.
func exampleTrace() (path string, cleanup func()) {
	dir, err := os.MkdirTemp("", "tracetext-example")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "run.ctrace")
	t, err := chronon.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"core0.l2", "core1.l2"} {
		u, err := t.NewUnit(name)
		if err != nil {
			log.Fatal(err)
		}
		for cycle := uint64(0); cycle < 1000; cycle += 10 {
			exAccess.Emit(u, cycle, 0x8000+cycle, cycle%20 == 0)
		}
	}
	if err := t.Close(); err != nil {
		log.Fatal(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// WriteDump prints the original trace_reader's text for a query.
func ExampleWriteDump() {
	path, cleanup := exampleTrace()
	defer cleanup()

	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if _, err := tracetext.WriteDump(os.Stdout, r, mmapio.Query{}.WithCycles(0, 10), 0); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [         0] core0.l2: example access addr=0x8000 hit=true
	// [         0] core1.l2: example access addr=0x8000 hit=true
	// [        10] core0.l2: example access addr=0x800a hit=false
	// [        10] core1.l2: example access addr=0x800a hit=false
}
