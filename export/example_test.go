package export_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/export"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// writeTrace records a small pipeline: two instructions, each a flow from
// fetch to retire, with a span per stage and an occupancy counter.
func writeTrace(dir string) string {
	path := filepath.Join(dir, "run.ctrace")
	tr, err := chronon.Create(path, chronon.WithSimulationName("demo"), chronon.WithAutoMetadata(false))
	if err != nil {
		log.Fatal(err)
	}
	fetch, _ := tr.NewUnit("core0.fetch")
	exec, _ := tr.NewUnit("core0.exec")
	stage := chronon.MustSpan("stage")
	occ := chronon.MustCounter("occupancy")
	retired := chronon.MustFormat2[uint64, uint64]("retired seq={} pc=0x{:x}", chronon.WithFlow(0))
	for seq := uint64(1); seq <= 2; seq++ {
		stage.Complete(fetch, seq, 1, 0, seq)
		stage.Complete(exec, seq+1, 3, 0, seq)
		retired.Emit(exec, seq+4, seq, 0x4000+4*seq)
		occ.Sample(exec, seq+1, int64(seq))
	}
	if err := tr.Close(); err != nil {
		log.Fatal(err)
	}
	return path
}

// Export a trace for ui.perfetto.dev: the zero configuration writes
// Perfetto's protobuf format at one nanosecond per cycle.
func ExampleExport() {
	dir, _ := os.MkdirTemp("", "export")
	defer os.RemoveAll(dir)
	r, err := mmapio.Open(writeTrace(dir))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	res, err := export.Export(r, mmapio.Query{}, filepath.Join(dir, "run.pftrace"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d files, %d events: %d spans, %d instants, %d counter samples, %d with a flow\n",
		len(res.Files), res.Events, res.Spans, res.Instants, res.Counters, res.FlowEvents)
	// Output:
	// 1 files, 8 events: 4 spans, 2 instants, 2 counter samples, 6 with a flow
}

// Options: Chrome's JSON format, a 4 GHz clock (0.25 ns per cycle, which
// the export keeps at one whole nanosecond per cycle and reports), a cycle
// window (spans open at its start are clipped to it) and a progress report.
func ExampleExport_options() {
	dir, _ := os.MkdirTemp("", "export")
	defer os.RemoveAll(dir)
	r, err := mmapio.Open(writeTrace(dir))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var done, total uint64
	res, err := export.Export(r, mmapio.Query{}.WithCycles(3, 100), filepath.Join(dir, "run.json"),
		export.WithFormat(export.FormatChromeJSON),
		export.WithNsPerCycle(0.25),
		export.WithMaxFileBytes(64<<20),
		export.WithProgress(func(d, t uint64) { done, total = d, t }),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d events in the window, %d spans clipped to it\n", res.Events, res.ClippedSpans)
	fmt.Printf("%g ns per cycle: times are %gx real\n", res.NsPerCycle, res.TimeScale)
	fmt.Printf("progress %d/%d cycles\n", done, total)
	// Output:
	// 4 events in the window, 2 spans clipped to it
	// 1 ns per cycle: times are 4x real
	// progress 4/4 cycles
}
