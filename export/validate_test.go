package export

import (
	"fmt"
	"math"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// An independent decoder of the exported Perfetto files, built on
// protowire, that checks what a viewer relies on and returns the events for
// further assertions:
//   - the first packet clears the incremental state; later ones need it;
//   - track uuids are unique and every parent is declared first;
//   - every event is on a declared track; counter values only on counter
//     tracks and nothing else on them;
//   - every interned name id is declared before (or in the packet of) its use;
//   - timestamps never decrease (one sequence);
//   - slices balance per track (no end without a begin, none left open).

type vTrack struct {
	uuid, parent uint64
	name         string
	counter      bool
}

type vEvent struct {
	ts      uint64
	typ     uint64
	track   uint64
	name    string
	flows   []uint64
	term    []uint64 // terminating_flow_ids
	args    map[string]any
	counter float64
}

type vTrace struct {
	tracks map[uint64]*vTrack
	events []vEvent
}

func (tr *vTrace) trackPath(uuid uint64) string {
	t := tr.tracks[uuid]
	if t == nil {
		return "?"
	}
	if t.parent == 0 || tr.tracks[t.parent].parent == 0 {
		return t.name
	}
	return tr.trackPath(t.parent) + "." + t.name
}

func validatePerfetto(path string) (*vTrace, error) { return validatePerfettoTimes(path, false) }

// validatePerfettoTimes is validatePerfetto; with perTrack, timestamps are
// only required not to decrease on each track (units on clocks of their
// own interleave by cycle number, so their times do not increase across
// tracks: trace processor sorts the packets).
func validatePerfettoTimes(path string, perTrack bool) (*vTrace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tr := &vTrace{tracks: map[uint64]*vTrack{}}
	names, anns := map[uint64]string{}, map[uint64]string{}
	open := map[uint64]int{}
	trackTS := map[uint64]uint64{}
	var lastTS uint64
	first := true
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != fTracePacket || typ != protowire.BytesType {
			return nil, fmt.Errorf("bad Trace field %d/%d", num, typ)
		}
		b = b[n:]
		pkt, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, fmt.Errorf("truncated packet")
		}
		b = b[n:]
		var p struct {
			ts, seq, flags uint64
			hasTS          bool
			interned, desc []byte
			event          []byte
		}
		err := eachField(pkt, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
			switch num {
			case fPacketTimestamp:
				p.ts, p.hasTS = v, true
			case fPacketSequenceID:
				p.seq = v
			case fPacketSequenceFlags:
				p.flags = v
			case fPacketInternedData:
				p.interned = bs
			case fPacketTrackDesc:
				p.desc = bs
			case fPacketTrackEvent:
				p.event = bs
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if p.seq != sequenceID {
			return nil, fmt.Errorf("packet on sequence %d", p.seq)
		}
		if first {
			if p.flags&seqIncrementalStateCleared == 0 {
				return nil, fmt.Errorf("first packet does not clear the incremental state")
			}
			first = false
		} else if p.event != nil && p.flags&seqNeedsIncrementalState == 0 {
			return nil, fmt.Errorf("event packet without SEQ_NEEDS_INCREMENTAL_STATE")
		}
		if p.interned != nil {
			err := eachField(p.interned, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
				var iid uint64
				var s string
				eachField(bs, func(n protowire.Number, _ protowire.Type, v uint64, bs []byte) error {
					if n == fInternedIID {
						iid = v
					} else if n == fInternedStr {
						s = string(bs)
					}
					return nil
				})
				switch num {
				case fInternedEventNames:
					names[iid] = s
				case fInternedAnnotationName:
					anns[iid] = s
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		if p.desc != nil {
			t := &vTrack{}
			eachField(p.desc, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
				switch num {
				case fTrackUUID:
					t.uuid = v
				case fTrackParentUUID:
					t.parent = v
				case fTrackName:
					t.name = string(bs)
				case fTrackCounter:
					t.counter = true
				}
				return nil
			})
			if t.uuid == 0 || tr.tracks[t.uuid] != nil {
				return nil, fmt.Errorf("track uuid %d zero or declared twice", t.uuid)
			}
			if t.parent != 0 && tr.tracks[t.parent] == nil {
				return nil, fmt.Errorf("track %q: parent %d not declared before it", t.name, t.parent)
			}
			if t.name == "" {
				return nil, fmt.Errorf("track %d has no name", t.uuid)
			}
			tr.tracks[t.uuid] = t
		}
		if p.event == nil {
			continue
		}
		if !p.hasTS {
			return nil, fmt.Errorf("event without timestamp")
		}
		if p.ts < lastTS && !perTrack {
			return nil, fmt.Errorf("timestamp %d after %d", p.ts, lastTS)
		}
		lastTS = p.ts
		ev := vEvent{ts: p.ts, args: map[string]any{}}
		hasCounter := false
		err = eachField(p.event, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
			switch num {
			case fEventType:
				ev.typ = v
			case fEventTrackUUID:
				ev.track = v
			case fEventNameIID:
				s, ok := names[v]
				if !ok {
					return fmt.Errorf("event name iid %d not interned", v)
				}
				ev.name = s
			case fEventFlowIDs:
				ev.flows = append(ev.flows, v)
			case fEventTerminatingFlowIDs:
				ev.term = append(ev.term, v)
			case fEventCounterValue:
				ev.counter, hasCounter = float64(int64(v)), true
			case fEventDoubleCounter:
				ev.counter, hasCounter = math.Float64frombits(v), true
			case fEventDebugAnnotations:
				var name string
				var val any
				err := eachField(bs, func(n protowire.Number, t protowire.Type, v uint64, bs []byte) error {
					switch n {
					case fAnnNameIID:
						s, ok := anns[v]
						if !ok {
							return fmt.Errorf("annotation name iid %d not interned", v)
						}
						name = s
					case fAnnBool:
						val = v != 0
					case fAnnUint, fAnnPointer:
						val = v
					case fAnnInt:
						val = int64(v)
					case fAnnDouble:
						val = math.Float64frombits(v)
					case fAnnString:
						val = string(bs)
					}
					return nil
				})
				if err != nil {
					return err
				}
				ev.args[name] = val
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		t := tr.tracks[ev.track]
		if t == nil {
			return nil, fmt.Errorf("event %q on undeclared track %d", ev.name, ev.track)
		}
		if last, ok := trackTS[ev.track]; ok && ev.ts < last {
			return nil, fmt.Errorf("timestamp %d after %d on track %q", ev.ts, last, t.name)
		}
		trackTS[ev.track] = ev.ts
		if t.counter != (ev.typ == typeCounter) || (ev.typ == typeCounter) != hasCounter {
			return nil, fmt.Errorf("event type %d with counter value %v on track %q (counter %v)", ev.typ, hasCounter, t.name, t.counter)
		}
		switch ev.typ {
		case typeSliceBegin:
			open[ev.track]++
		case typeSliceEnd:
			if open[ev.track] == 0 {
				return nil, fmt.Errorf("slice end without begin on track %q at %d", t.name, ev.ts)
			}
			open[ev.track]--
		case typeInstant, typeCounter:
		default:
			return nil, fmt.Errorf("event type %d", ev.typ)
		}
		tr.events = append(tr.events, ev)
	}
	for uuid, n := range open {
		if n != 0 {
			return nil, fmt.Errorf("%d slices left open on track %q", n, tr.tracks[uuid].name)
		}
	}
	return tr, nil
}

// eachField calls f for every field of a message (varint and fixed values
// in v, length-delimited ones in bs).
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
		default:
			return fmt.Errorf("unexpected wire type %d", typ)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, bs); err != nil {
			return err
		}
	}
	return nil
}
