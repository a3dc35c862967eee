package pipesim

import (
	"github.com/chronon-sim/chronon-go/chronon"
)

// RunHazards simulates n fetch slots into t like Run, with what a pipeline
// view shows beyond the stages (Run's exact latencies stay as they are, for
// the tools checked against them):
//
//   - Each instruction's first event is a fetch instant with its pc and
//     operation (the Kanata export's label).
//   - Stalls: the instruction after a LOAD (i%5 == 4) uses its result, so it
//     waits after rename until the load leaves execute: a "stall" span on
//     core0.exec from then (cycle i+4) to the load's end (i+8), and executes
//     after it.
//   - Squashes: the slot i%20 == 7 is a mispredicted branch (a MUL-latency
//     operation "branch"); the two slots fetched after it are on the wrong
//     path and are squashed when it leaves execute (cycle i+7): their stages
//     are cut there (those not begun are not emitted), a flush event
//     "squash seq={}" (chronon.WithFlush) names each, and they do not retire.
//   - Register dependencies: slot i reads the register slot i-1 writes when
//     DependsOnPrevious(i) (the instruction after a LOAD, whose stall is
//     that wait, and the MUL after an ALU); slot i-1 is still in flight
//     then, so at its rename (cycle i+3) slot i emits "depends seq={}
//     on={}" on core0.rename (chronon.WithDepends: the producer's flow id),
//     which the Kanata export draws as a W arrow.
func RunHazards(t *chronon.Tracer, n uint64) error {
	s, err := register()
	if err != nil {
		return err
	}
	h, err := registerHazards()
	if err != nil {
		return err
	}
	units := make([]*chronon.Unit, len(Stages))
	for i, st := range Stages {
		if units[i], err = t.NewUnit(st.Unit, chronon.WithTypeName("Stage")); err != nil {
			return err
		}
	}
	for i := uint64(0); i < n; i++ {
		flow := i + 1
		op := HazardOp(i)
		squash, wrong := SquashCycle(i)
		h.fetch.Emit(units[0], i, flow, 0x1000+4*i, op)
		c := i
		// stage emits the part of a stage before the squash, if any.
		stage := func(sp *chronon.Span, u *chronon.Unit, start, dur uint64, lane uint32) {
			if wrong && start+dur > squash {
				if start >= squash {
					return
				}
				dur = squash - start
			}
			sp.Complete(u, start, dur, lane, flow)
		}
		stage(s.fetch, units[0], c, LatFetch, uint32(i%LatFetch))
		c += LatFetch
		stage(s.decode, units[1], c, LatDecode, uint32(i%LatDecode))
		c += LatDecode
		if DependsOnPrevious(i) && (!wrong || c < squash) { // a squashed slot reads nothing after the squash
			h.depends.Emit(units[2], c, flow, flow-1)
		}
		stage(s.rename, units[2], c, LatRename, uint32(i%LatRename))
		c += LatRename
		if i%5 == 4 { // waits for the LOAD before it
			loadEnd := (i - 1) + LatFetch + LatDecode + LatRename + LatLoad
			stage(h.stall, units[3], c, loadEnd-c, uint32(i%LatLoad))
			c = loadEnd
		}
		lat := OpOf(i).Latency()
		stage(s.exec, units[3], c, lat, uint32(i%LatLoad))
		c += lat
		if wrong {
			h.squash.Emit(units[3], squash, flow)
			continue
		}
		stage(s.retire, units[4], c, LatRetire, uint32(i%LatRetire))
		s.retired.Emit(units[4], c+LatRetire, flow, 0x1000+4*i, op)
	}
	return nil
}

type hazardFormats struct {
	fetch   *chronon.Format3[uint64, uint64, string]
	stall   *chronon.Span
	squash  *chronon.Format1[uint64]
	depends *chronon.Format2[uint64, uint64]
}

var hfmts *hazardFormats

func registerHazards() (*hazardFormats, error) {
	if hfmts != nil {
		return hfmts, nil
	}
	h := &hazardFormats{}
	var err error
	if h.fetch, err = chronon.NewFormat3[uint64, uint64, string]("fetch seq={} pc=0x{:x} op={}", chronon.WithFlow(0)); err != nil {
		return nil, err
	}
	if h.stall, err = chronon.NewSpan("stall"); err != nil {
		return nil, err
	}
	if h.squash, err = chronon.NewFormat1[uint64]("squash seq={}", chronon.WithFlush(0)); err != nil {
		return nil, err
	}
	if h.depends, err = chronon.NewFormat2[uint64, uint64]("depends seq={} on={}", chronon.WithFlow(0), chronon.WithDepends(1)); err != nil {
		return nil, err
	}
	hfmts = h
	return h, nil
}

// DependsOnPrevious says whether slot i reads the register slot i-1 writes
// in RunHazards: the slot after a LOAD (i%5 == 4) and the MUL after an ALU
// (i%5 == 2).
func DependsOnPrevious(i uint64) bool { return i%5 == 4 || i%5 == 2 }

// HazardOp names slot i's operation in RunHazards.
func HazardOp(i uint64) string {
	if i%20 == 7 {
		return "branch"
	}
	return OpOf(i).String()
}

// SquashCycle says whether slot i is on a wrong path in RunHazards, and the
// cycle it is squashed at (its branch leaves execute).
func SquashCycle(i uint64) (cycle uint64, wrong bool) {
	if r := i % 20; r == 8 || r == 9 {
		b := i - (r - 7)
		return b + LatFetch + LatDecode + LatRename + OpOf(b).Latency(), true
	}
	return 0, false
}
