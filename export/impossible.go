package export

import (
	"github.com/chronon-sim/chronon-go/internal/argview"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// impossibleSpan counts a complete span that ends before it begins, which
// the export leaves out, and names the first.
func (r *Result) impossibleSpan(unit, name string, c, dur uint64) {
	r.ImpossibleSpans++
	if r.ImpossibleSpans == 1 {
		r.FirstImpossibleSpan = tracetext.ImpossibleSpan(name, unit, c, dur)
	}
}

// completeEnd returns the end of complete span ev (format f, arguments in
// v); false, counted in the result, when it ends before it begins.
func (d *driver) completeEnd(ev *mmapio.Event, f *fmtInfo, v *argview.View) (uint64, bool) {
	dur, t := uint64(0), schema.ArgUInt64
	if v.Has(f.dur) {
		dur, t = v.Uint(f.dur), f.types[f.dur]
	}
	end, ok := schema.CompleteSpanEnd(ev.Cycle, dur, t)
	if !ok {
		d.res.impossibleSpan(d.unitName(ev.UnitID), f.name, ev.Cycle, dur)
	}
	return end, ok
}
