package schema

import "encoding/binary"

// Record is the 24-byte StructuredRecord that follows each event's args_size.
//
//	off size field          (offsets inside the event: +2)
//	  0    8 cycle
//	  8    4 format_id
//	 12    4 category      low 32 bits of the 64-bit category mask
//	 16    2 source_id     unit id; 0 = no unit
//	 18    1 arg_count
//	 19    5 padding       zero
type Record struct {
	Cycle    uint64
	FormatID uint32
	Category uint32
	SourceID uint16
	ArgCount uint8
}

// AppendEvent appends one event, [args_size u16][record][args], to dst.
// args must not exceed MaxArgsSize bytes.
func AppendEvent(dst []byte, r Record, args []byte) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint16(dst, uint16(len(args)))
	dst = le.AppendUint64(dst, r.Cycle)
	dst = le.AppendUint32(dst, r.FormatID)
	dst = le.AppendUint32(dst, r.Category)
	dst = le.AppendUint16(dst, r.SourceID)
	dst = append(dst, r.ArgCount, 0, 0, 0, 0, 0)
	return append(dst, args...)
}

// DecodeEvent decodes the event at b[0:]. It returns the record, its args
// (a sub-slice of b) and the event's total size, or ok=false when b holds
// less than a whole event. This is the reference decoder; readers may inline
// the same arithmetic in their hot loops.
func DecodeEvent(b []byte) (r Record, args []byte, size int, ok bool) {
	if len(b) < EventHeaderSize {
		return Record{}, nil, 0, false
	}
	le := binary.LittleEndian
	n := int(le.Uint16(b))
	size = EventHeaderSize + n
	if len(b) < size {
		return Record{}, nil, 0, false
	}
	r = Record{
		Cycle:    le.Uint64(b[2:]),
		FormatID: le.Uint32(b[10:]),
		Category: le.Uint32(b[14:]),
		SourceID: le.Uint16(b[18:]),
		ArgCount: b[20],
	}
	return r, b[EventHeaderSize:size:size], size, true
}
