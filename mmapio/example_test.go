package mmapio_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

var exAccess = chronon.MustFormat2[uint64, bool]("example access addr=0x{:x} hit={}")

// exampleTrace writes a small two-unit trace for the examples.
func exampleTrace() (path string, cleanup func()) {
	dir, err := os.MkdirTemp("", "mmapio-example")
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

// "What did core1.l2 do around cycle 500?": the query decodes only the
// blocks that hold core1.l2's events in the cycle window.
func Example() {
	path, cleanup := exampleTrace()
	defer cleanup()

	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err) // names the file, the section and the byte offset
	}
	defer r.Close()
	// Cycle windows are inclusive at both ends, like filter --cycles A-B.
	q := mmapio.Query{}.WithCycles(490, 510).WithUnits(r.UnitsNamed("core1.l2")...)
	for ev := range r.Events(q) {
		addr, _ := ev.ArgByName("addr") // typed arguments, by the name before the placeholder
		fmt.Printf("[%d] %s: %s (addr %d)\n", ev.Cycle, r.UnitName(ev.UnitID), ev.Message(), addr.Uint())
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [490] core1.l2: example access addr=0x81ea hit=false (addr 33258)
	// [500] core1.l2: example access addr=0x81f4 hit=true (addr 33268)
	// [510] core1.l2: example access addr=0x81fe hit=false (addr 33278)
}

// A format's text, argument names and types, from the file's schema.
func ExampleFormat() {
	path, cleanup := exampleTrace()
	defer cleanup()

	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for _, f := range r.Formats() {
		if f.Text() != "example access addr=0x{:x} hit={}" {
			continue
		}
		for i, t := range f.ArgTypes {
			fmt.Printf("%s: %v\n", f.ArgName(i), t)
		}
	}
	// Output:
	// addr: uint64
	// hit: bool
}
