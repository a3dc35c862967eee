//go:build cgo

package tracesql

import (
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/schema"
)

// Columns are written a column at a time over the rows of a chunk, each a
// store into the vector's memory. What is the same on every row of the
// chunk (the trace; the unit of a block of one unit; a per-format table's
// format) is a constant vector, and unit and format names otherwise a
// dictionary of the chunk's distinct values: DuckDB then hashes, compares
// and casts each value once per chunk, not once per row.

// writeFooter writes n rows of the footer-only block th.footerInfo: only
// footer fields are read (eventRun.footer).
func (th *eventThread) writeFooter(out *chunk, n int) {
	t := th.d.traces[th.trace]
	u := uint16(max(th.footerInfo.unit, 0))
	for _, pc := range th.x.proj {
		switch pc.f {
		case fTrace:
			out.constString(pc.col, t.nameBytes)
		case fUnit:
			out.constString(pc.col, t.unitName(u))
		case fUnitID, fSourceID:
			constUint16(out, pc.col, u)
		case fAny:
			constUint16(out, pc.col, 0)
		}
	}
}

func constUint16(out *chunk, col int, v uint16) {
	val := mapping.CreateUInt16(v)
	out.constant(col, val)
	mapping.DestroyValue(&val)
}

// writeRows writes the rows idx of th.rows.
func (th *eventThread) writeRows(out *chunk, idx []int32) error {
	t := th.d.traces[th.trace]
	rs := &th.rows
	recs := rs.recs
	oneUnit := true // checked only when a unit column is written
	if th.x.unit {
		for _, i := range idx[1:] {
			if recs[i].Unit != recs[idx[0]].Unit {
				oneUnit = false
				break
			}
		}
	}
	args := false
	for _, pc := range th.x.proj {
		c := pc.col
		switch pc.f {
		case fTrace:
			out.constString(c, t.nameBytes)
		case fAny:
			constUint16(out, c, 0)
		case fCycle:
			col := column[uint64](out, c)
			for r, i := range idx {
				col[r] = recs[i].Cycle
			}
		case fTime:
			col := column[float64](out, c)
			for r, i := range idx {
				rc := &recs[i]
				tb := t.timeBase(rc.Unit)
				if tb.IsZero() {
					out.setNull(c, r)
					continue
				}
				col[r] = tb.Seconds(rc.Cycle)
			}
		case fSeq:
			col := column[uint64](out, c)
			for r, i := range idx {
				if rs.block >= 0 {
					col[r] = uint64(rs.block)<<32 | uint64(i)
				} else if s := rs.seqs[i]; s >= 0 {
					col[r] = uint64(s)
				} else {
					out.setNull(c, r)
				}
			}
		case fUnit:
			if oneUnit {
				out.constString(c, t.unitName(recs[idx[0]].Unit))
				break
			}
			th.dict.reset()
			for _, i := range idx {
				th.dict.add(uint32(recs[i].Unit))
			}
			for _, k := range th.dict.keys {
				th.dict.vals = append(th.dict.vals, t.unitName(uint16(k)))
			}
			out.dictionary(c, th.dict.vals, th.dict.idx)
		case fUnitID, fSourceID:
			if oneUnit {
				constUint16(out, c, recs[idx[0]].Unit)
				break
			}
			col := column[uint16](out, c)
			for r, i := range idx {
				col[r] = recs[i].Unit
			}
		case fFormat:
			if th.x.e.kind == kindFormat {
				out.constString(c, t.fmtNames.get(recs[idx[0]].Fid))
				break
			}
			th.dict.reset()
			for _, i := range idx {
				th.dict.add(recs[i].Fid)
			}
			for _, k := range th.dict.keys {
				th.dict.vals = append(th.dict.vals, t.fmtNames.get(k))
			}
			out.dictionary(c, th.dict.vals, th.dict.idx)
		case fFormatID:
			col := column[uint32](out, c)
			for r, i := range idx {
				col[r] = recs[i].Fid
			}
		case fCategory:
			col := column[uint32](out, c)
			for r, i := range idx {
				col[r] = recs[i].Cat
			}
		case fMessage:
			for r, i := range idx {
				rc := &recs[i]
				th.buf = ctext.AppendMessage(th.buf[:0], t.program(rc.Fid), rc.Argc, rs.data[rc.ArgOff:rc.ArgOff+uint32(rc.ArgLen)])
				out.setString(c, r, validUTF8(th.buf))
			}
		case fName:
			th.dict.reset()
			for _, i := range idx {
				th.dict.add(recs[i].Fid)
			}
			for _, k := range th.dict.keys {
				th.dict.vals = append(th.dict.vals, th.x.e.want[th.trace][k].name)
			}
			out.dictionary(c, th.dict.vals, th.dict.idx)
		default:
			args = true
		}
	}
	if !args {
		return nil
	}
	e := th.x.e
	th.d.argDecodes.Add(int64(len(idx)))
	for r, i := range idx {
		rc := &recs[i]
		raw := rs.data[rc.ArgOff : rc.ArgOff+uint32(rc.ArgLen)]
		v := &th.view
		var role *fmtRole
		switch e.kind {
		case kindFormat:
			v.Reset(e.ft.types, raw, int(rc.Argc))
		default:
			role = e.want[th.trace][rc.Fid]
			v.Reset(role.types, raw, int(rc.Argc))
		}
		for _, pc := range th.x.proj {
			switch pc.f {
			case fFlow:
				column[uint64](out, pc.col)[r] = v.Uint(role.arg)
			case fValue:
				column[float64](out, pc.col)[r] = v.Float(role.arg)
			default:
				if pc.f >= fArg {
					th.writeArg(out, t, pc.col, r, int(pc.f-fArg))
				}
			}
		}
	}
	return nil
}

// writeArg writes argument i of the current event (th.view) of a
// per-format table at row: NULL when the event does not carry it wholly,
// the symbol's text for an interned string.
func (th *eventThread) writeArg(out *chunk, t *trace, col, row, i int) {
	v := &th.view
	if !v.Has(i) {
		out.setNull(col, row)
		return
	}
	if th.x.e.ft.symbol[i] {
		out.setString(col, row, t.symbol(uint32(v.Uint(i))))
		return
	}
	switch v.Types[i] {
	case schema.ArgInt8:
		column[int8](out, col)[row] = int8(v.Uint(i))
	case schema.ArgInt16:
		column[int16](out, col)[row] = int16(v.Uint(i))
	case schema.ArgInt32:
		column[int32](out, col)[row] = int32(v.Uint(i))
	case schema.ArgInt64:
		column[int64](out, col)[row] = int64(v.Uint(i))
	case schema.ArgUInt8:
		column[uint8](out, col)[row] = uint8(v.Uint(i))
	case schema.ArgUInt16:
		column[uint16](out, col)[row] = uint16(v.Uint(i))
	case schema.ArgUInt32:
		column[uint32](out, col)[row] = uint32(v.Uint(i))
	case schema.ArgUInt64, schema.ArgPointer:
		column[uint64](out, col)[row] = v.Uint(i)
	case schema.ArgFloat:
		column[float32](out, col)[row] = float32(v.Float(i))
	case schema.ArgDouble:
		column[float64](out, col)[row] = v.Float(i)
	case schema.ArgBool:
		column[bool](out, col)[row] = v.Uint(i) != 0
	default:
		out.setString(col, row, validUTF8(v.Str(i)))
	}
}

// dictBuilder collects the distinct keys (unit or format ids) of a string
// column over one chunk's rows, in the order they first appear, and for
// each row its key's index; the caller then appends each key's text to
// vals.
type dictBuilder struct {
	dense  []int32 // key+1 → its index + 1, for keys below 1<<16
	sparse map[uint32]uint32
	keys   []uint32
	idx    []uint32
	vals   [][]byte
}

func (b *dictBuilder) reset() {
	for _, k := range b.keys {
		if k < uint32(len(b.dense)) {
			b.dense[k] = 0
		}
	}
	clear(b.sparse)
	b.keys, b.idx, b.vals = b.keys[:0], b.idx[:0], b.vals[:0]
}

// add appends a row of key.
func (b *dictBuilder) add(key uint32) {
	if key < 1<<16 {
		if b.dense == nil {
			b.dense = make([]int32, 1<<16)
		}
		s := b.dense[key]
		if s == 0 {
			b.keys = append(b.keys, key)
			s = int32(len(b.keys))
			b.dense[key] = s
		}
		b.idx = append(b.idx, uint32(s-1))
		return
	}
	if b.sparse == nil {
		b.sparse = map[uint32]uint32{}
	}
	s, ok := b.sparse[key]
	if !ok {
		s = uint32(len(b.keys))
		b.keys = append(b.keys, key)
		b.sparse[key] = s
	}
	b.idx = append(b.idx, s)
}

// validUTF8 returns b, or b with its invalid bytes replaced by U+FFFD
// (DuckDB's VARCHAR holds UTF-8 only).
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return []byte(string([]rune(string(b))))
}
