package export

import (
	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// The Kanata export's pass runs on two goroutines: a feeder reads the
// events (the iteration's merge), picks those of instructions, reads their
// arguments and takes their text (the detail, "cycle unit: message"), in
// batches; the export's goroutine turns them into log commands. The log is
// one ordered stream, so its commands are made on one goroutine; reading
// is not, and goes on while the previous batch is turned into commands.
// The text of the events of the blocks the pre-pass kept was formatted by
// it, on every core (kPrep); the feeder formats the others'.

// kRec is one event of an instruction, as the feeder read it. It holds no
// pointer, so that the slices of them are not scanned by the collector nor
// written with its barriers.
type kRec struct {
	cycle    uint64
	flow     uint64
	dur      uint64 // a complete span's duration
	producer uint64 // the dependency argument (0: none)
	fid      uint32 // its format, an index into the export's fmts
	// [off:end] is the event's detail, "cycle unit: message" (a type 1
	// label's part), [off+msg:end] its message (a type 0 label): in the
	// text of its batch (blk -1), or of kept block blk (kPrep). Either
	// stays far below 4 GiB.
	off, end, msg uint32
	blk           int32
	unit          uint16
	run           uint16 // its run in a merged trace (0: the only one)
	hasDep        bool   // the dependency argument is present
}

// kBatch is a batch of records and their text; the last one of an
// iteration carries its end (events read, last cycle, error).
type kBatch struct {
	recs      []kRec
	text      []byte
	events    uint64 // events read for this batch, with a flow or not
	end       bool   // the last batch: the iteration's end
	lastCycle uint64 // of the last event read (the last batch only)
	err       error  // of the iteration (the last batch only)
}

const (
	kBatchRecs = 1024
	kBatches   = 4
)

// kFeed runs the feeder; batches arrives full, free takes them back; stop
// tells the feeder to give up (the export failed), and the feeder closes
// batches when it is done.
type kFeed struct {
	batches chan *kBatch
	free    chan *kBatch
	stop    chan struct{}
}

func startFeed(r *mmapio.Reader, q mmapio.Query, fmts []*kFmt, units kUnits, le *lastEvents, runOf []uint16, progress cyclewin.Reporter) *kFeed {
	fd := &kFeed{batches: make(chan *kBatch, kBatches), free: make(chan *kBatch, kBatches), stop: make(chan struct{})}
	for i := 0; i < kBatches; i++ {
		fd.free <- &kBatch{recs: make([]kRec, 0, kBatchRecs), text: make([]byte, 0, 64*kBatchRecs)}
	}
	// The iteration is started here, not on the feeder: it owns the
	// blocks the pre-pass kept from now on, whatever the feeder does.
	it := rawread.IterDecoded(r, q, le.kept)
	le.kept = nil
	go fd.run(it, fmts, &kRecMaker{units: units, runOf: runOf}, le.preps, progress)
	return fd
}

// halt stops the feeder and waits for it to finish; used when the export
// ends early.
func (fd *kFeed) halt() {
	close(fd.stop)
	for range fd.batches {
	}
}

func (fd *kFeed) run(it *mmapio.Iterator, fmts []*kFmt, m *kRecMaker, preps []*kPrep, progress cyclewin.Reporter) {
	defer close(fd.batches)
	var events, last uint64 // events read, last cycle
	var b *kBatch
	take := func() bool {
		select {
		case b = <-fd.free:
			b.recs, b.text, b.events = b.recs[:0], b.text[:0], 0
			return true
		case <-fd.stop:
			return false
		}
	}
	send := func() bool {
		select {
		case fd.batches <- b:
			return true
		case <-fd.stop:
			return false
		}
	}
	defer it.Close()
	if !take() {
		return
	}
	for it.Next() {
		ev := it.Event()
		events++
		b.events++
		if progress.Active() && events&0xFFFF == 0 {
			progress.Report(ev.Cycle)
		}
		last = ev.Cycle
		if int(ev.FormatID) >= len(fmts) || fmts[ev.FormatID] == nil || fmts[ev.FormatID].flow < 0 {
			continue
		}
		f := fmts[ev.FormatID]
		flow := flowEventID(f, &ev, &m.view)
		if flow == 0 {
			continue
		}
		b.recs = append(b.recs, kRec{})
		rec := &b.recs[len(b.recs)-1]
		m.make(rec, &ev, f, flow)
		if p, off, end := prepOf(preps, &ev, rawread.Index(it)); p != nil {
			// A kept block's event: its text is made already.
			rec.blk, rec.off, rec.end, rec.msg = ev.Block, off, end, m.msgAt(&ev)
		} else {
			rec.blk, rec.off = -1, uint32(len(b.text))
			rec.msg = m.msgAt(&ev)
			b.text = m.text(b.text, &ev)
			rec.end = uint32(len(b.text))
		}
		if len(b.recs) == kBatchRecs {
			if !send() || !take() {
				return
			}
		}
	}
	b.end, b.err, b.lastCycle = true, it.Err(), last
	send()
}

// prepOf finds the text a pre-pass goroutine made for event ev, index i
// in its block: p.text[off:end], p nil when there is none.
func prepOf(preps []*kPrep, ev *mmapio.Event, i int) (p *kPrep, off, end uint32) {
	if i < 0 || ev.Block < 0 || int(ev.Block) >= len(preps) {
		return nil, 0, 0
	}
	p = preps[ev.Block]
	if p == nil || i+1 >= len(p.at) {
		return nil, 0, 0
	}
	off, end = p.at[i], p.at[i+1]
	if off == end { // not the event the text was made for: it has a flow
		return nil, 0, 0
	}
	return p, off, end
}
