package tracetext

import (
	"bufio"
	"io"

	"github.com/chronon-sim/chronon-go/internal/ctext"
	"github.com/chronon-sim/chronon-go/internal/rawread"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// AppendMultiLine appends the dump line of an event that file of the
// timeline m gave: the file's own line (AppendLine) when m holds one file,
// else with the unit named "<label>/<unit>" (m.UnitName; no unit for a
// unit without a name, as a file's own line prints it).
func AppendMultiLine(dst []byte, m *mmapio.Multi, file int, ev *mmapio.Event) []byte {
	dst = ctext.AppendCycle(dst, ev.Cycle)
	dst = ctext.AppendPrefix(dst, m.UnitName(file, ev.UnitID))
	dst = ev.AppendMessage(dst)
	return append(dst, '\n')
}

// WriteMultiDump writes the dump lines of the timeline m to w, at most
// limit (0: no limit), and returns how many it wrote: qs holds one query
// for all files, or one per file (m.Queries). With one file it is
// WriteDump of that file: the same bytes.
func WriteMultiDump(w io.Writer, m *mmapio.Multi, limit int, qs ...mmapio.Query) (count int, err error) {
	if m.Len() == 1 {
		q := mmapio.Query{}
		if len(qs) > 0 {
			q = qs[0]
		}
		return WriteDump(w, m.Reader(0), q, limit)
	}
	defer rawread.CatchFaultMulti(m, &err, rawread.PanicOnFault()) // arguments of raw blocks alias the mappings
	lines := make([]*ctext.Lines, m.Len())
	for i, r := range m.Readers() {
		lines[i] = linesOf(r, func(id uint16) string { return m.UnitName(i, id) })
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	it := m.Iter(qs...)
	defer it.Close()
	var line []byte
	var cc ctext.CycleCache
	for it.Next() {
		ev := it.Event()
		line = lines[it.File()].AppendLine(line[:0], &cc, ev.Cycle, ev.UnitID, ev.FormatID, ev.ArgCount, ev.RawArgs())
		if _, err := bw.Write(line); err != nil {
			return count, err
		}
		count++
		if limit > 0 && count >= limit {
			break
		}
	}
	if err := it.Err(); err != nil {
		bw.Flush()
		return count, err
	}
	return count, bw.Flush()
}
