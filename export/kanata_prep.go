package export

import (
	"sync"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/decimal"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// kPrep is the text of a kept block's flow events ("cycle unit: message"),
// made by the pre-pass goroutine that decoded the block: formatting it was
// the feeder's largest cost, and the feeder bounded the export's main
// pass, while the pre-pass runs on every core. The feeder finds an
// event's text by its block and its index in the block
// (rawread.Index). The rest of a record is quickly read again and
// not kept: the memory a one-shot export touches is part of its cost.
type kPrep struct {
	at   []uint32 // by event index in the block: text[at[i]:at[i+1]] (empty: no flow)
	text []byte
}

// bytes is about the memory p holds, counted with its block in the
// pre-pass's share of the budget.
func (p *kPrep) bytes() int { return 4*cap(p.at) + cap(p.text) }

// kRecMaker makes the records of flow events (the feeder) and their text
// (the feeder for blocks not kept, a pre-pass goroutine for those kept).
type kRecMaker struct {
	units kUnits
	runOf []uint16
	view  argview.View
}

// make fills rec for event ev of format f with flow id flow, its text
// left to the caller (text or prepared).
func (m *kRecMaker) make(rec *kRec, ev *mmapio.Event, f *kFmt, flow uint64) {
	*rec = kRec{cycle: ev.Cycle, flow: flow, fid: ev.FormatID, unit: ev.UnitID}
	if m.runOf != nil {
		rec.run = m.runOf[ev.UnitID]
	}
	if f.kind == schema.KindSpanComplete {
		rec.dur, _ = f.arg(f.dur, ev, &m.view)
	}
	if f.dep >= 0 {
		rec.producer, rec.hasDep = f.arg(f.dep, ev, &m.view)
	}
}

// text appends event ev's text, "cycle unit: message", to dst.
func (m *kRecMaker) text(dst []byte, ev *mmapio.Event) []byte {
	dst = decimal.Append(dst, ev.Cycle)
	dst = append(dst, ' ')
	dst = append(dst, m.units.name(ev.UnitID)...)
	dst = append(dst, ':', ' ')
	return ev.AppendMessage(dst)
}

// msgAt is where the message starts in ev's text (text).
func (m *kRecMaker) msgAt(ev *mmapio.Event) uint32 {
	return uint32(decimal.Len(ev.Cycle) + 1 + len(m.units.name(ev.UnitID)) + 2)
}

// kPreps recycles the records of kept blocks across exports: made anew,
// they cost about as much as filling them.
var kPreps = sync.Pool{New: func() any { return new(kPrep) }}

// releasePreps gives back the records of kept blocks once no batch refers
// to them.
func releasePreps(preps []*kPrep) {
	for _, p := range preps {
		if p != nil {
			kPreps.Put(p)
		}
	}
}
