package mmapio

import (
	"errors"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
)

// Multi reads several traces as one timeline: the runs of a parallel
// simulation (one file per rank), or any files the caller names together.
// Events of all files come in cycle order; events with equal cycles come in
// file order (the order the files were given), then each file's own order,
// so the result does not depend on how the files interleave.
//
// Each file has a label: "rank<N>" when its metadata has a rank (the
// writer records the launcher's rank, see chronon's metadata), else the
// file's base name without ".ctrace"; labels that clash get a suffix
// ("#2", "#3"). Units are named "<label>/<unit>" (r3/core0.fetch), and a
// unit name filter matches those names. A Multi of one file uses no label:
// its names and dump lines are the Reader's own.
//
// Multi is built on the Readers' public iteration: each file is iterated
// as it would be alone (its own cycle and unit seeks, its own background
// decoding) and the per-file streams are merged with a heap.
type Multi struct {
	readers []*Reader
	labels  []string
}

// MetaRank is the metadata key holding a run's rank in a parallel
// simulation (chronon writes it from the launcher's environment).
const MetaRank = "rank"

// OpenAll opens every path (see Open) and returns them as one timeline.
// On error the files already opened are closed.
func OpenAll(paths []string, opts ...Option) (*Multi, error) {
	if len(paths) == 0 {
		return nil, errors.New("mmapio: OpenAll needs at least one file")
	}
	rs := make([]*Reader, 0, len(paths))
	for _, p := range paths {
		r, err := Open(p, opts...)
		if err != nil {
			for _, o := range rs {
				o.Close()
			}
			return nil, err
		}
		rs = append(rs, r)
	}
	return NewMulti(rs...), nil
}

// NewMulti makes a timeline of Readers the caller opened (Close closes them).
func NewMulti(rs ...*Reader) *Multi {
	return &Multi{readers: rs, labels: Labels(rs)}
}

// Labels returns the label of each file as Multi names them: "rank<N>" from
// the metadata's rank, else the base name without ".ctrace"; a label that
// an earlier file already has gets "#2", "#3", ... appended.
func Labels(rs []*Reader) []string {
	labels := make([]string, len(rs))
	used := map[string]bool{}
	for i, r := range rs {
		l := ""
		for _, kv := range r.Metadata() {
			if kv.Key == MetaRank && kv.Value != "" {
				l = "rank" + kv.Value
			}
		}
		if l == "" {
			l = strings.TrimSuffix(filepath.Base(r.Path()), ".ctrace")
		}
		base := l
		for n := 2; used[l]; n++ {
			l = base + "#" + strconv.Itoa(n)
		}
		used[l] = true
		labels[i] = l
	}
	return labels
}

// Len returns the number of files.
func (m *Multi) Len() int { return len(m.readers) }

// Reader returns file i's Reader.
func (m *Multi) Reader(i int) *Reader { return m.readers[i] }

// Readers returns the Readers in file order (shared: do not modify).
func (m *Multi) Readers() []*Reader { return m.readers }

// Label returns file i's label ("" when the Multi holds one file).
func (m *Multi) Label(i int) string {
	if len(m.readers) == 1 {
		return ""
	}
	return m.labels[i]
}

// Labelled reports whether names carry file labels (more than one file).
func (m *Multi) Labelled() bool { return len(m.readers) > 1 }

// UnitName returns the name of unit id of file i: "<label>/<name>", or the
// Reader's name for one file. A unit without a name (unit 0, an id the
// schema does not list) has none: its events print without a unit, as the
// original reader printed them, and a merged file cannot name unit 0.
func (m *Multi) UnitName(file int, id uint16) string {
	name := m.readers[file].UnitName(id)
	if len(m.readers) == 1 || name == "" {
		return name
	}
	return m.labels[file] + "/" + name
}

// UnitsNamed returns, per file, the ids of the units whose labelled name
// contains substr (units without a name never match), and how many matched
// in all.
func (m *Multi) UnitsNamed(substr string) (ids [][]uint16, n int) {
	ids = make([][]uint16, len(m.readers))
	for i, r := range m.readers {
		for id, name := range r.unitNames {
			if name != "" && strings.Contains(m.UnitName(i, uint16(id)), substr) {
				ids[i] = append(ids[i], uint16(id))
			}
		}
		n += len(ids[i])
	}
	return ids, n
}

// Queries returns one query per file: q narrowed, when ids is not nil, to
// each file's units ids[i] (as UnitsNamed returns them).
func (m *Multi) Queries(q Query, ids [][]uint16) []Query {
	qs := make([]Query, len(m.readers))
	for i := range qs {
		qs[i] = q
		if ids != nil {
			qs[i] = q.WithUnits(ids[i]...)
		}
	}
	return qs
}

// Err returns the first error an iteration met in any file.
func (m *Multi) Err() error {
	for _, r := range m.readers {
		if err := r.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Close closes every Reader and returns the first error.
func (m *Multi) Close() error {
	var first error
	for _, r := range m.readers {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Iter starts an iteration over every file: qs holds one query for all
// files, or one per file (Queries).
func (m *Multi) Iter(qs ...Query) *MultiIterator {
	it := &MultiIterator{m: m, last: -1}
	it.its = make([]*Iterator, len(m.readers))
	it.cur = make([]Event, len(m.readers))
	for i, r := range m.readers {
		q := Query{}
		switch len(qs) {
		case 0:
		case 1:
			q = qs[0]
		default:
			q = qs[i]
		}
		it.its[i] = r.Iter(q)
	}
	return it
}

// Events returns the events of every file in timeline order, each with the
// index of its file, as a range function; see Iter for qs and Err for how
// an iteration ended.
//
//	for file, ev := range m.Events() { ... }
func (m *Multi) Events(qs ...Query) iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		it := m.Iter(qs...)
		defer it.Close()
		for it.Next() {
			if !yield(it.File(), it.Event()) {
				return
			}
		}
	}
}

// MultiIterator merges the files' iterations by cycle (ties: file order,
// then each file's order). An event's arguments are valid until the next
// call to Next, as with Iterator: only the iteration of the file whose
// event was returned steps, so the events the heap holds stay valid.
type MultiIterator struct {
	m       *Multi
	its     []*Iterator
	cur     []Event
	heap    []int // files with a current event, heap-ordered by (cycle, file)
	last    int   // file of the event returned last; -1 before the first
	started bool
	err     error
}

func (it *MultiIterator) less(a, b int) bool {
	ca, cb := it.cur[a].Cycle, it.cur[b].Cycle
	return ca < cb || ca == cb && a < b
}

func (it *MultiIterator) down(i int) {
	h := it.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && it.less(h[r], h[l]) {
			j = r
		}
		if !it.less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// step advances file f's iteration; false when it ended (with an error or not).
func (it *MultiIterator) step(f int) bool {
	if it.its[f].Next() {
		it.cur[f] = it.its[f].Event()
		return true
	}
	if err := it.its[f].Err(); err != nil && it.err == nil {
		it.err = err
	}
	return false
}

// Next advances to the next event of the timeline.
func (it *MultiIterator) Next() bool {
	if it.err != nil {
		return false
	}
	if !it.started {
		it.started = true
		for f := range it.its {
			if it.step(f) {
				it.heap = append(it.heap, f)
			}
		}
		for i := len(it.heap)/2 - 1; i >= 0; i-- {
			it.down(i)
		}
	} else if it.last >= 0 {
		if !it.step(it.last) {
			n := len(it.heap) - 1
			it.heap[0] = it.heap[n]
			it.heap = it.heap[:n]
		}
		it.down(0)
	}
	if it.err != nil {
		it.Close()
		return false
	}
	if len(it.heap) == 0 {
		it.last = -1
		it.Close()
		return false
	}
	it.last = it.heap[0]
	return true
}

// Event returns the current event. Its arguments are valid until the next
// call to Next.
func (it *MultiIterator) Event() Event { return it.cur[it.last] }

// File returns the index of the file the current event came from.
func (it *MultiIterator) File() int { return it.last }

// Err returns the error that ended the iteration (the file's error names it).
func (it *MultiIterator) Err() error { return it.err }

// Close stops every file's iteration. Safe to call more than once.
func (it *MultiIterator) Close() {
	for _, i := range it.its {
		i.Close()
	}
	it.heap = it.heap[:0]
}
