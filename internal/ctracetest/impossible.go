package ctracetest

import (
	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// WriteImpossibleSpans writes to path three complete spans of one
// instruction unit, core0.exec, lane 0: [100, 104] (flow 1), one at cycle
// 200 whose end, 150, is before it (flow 2, its duration end-start as an
// old writer stored it; chronon.Span.Complete refuses such a span, a
// format of the same kind does not), and [210, 216] (flow 3). The readers'
// tests check that the impossible one is left out and named, never
// averaged as a span of 1.8e19 cycles.
func WriteImpossibleSpans(path string) error {
	tr, err := chronon.Create(path, chronon.WithFlushInterval(0), chronon.WithAutoMetadata(false))
	if err != nil {
		return err
	}
	u, err := tr.NewUnit("core0.exec")
	if err != nil {
		tr.Close()
		return err
	}
	exec, err := chronon.NewFormat3[uint32, uint64, uint64]("exec lane={} flow={} dur={}", chronon.WithName("exec"),
		chronon.WithKind(schema.KindSpanComplete, schema.RoleLane, schema.RoleFlow, schema.RoleDuration))
	if err != nil {
		tr.Close()
		return err
	}
	exec.Emit(u, 100, 0, 1, 4)
	start, end := uint64(200), uint64(150)
	exec.Emit(u, start, 0, 2, end-start)
	exec.Emit(u, 210, 0, 3, 6)
	return tr.Close()
}
