package export

import (
	"sync"
	"unsafe"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// kPrep is a kept block's flow events made into records, text included, by
// the pre-pass goroutine that decoded the block: formatting the text was
// the feeder's largest cost, and the feeder bounds the export's main pass,
// while the pre-pass runs on every core. The feeder finds an event's record
// by its block and its index in the block (mmapio.Iterator.Index) and
// copies it.
type kPrep struct {
	at   []int32 // by event index in the block: its record in recs, -1 none (no flow)
	recs []kRec
	text []byte // the records' text
}

// bytes is about the memory p holds, counted with its block in the
// pre-pass's share of the budget.
func (p *kPrep) bytes() int {
	return 4*cap(p.at) + int(unsafe.Sizeof(kRec{}))*cap(p.recs) + cap(p.text)
}

// kRecMaker makes the records of flow events: the feeder's for the events
// of blocks not kept, a pre-pass goroutine's for those it keeps.
type kRecMaker struct {
	units kUnits
	runOf []uint16
	view  argview.View
}

// make fills rec for event ev of format f with flow id flow, appending its
// text ("cycle unit: message") to text, which is blk's (kRec).
func (m *kRecMaker) make(rec *kRec, ev *mmapio.Event, f *kFmt, flow uint64, blk int32, text []byte) []byte {
	*rec = kRec{cycle: ev.Cycle, flow: flow, fid: ev.FormatID, blk: blk, unit: ev.UnitID}
	if m.runOf != nil {
		rec.run = m.runOf[ev.UnitID]
	}
	if f.kind == schema.KindSpanComplete {
		rec.dur, _ = f.arg(f.dur, ev, &m.view)
	}
	if f.dep >= 0 {
		rec.producer, rec.hasDep = f.arg(f.dep, ev, &m.view)
	}
	rec.off = uint32(len(text))
	text = appendDec(text, ev.Cycle)
	text = append(text, ' ')
	text = append(text, m.units.name(ev.UnitID)...)
	text = append(text, ':', ' ')
	rec.msg = uint32(len(text)) - rec.off
	text = ev.AppendMessage(text)
	rec.end = uint32(len(text))
	return text
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
