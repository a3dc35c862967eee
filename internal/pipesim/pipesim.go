// Package pipesim is a small pipeline simulator used as the example of
// spans, flows and counters: every instruction goes through fetch, decode,
// rename, execute and retire, each stage a span on its unit with one flow
// per instruction, so the stage latencies are known exactly and tools can be
// checked against them (trace_reader stats must report them; the Perfetto
// export must link each instruction's stages).
//
// The machine: one instruction is fetched per cycle. Stage latencies are
// fixed per stage, except execute, whose latency depends on the operation:
//
//	fetch 1, decode 2, rename 1, execute ALU 1 / MUL 3 / LOAD 5, retire 1
//
// Each stage has as many lanes (slots) as instructions it can hold at once,
// and instruction i uses lane i mod lanes, so a stage never stalls and an
// instruction enters the next stage the cycle it leaves one: the latency
// from one stage to the next along a flow is exactly the first stage's
// latency. Operations cycle ALU, ALU, MUL, LOAD, ALU (so 3/5 ALU). The ROB
// occupancy is sampled as a counter every 8 cycles.
package pipesim

import (
	"github.com/chronon-sim/chronon-go/chronon"
)

// Stage latencies in cycles.
const (
	LatFetch  = 1
	LatDecode = 2
	LatRename = 1
	LatALU    = 1
	LatMUL    = 3
	LatLoad   = 5
	LatRetire = 1
)

// Op is an instruction's operation class.
type Op uint8

const (
	ALU Op = iota
	MUL
	LOAD
)

var opNames = [...]string{"alu", "mul", "load"}

func (o Op) String() string { return opNames[o] }

// Latency is the execute latency of the operation.
func (o Op) Latency() uint64 {
	switch o {
	case MUL:
		return LatMUL
	case LOAD:
		return LatLoad
	}
	return LatALU
}

// OpOf is the operation of instruction i.
func OpOf(i uint64) Op { return [...]Op{ALU, ALU, MUL, LOAD, ALU}[i%5] }

// Stage is one pipeline stage: its unit name and lane count.
type Stage struct {
	Unit  string
	Lanes uint32
}

// Stages, in pipeline order.
var Stages = []Stage{
	{"core0.fetch", LatFetch},
	{"core0.decode", LatDecode},
	{"core0.rename", LatRename},
	{"core0.exec", LatLoad},
	{"core0.retire", LatRetire},
}

type spans struct {
	fetch, decode, rename, exec, retire *chronon.Span
	occupancy                           *chronon.Counter
	retired                             *chronon.Format3[uint64, uint64, string]
}

var fmts *spans

func register() (*spans, error) {
	if fmts != nil {
		return fmts, nil
	}
	s := &spans{}
	var err error
	for _, x := range []struct {
		dst  **chronon.Span
		name string
	}{{&s.fetch, "fetch"}, {&s.decode, "decode"}, {&s.rename, "rename"}, {&s.exec, "execute"}, {&s.retire, "retire"}} {
		if *x.dst, err = chronon.NewSpan(x.name); err != nil {
			return nil, err
		}
	}
	if s.occupancy, err = chronon.NewCounter("rob.occupancy"); err != nil {
		return nil, err
	}
	if s.retired, err = chronon.NewFormat3[uint64, uint64, string]("retired seq={} pc=0x{:x} op={}", chronon.WithFlow(0)); err != nil {
		return nil, err
	}
	fmts = s
	return s, nil
}

// Run simulates n instructions into t (units are created on t).
func Run(t *chronon.Tracer, n uint64) error {
	s, err := register()
	if err != nil {
		return err
	}
	units := make([]*chronon.Unit, len(Stages))
	for i, st := range Stages {
		if units[i], err = t.NewUnit(st.Unit, chronon.WithTypeName("Stage")); err != nil {
			return err
		}
	}
	rob, err := t.NewUnit("core0.rob", chronon.WithTypeName("ROB"))
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		flow := i + 1 // 0 means "no flow"
		op := OpOf(i)
		c := i // fetched at cycle i
		s.fetch.Complete(units[0], c, LatFetch, uint32(i%LatFetch), flow)
		c += LatFetch
		s.decode.Complete(units[1], c, LatDecode, uint32(i%LatDecode), flow)
		c += LatDecode
		s.rename.Complete(units[2], c, LatRename, uint32(i%LatRename), flow)
		c += LatRename
		s.exec.Complete(units[3], c, op.Latency(), uint32(i%LatLoad), flow)
		c += op.Latency()
		s.retire.Complete(units[4], c, LatRetire, uint32(i%LatRetire), flow)
		s.retired.Emit(units[4], c+LatRetire, flow, 0x1000+4*i, op.String())
		if i%8 == 0 {
			s.occupancy.Sample(rob, i, int64(InFlight(i)))
		}
	}
	return nil
}

// InFlight is the number of instructions fetched and not yet retired at
// cycle c (the ROB occupancy the counter samples).
func InFlight(c uint64) uint64 {
	var n uint64
	for i := uint64(0); i <= c; i++ {
		if RetireEnd(i) > c {
			n++
		}
	}
	return n
}

// RetireEnd is the cycle instruction i leaves retire.
func RetireEnd(i uint64) uint64 {
	return i + LatFetch + LatDecode + LatRename + OpOf(i).Latency() + LatRetire
}
