package ctext

import "github.com/chronon-sim/chronon-go/internal/tracefile"

// Lines prints the dump lines of one trace: "[%10d] unit: message\n", or
// "[%10d] message\n" for an event whose unit has no name. It holds the
// line prefix of every named unit (its name escaped) and the compiled
// format of every format id. It is read-only once built: workers share it.
type Lines struct {
	prefix  [][]byte // by unit id: " name: ", nil for a unit without a name
	formats FormatTable
}

var spacePrefix = []byte(" ")

// NewLines returns the lines of a trace whose units are named names (by
// unit id, "" for none) and whose formats are formats.
func NewLines(names []string, formats FormatTable) *Lines {
	l := &Lines{prefix: make([][]byte, len(names)), formats: formats}
	for id, name := range names {
		if name != "" {
			l.prefix[id] = AppendPrefix(nil, name)
		}
	}
	return l
}

// AppendPrefix appends what follows "[%10d]" on the line of a unit named
// name: " name: " with the name escaped, or " " when name is "".
func AppendPrefix(dst []byte, name string) []byte {
	if name == "" {
		return append(dst, ' ')
	}
	dst = append(dst, ' ')
	dst = AppendEscaped(dst, name)
	return append(dst, ':', ' ')
}

// Prefix returns what follows "[%10d]" on a line of unit id.
func (l *Lines) Prefix(id uint16) []byte {
	if int(id) < len(l.prefix) {
		if p := l.prefix[id]; p != nil {
			return p
		}
	}
	return spacePrefix
}

// AppendLine appends the line of an event: its cycle, unit, format id,
// argument count and argument bytes. cc remembers the cycle last written
// (a zero CycleCache is empty).
func (l *Lines) AppendLine(dst []byte, cc *CycleCache, cycle uint64, unit uint16, fid uint32, argc uint8, args []byte) []byte {
	f, p := l.formats.Get(fid), l.Prefix(unit)
	if f != nil && f.lineFast && int(argc) >= len(f.ops) && len(args) >= f.fixedSize {
		return cc.appendFastLine(dst, cycle, p, f, args)
	}
	return appendLine(dst, cycle, p, f, argc, args)
}

// AppendRefs appends the lines of the records refs names, in order, until
// text holds limit bytes or more, and returns text and how many refs it
// rendered. A ref is slot<<32 | index: the record bds[slot].Recs[index].
// This is a dump's inner loop, run on the reader's workers: one call per
// stretch of lines, the lookups and the fast path inline.
func (l *Lines) AppendRefs(text []byte, refs []uint64, bds []*tracefile.Decoded, limit int) ([]byte, int) {
	var cc CycleCache
	i := 0
	for ; i < len(refs) && len(text) < limit; i++ {
		ref := refs[i]
		bd := bds[ref>>32]
		rc := &bd.Recs[uint32(ref)]
		args := bd.Data[rc.ArgOff : rc.ArgOff+uint32(rc.ArgLen)]
		f, p := l.formats.Get(rc.Fid), l.Prefix(rc.Unit)
		if f != nil && f.lineFast && int(rc.Argc) >= len(f.ops) && len(args) >= f.fixedSize {
			text = cc.appendFastLine(text, rc.Cycle, p, f, args)
			continue
		}
		text = appendLine(text, rc.Cycle, p, f, rc.Argc, args)
	}
	return text, i
}

// appendLine appends the line of an event by the general path: its format
// f (nil: unknown) does not take the fast one.
func appendLine(dst []byte, cycle uint64, prefix []byte, f *Format, argc uint8, args []byte) []byte {
	dst = AppendCycle(dst, cycle)
	dst = append(dst, prefix...)
	dst = AppendMessage(dst, f, argc, args)
	return append(dst, '\n')
}

// FormatTable finds a compiled format by id. An event uses the first
// schema entry with its id, as the original reader did: Add keeps the
// first format added for an id.
type FormatTable struct {
	dense  []*Format          // by id when ids are small
	sparse map[uint32]*Format // by id otherwise
}

// NewFormatTable returns a table for formats whose largest id is maxID.
func NewFormatTable(maxID uint32) FormatTable {
	if maxID < 1<<16 {
		return FormatTable{dense: make([]*Format, maxID+1)}
	}
	return FormatTable{sparse: map[uint32]*Format{}}
}

// Add records f under id unless the table has a format with that id.
func (t *FormatTable) Add(id uint32, f *Format) {
	if t.sparse != nil {
		if _, ok := t.sparse[id]; !ok {
			t.sparse[id] = f
		}
		return
	}
	if uint64(id) < uint64(len(t.dense)) && t.dense[id] == nil {
		t.dense[id] = f
	}
}

// Get returns the format with id, or nil.
func (t *FormatTable) Get(id uint32) *Format {
	if t.sparse != nil {
		return t.sparse[id]
	}
	if uint64(id) < uint64(len(t.dense)) {
		return t.dense[id]
	}
	return nil
}
