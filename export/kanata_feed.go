package export

import (
	"strconv"

	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/internal/cyclewin"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// The Kanata export runs on two goroutines: a feeder reads the events
// (the iteration's merge), picks those of instructions, reads their
// arguments and formats their text (the detail's "cycle unit: " prefix
// too), in batches; the export's goroutine
// turns them into log commands. The log is one ordered stream, so its
// commands are made on one goroutine; reading and formatting (about half
// of the work per event) are not, and go on while the previous batch is
// turned into commands.

// kRec is one event of an instruction, as the feeder read it.
type kRec struct {
	cycle    uint64
	flow     uint64
	dur      uint64 // a complete span's duration
	producer uint64 // the dependency argument (0: none)
	f        *kFmt
	// The event's text in kBatch.text: [text[0]:text[2]] is its detail,
	// "cycle unit: message" (a type 1 label's part), [text[1]:text[2]] its
	// message (a type 0 label). A batch's text stays far below 4 GiB.
	text   [3]uint32
	unit   uint16
	run    uint16 // its run in a merged trace (0: the only one)
	hasDep bool   // the dependency argument is present
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
	it := r.IterDecoded(q, le.kept)
	le.kept = nil
	go fd.run(it, fmts, units, runOf, progress)
	return fd
}

// halt stops the feeder and waits for it to finish; used when the export
// ends early.
func (fd *kFeed) halt() {
	close(fd.stop)
	for range fd.batches {
	}
}

func (fd *kFeed) run(it *mmapio.Iterator, fmts []*kFmt, units kUnits, runOf []uint16, progress cyclewin.Reporter) {
	defer close(fd.batches)
	var view argview.View
	var events, last uint64 // events read, last cycle
	var cyc uint64          // the cycle cycText spells
	var cycText []byte
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
		flow := flowEventID(f, &ev, &view)
		if flow == 0 {
			continue
		}
		rec := kRec{cycle: ev.Cycle, flow: flow, f: f, unit: ev.UnitID}
		if runOf != nil {
			rec.run = runOf[ev.UnitID]
		}
		if f.kind == schema.KindSpanComplete {
			rec.dur, _ = f.arg(f.dur, &ev, &view)
		}
		if f.dep >= 0 {
			rec.producer, rec.hasDep = f.arg(f.dep, &ev, &view)
		}
		// The detail's prefix is formatted here rather than by the export's
		// goroutine, which has more to do per event than this one.
		rec.text[0] = uint32(len(b.text))
		if ev.Cycle != cyc || len(cycText) == 0 { // many events share a cycle
			cyc, cycText = ev.Cycle, strconv.AppendUint(cycText[:0], ev.Cycle, 10)
		}
		b.text = append(b.text, cycText...)
		b.text = append(b.text, ' ')
		b.text = append(b.text, units.name(ev.UnitID)...)
		b.text = append(b.text, ':', ' ')
		rec.text[1] = uint32(len(b.text))
		b.text = ev.AppendMessage(b.text)
		rec.text[2] = uint32(len(b.text))
		b.recs = append(b.recs, rec)
		if len(b.recs) == kBatchRecs {
			if !send() || !take() {
				return
			}
		}
	}
	b.end, b.err, b.lastCycle = true, it.Err(), last
	send()
}
