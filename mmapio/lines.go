package mmapio

import (
	"bufio"
	"io"
	"slices"

	"github.com/chronon-sim/chronon-go/internal/ctext"
)

// Lines rendered in the pipeline, for a dump: the text package gives the
// lines (ctext.Lines) and writes them out (writeLines).

// Text caps: a worker renders at most segmentTextCap bytes of a segment's
// lines; a segment with more (huge blocks, very long messages) is rendered
// further by the consumer a chunk at a time, so the memory of a dump stays
// bounded whatever the file.
const (
	segmentTextCap = 8 << 20
	chunkTextCap   = 1 << 20
)

// renderSegment renders the lines of seg.refs from seg.rendered on into
// seg.text (replacing it: text then holds the lines of
// refs[base:rendered]), up to about limit bytes, with lines.
func (r *Reader) renderSegment(seg *segment, lines *ctext.Lines, limit int) {
	seg.base = seg.rendered
	// Size the buffer once from the lines' average length so far: growing
	// by doubling copies, and every fresh page costs a fault.
	avg := 64
	if n, b := r.linesRendered.Load(), r.bytesRendered.Load(); n > 1000 {
		avg = int(b/n) + 1
	}
	text := slices.Grow(seg.text[:0], min(limit+4096, avg*(len(seg.refs)-seg.rendered)+4096))
	text, n := lines.AppendRefs(text, seg.refs[seg.rendered:], seg.bds, limit)
	i := seg.rendered + n
	r.linesRendered.Add(int64(n))
	r.bytesRendered.Add(int64(len(text)))
	seg.text, seg.rendered = text, i
}

// writeLines writes the lines of the events q selects to w, in cycle
// order, at most limit lines (0: no limit), and returns how many it wrote.
//
// This is the fast path of a dump (the text package's WriteDump): the
// pipeline's workers decode blocks, merge a cycle range at a time and
// render its lines with lines; this goroutine only writes them out. A block
// that fails to decode ends the dump with its error after the lines of the
// cycle ranges before it.
func (r *Reader) writeLines(w io.Writer, q Query, limit int, lines *ctext.Lines) (count int, err error) {
	defer r.f.Guard(&err, panicOnFault()) // lines are rendered from the mapping
	sp, err := r.startQuery(q, lines)
	if sp == nil || err != nil {
		return 0, err
	}
	defer sp.stop()
	// Segments' texts are written as they are (a large Write skips the
	// buffer's copy); small ones, from sparse queries, are gathered.
	bw := bufio.NewWriterSize(w, 256<<10)
	count, err = r.writeSegments(bw, sp, limit)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return count, err
}

func (r *Reader) writeSegments(w io.Writer, sp *segPipe, limit int) (int, error) {
	count := 0
	for limit <= 0 || count < limit {
		seg, segErr := sp.nextSegment()
		if seg == nil {
			if segErr != nil {
				r.setErr(segErr)
				return count, segErr
			}
			break
		}
		for {
			text, n := seg.text, seg.rendered-seg.base
			if limit > 0 && count+n > limit {
				n = limit - count
				text = cutLines(text, n)
			}
			if len(text) > 0 {
				if _, err := w.Write(text); err != nil {
					return count, err
				}
			}
			count += n
			if seg.rendered >= len(seg.refs) || limit > 0 && count >= limit {
				break
			}
			r.renderSegment(seg, sp.lines, min(chunkTextCap, sp.textCap))
		}
		if segErr != nil && (limit <= 0 || count < limit) {
			r.setErr(segErr)
			return count, segErr
		}
	}
	return count, nil
}

// cutLines returns the first n lines of text.
func cutLines(text []byte, n int) []byte {
	for i, c := range text {
		if c == '\n' {
			n--
			if n == 0 {
				return text[:i+1]
			}
		}
	}
	return text
}
