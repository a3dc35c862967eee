package chronon_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// Formats are registered once, as package variables: the type parameters are
// the argument types, so a call site cannot pass the wrong ones.
var (
	exFetch  = chronon.MustFormat2[uint64, bool]("example fetch pc=0x{:x} taken={}")
	exRetire = chronon.MustFormat1[uint64]("example retire seq={}", chronon.WithFlow(0))
	exStage  = chronon.MustSpan("example.execute")
	exROB    = chronon.MustCounter("example.rob.occupancy")
)

// Record a few cycles of a two-unit simulation, then read the trace back.
func Example() {
	dir, err := os.MkdirTemp("", "chronon-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.ctrace")

	t, err := chronon.Create(path, chronon.WithSimulationName("example"))
	if err != nil {
		log.Fatal(err)
	}
	fetch, err := t.NewUnit("core0.fetch", chronon.WithTypeName("FetchUnit"))
	if err != nil {
		log.Fatal(err)
	}
	retire, err := t.NewUnit("core0.retire")
	if err != nil {
		log.Fatal(err)
	}
	for cycle := uint64(0); cycle < 4; cycle++ {
		exFetch.Emit(fetch, cycle, 0x400000+4*cycle, cycle%2 == 0) // no allocation, lock or syscall
		seq := cycle + 1                                           // flow ids start at 1: 0 means "no flow"
		exStage.Complete(retire, cycle, 2, 0, seq)                 // a 2-cycle slice on lane 0, flow = seq
		exRetire.Emit(retire, cycle+2, seq)                        // seq links the instruction's events
		exROB.Sample(retire, cycle, int64(cycle))
	}
	if err := t.Close(); err != nil { // footer index, fsync, the first I/O error
		log.Fatal(err)
	}

	r, err := mmapio.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	fmt.Println("status:", r.Status().State)
	q := mmapio.Query{}.WithCycles(0, 1).WithUnits(r.UnitsNamed("core0.fetch")...)
	for ev := range r.Events(q) {
		fmt.Printf("%d %s: %s\n", ev.Cycle, r.UnitName(ev.UnitID), ev.Message())
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// status: complete
	// 0 core0.fetch: example fetch pc=0x400000 taken=true
	// 1 core0.fetch: example fetch pc=0x400004 taken=false
}

// Drop never makes a producer wait; every event it loses is counted, and so
// is every event emitted after Close.
func ExampleWithPolicy() {
	dir, err := os.MkdirTemp("", "chronon-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t, err := chronon.Create(filepath.Join(dir, "drop.ctrace"), chronon.WithPolicy(chronon.Drop))
	if err != nil {
		log.Fatal(err)
	}
	u, err := t.NewUnit("core0.fetch")
	if err != nil {
		log.Fatal(err)
	}
	exFetch.Emit(u, 1, 0x1000, true)
	if err := t.Close(); err != nil {
		log.Fatal(err)
	}
	exFetch.Emit(u, 2, 0x1004, false) // after Close: dropped and counted, never a crash
	for _, us := range t.Stats().Units {
		fmt.Println(us.Name, "written:", us.Written, "dropped:", us.Dropped)
	}
	// Output:
	// core0.fetch written: 1 dropped: 1
}
