package workload

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/chronon-sim/chronon-go/chronon"
)

// Pipeline is a workload shaped like an out-of-order core's trace: each
// instruction leaves 7 to 9 events of 34 to 46 raw bytes (about 43 on
// average, 7.6 events per instruction) with several arguments, a flow id
// linking them across the core's units, and spans. It is what the writer's
// CPU per event is measured on besides W1 (docs/performance.md).
//
// Units come eight per core, core{c}.{kind} with kind = fetch decode rename
// rob issue exec lsu retire (so --units must be a multiple of 8). Cores take
// turns instruction by instruction; instruction g (0-based, over all cores)
// has flow g+1. Per instruction, one r = next() decides everything:
//
//	op = r&15: 0-5 alu, 6-7 mul, 8-11 load, 12-13 store, 14-15 branch
//	F fetch cycle (4 a cycle; +8 on an I-cache miss, (r>>50)&63 == 0;
//	  after a mispredicted branch at least I+13), D = F+4 dispatch,
//	w = trailing zeros of (r>>32)|64 (0..6) cycles waiting, I = D+1+w issue,
//	latency: alu/store/branch 1, mul 3, load 4 on a hit ((r>>40)&15 != 0),
//	  else 20+(r>>44)&63; retire R = max(E+1, previous R) with E = I+1+lat
//	fetch   fetch pc=0x{:x} flow={} taken={}        (pc, flow, branch taken)
//	decode  span decode lane=F-slot dur=2 at F+1
//	rename  rename flow={} dst=p{} src1=p{} src2=p{}  at F+3 (regs r>>8..)
//	issue   issue flow={} port={} waited={}          at I (port by op)
//	exec    span execute lane=port dur=latency at I+1; branches also
//	        branch flow={} target=0x{:x} mispredicted={} ((r>>56)&15 == 0)
//	lsu     loads and stores: mem flow={} addr=0x{:x} size={} hit={} at I+1
//	        (addr: the core's stream +8, or random in 1 MiB when (r>>36)&3 == 0)
//	rob     span rob lane=seq%192 from D to R; every 16th instruction the
//	        counter rob.occupancy = min(192, 4*(R-D)) at D
//	retire  retire flow={} pc=0x{:x}                 at R
//
// A branch is taken when (r>>38)&1 == 1 and jumps to 0x400000 + (r>>16)&0xfffc;
// otherwise pc += 4. Exactly `events` events are emitted (the last
// instruction may be cut short).
type Pipeline struct {
	Fetch     *chronon.Format3[uint64, uint64, bool]
	Decode    *chronon.Span
	Rename    *chronon.Format4[uint64, uint16, uint16, uint16]
	Issue     *chronon.Format3[uint64, uint8, uint16]
	Execute   *chronon.Span
	Branch    *chronon.Format3[uint64, uint64, bool]
	Mem       *chronon.Format4[uint64, uint64, uint8, bool]
	ROB       *chronon.Span
	Occupancy *chronon.Counter
	Retire    *chronon.Format2[uint64, uint64]
}

// PipelineStages are the unit kinds of one core, in unit order.
var PipelineStages = [8]string{"fetch", "decode", "rename", "rob", "issue", "exec", "lsu", "retire"}

var (
	pipeOnce sync.Once
	pipe     Pipeline
	pipeErr  error
)

// RegisterPipeline registers the Pipeline formats on first use.
func RegisterPipeline() (Pipeline, error) {
	pipeOnce.Do(func() {
		var errs [10]error
		pipe.Fetch, errs[0] = chronon.NewFormat3[uint64, uint64, bool]("fetch pc=0x{:x} flow={} taken={}", chronon.WithFlow(1))
		pipe.Decode, errs[1] = chronon.NewSpan("decode")
		pipe.Rename, errs[2] = chronon.NewFormat4[uint64, uint16, uint16, uint16]("rename flow={} dst=p{} src1=p{} src2=p{}", chronon.WithFlow(0))
		pipe.Issue, errs[3] = chronon.NewFormat3[uint64, uint8, uint16]("issue flow={} port={} waited={}", chronon.WithFlow(0))
		pipe.Execute, errs[4] = chronon.NewSpan("execute")
		pipe.Branch, errs[5] = chronon.NewFormat3[uint64, uint64, bool]("branch flow={} target=0x{:x} mispredicted={}", chronon.WithFlow(0))
		pipe.Mem, errs[6] = chronon.NewFormat4[uint64, uint64, uint8, bool]("mem flow={} addr=0x{:x} size={} hit={}", chronon.WithFlow(0))
		pipe.ROB, errs[7] = chronon.NewSpan("rob")
		pipe.Occupancy, errs[8] = chronon.NewCounter("rob.occupancy")
		pipe.Retire, errs[9] = chronon.NewFormat2[uint64, uint64]("retire flow={} pc=0x{:x}", chronon.WithFlow(0))
		for _, err := range errs {
			if err != nil {
				pipeErr = err
				return
			}
		}
	})
	return pipe, pipeErr
}

// NewPipelineUnits creates the units of units/8 cores on t.
func NewPipelineUnits(t *chronon.Tracer, units int) ([]*chronon.Unit, error) {
	if units < 8 || units%8 != 0 {
		return nil, fmt.Errorf("the pipeline workload needs a multiple of 8 units (8 per core), not %d", units)
	}
	us := make([]*chronon.Unit, units)
	for i := range us {
		kind := PipelineStages[i%8]
		u, err := t.NewUnit(fmt.Sprintf("core%d.%s", i/8, kind), chronon.WithTypeName(kind+"Stage"))
		if err != nil {
			return nil, err
		}
		us[i] = u
	}
	return us, nil
}

// pipeCore is one core's state between instructions.
type pipeCore struct {
	u      []*chronon.Unit // its 8 units
	seq    uint64          // instructions so far
	fetch  uint64          // fetch cycle of the next instruction
	slot   uint32          // its slot in the fetch group
	pc     uint64
	retire uint64 // cycle of the last retire
	stream uint64 // the load/store stream's next address
}

// Emit emits exactly n events of the Pipeline stream with the given seed
// into units (from NewPipelineUnits).
func (p Pipeline) Emit(units []*chronon.Unit, seed uint64, n int) {
	rng := SplitMix64{State: seed}
	cores := make([]pipeCore, len(units)/8)
	for c := range cores {
		cores[c] = pipeCore{u: units[8*c : 8*c+8], fetch: 1000, pc: 0x400000, retire: 1000,
			stream: 0x10000000 + uint64(c)<<24}
	}
	left := n
	for g := uint64(0); left > 0; g++ {
		c := &cores[g%uint64(len(cores))]
		left = p.instruction(c, rng.Next(), g+1, left)
	}
}

// instruction emits one instruction's events (at most left of them) and
// returns how many may still be emitted.
func (p Pipeline) instruction(c *pipeCore, r, flow uint64, left int) int {
	u := c.u
	op := r & 15
	if (r>>50)&63 == 0 { // I-cache miss
		c.fetch += 8
		c.slot = 0
	}
	f := c.fetch
	pc := c.pc
	branch := op >= 14
	taken := branch && (r>>38)&1 == 1
	if left--; left < 0 {
		return 0
	}
	p.Fetch.Emit(u[0], f, pc, flow, taken)
	if left--; left < 0 {
		return 0
	}
	p.Decode.Complete(u[1], f+1, 2, c.slot, flow)
	if left--; left < 0 {
		return 0
	}
	p.Rename.Emit(u[2], f+3, flow, uint16(r>>8)&255, uint16(r>>16)&255, uint16(r>>24)&255)

	d := f + 4
	w := uint64(bits.TrailingZeros64((r >> 32) | 64))
	i := d + 1 + w
	var port uint8
	lat := uint64(1)
	switch {
	case op < 6:
		port = uint8(op & 1)
	case op < 8:
		port, lat = 2, 3
	case op < 14:
		port = 3 + uint8(op&1)
		if op < 12 { // load
			lat = 4
			if (r>>40)&15 == 0 {
				lat = 20 + (r>>44)&63
			}
		}
	default:
		port = 5
	}
	mis := false
	if left--; left < 0 {
		return 0
	}
	p.Issue.Emit(u[4], i, flow, port, uint16(w))
	if left--; left < 0 {
		return 0
	}
	p.Execute.Complete(u[5], i+1, lat, uint32(port), flow)
	switch {
	case branch:
		mis = (r>>56)&15 == 0
		target := 0x400000 + (r>>16)&0xfffc
		if left--; left < 0 {
			return 0
		}
		p.Branch.Emit(u[5], i+1, flow, target, mis)
		if taken {
			c.pc = target
		} else {
			c.pc = pc + 4
		}
	case op >= 8:
		addr := c.stream
		if (r>>36)&3 == 0 {
			addr = 0x20000000 + (r>>12)&0xffff8
		} else {
			c.stream += 8
		}
		size := uint8(8)
		if op&1 == 1 {
			size = 4
		}
		if left--; left < 0 {
			return 0
		}
		p.Mem.Emit(u[6], i+1, flow, addr, size, lat == 4 || op >= 12)
		c.pc = pc + 4
	default:
		c.pc = pc + 4
	}
	e := i + 1 + lat
	ret := max(e+1, c.retire)
	c.retire = ret
	if left--; left < 0 {
		return 0
	}
	p.ROB.Complete(u[3], d, ret-d, uint32(c.seq%192), flow)
	if c.seq%16 == 0 {
		if left--; left < 0 {
			return 0
		}
		p.Occupancy.Sample(u[3], d, int64(min(192, 4*(ret-d))))
	}
	if left--; left < 0 {
		return 0
	}
	p.Retire.Emit(u[7], ret, flow, pc)

	c.seq++
	if c.slot++; c.slot == 4 {
		c.fetch++
		c.slot = 0
	}
	if mis { // fetch resumes after the branch resolves
		c.fetch = max(c.fetch, i+1+12)
		c.slot = 0
	}
	return left
}

func runPipeline(t *chronon.Tracer, events, units int, seed uint64) error {
	p, err := RegisterPipeline()
	if err != nil {
		return err
	}
	us, err := NewPipelineUnits(t, units)
	if err != nil {
		return err
	}
	p.Emit(us, seed, events)
	return nil
}
