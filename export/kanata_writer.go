package export

import (
	"fmt"
	"os"
	"sync"

	"github.com/chronon-sim/chronon-go/internal/decimal"
)

// kanataWriter writes the commands of a Kanata log (version 0004), one per
// line, tab-separated: the header, then cycle steps (C= once, then C with
// the cycles elapsed) before the commands of each new cycle. The time only
// moves forward: step refuses to go back, which the export never asks.
//
// Lines are appended straight into a chunk (no per-line copy through a
// bufio.Writer), and full chunks are written to the file by a goroutine
// while the export fills the next one: the log is about 90 bytes per
// event, and its write system calls cost as much as a third of the export
// when made inline.
type kanataWriter struct {
	path    string
	f       *os.File
	buf     []byte // the chunk being filled
	cycle   uint64 // cycle of the commands being written
	started bool   // C= written

	todo chan []byte    // full chunks, to the writing goroutine
	free chan kChunkErr // written chunks, back, with the write's error
	done chan error     // the goroutine's first error, when todo is closed
	err  error          // the first error a chunk came back with
}

// kChunk is the size a chunk is written at; kChunks chunks circulate.
const (
	kChunk  = 1 << 20
	kChunks = 3
)

// kChunkSet is a writer's chunks, recycled across exports (kChunkSets):
// made anew they were half of what an export allocates.
type kChunkSet [kChunks][]byte

var kChunkSets = sync.Pool{New: func() any {
	var cs kChunkSet
	for i := range cs {
		cs[i] = make([]byte, 0, kChunk+4096)
	}
	return &cs
}}

// kChunkErr travels back with a written chunk when its write failed.
type kChunkErr struct {
	b   []byte
	err error
}

func newKanataWriter(path string) (*kanataWriter, error) {
	// Opened without O_TRUNC: cutting an existing output (the same export
	// run again) frees its pages, which costs as much as writing a few
	// megabytes; drain does it off the export's path. Errors opening are
	// still reported here, before any work.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	cs := kChunkSets.Get().(*kChunkSet)
	kw := &kanataWriter{path: path, f: f, buf: cs[0][:0],
		todo: make(chan []byte, kChunks), free: make(chan kChunkErr, kChunks), done: make(chan error, 1)}
	for i := 1; i < kChunks; i++ {
		kw.free <- kChunkErr{b: cs[i][:0]}
	}
	go kw.drain()
	kw.buf = append(kw.buf, "Kanata\t0004\n"...)
	return kw, nil
}

// drain writes the chunks it is given until todo is closed; after a write
// error it writes nothing more (the export stops at the next chunk) and
// reports the error at the end.
func (kw *kanataWriter) drain() {
	var err error
	if st, serr := kw.f.Stat(); serr != nil {
		err = serr
	} else if st.Mode().IsRegular() && st.Size() > 0 { // not a pipe or a device
		err = kw.f.Truncate(0)
	}
	for b := range kw.todo {
		if err == nil {
			_, err = kw.f.Write(b)
		}
		kw.free <- kChunkErr{b[:0], err}
	}
	kw.done <- err
}

// step moves the log's time to cycle c.
func (kw *kanataWriter) step(c uint64) error {
	switch {
	case !kw.started:
		kw.started, kw.cycle = true, c
		kw.buf = append(decimal.Append(append(kw.buf, "C=\t"...), c), '\n')
	case c > kw.cycle:
		d := c - kw.cycle
		kw.cycle = c
		kw.buf = append(decimal.Append(append(kw.buf, "C\t"...), d), '\n')
	case c < kw.cycle:
		return fmt.Errorf("export: kanata: cycle %d after %d", c, kw.cycle) // a bug, not bad input
	default:
		return nil
	}
	return kw.full()
}

// full hands the chunk to the writing goroutine once it holds kChunk
// bytes, and returns the first write error met so far.
func (kw *kanataWriter) full() error {
	if len(kw.buf) < kChunk {
		return nil
	}
	kw.todo <- kw.buf
	c := <-kw.free
	kw.buf = c.b
	if kw.err == nil && c.err != nil {
		kw.err = fmt.Errorf("export: %s: %w", kw.path, c.err)
	}
	return kw.err
}

// cmd writes "X\tid\ta\tb\n" where a and b are numbers; id is the
// instruction's id in decimal (formatted once per instruction).
func (kw *kanataWriter) cmd(x byte, id []byte, a, b uint64) error {
	l := append(kw.buf, x, '\t')
	l = append(l, id...)
	l = decimal.Append(append(l, '\t'), a)
	l = decimal.Append(append(l, '\t'), b)
	kw.buf = append(l, '\n')
	return kw.full()
}

// dep writes W: "W\tconsumer\tproducer\t0\n" (type 0, wake up: the only
// type Konata's format defines).
func (kw *kanataWriter) dep(consumer, producer []byte) error {
	l := append(kw.buf, 'W', '\t')
	l = append(l, consumer...)
	l = append(l, '\t')
	l = append(l, producer...)
	kw.buf = append(l, '\t', '0', '\n')
	return kw.full()
}

// stage writes S or E: "X\tid\tlane\tname\n".
func (kw *kanataWriter) stage(x byte, id []byte, lane uint8, name string) error {
	l := append(kw.buf, x, '\t')
	l = append(l, id...)
	l = append(l, '\t', '0'+lane, '\t')
	l = append(l, name...)
	kw.buf = append(l, '\n')
	return kw.full()
}

// labelStart begins "L\tid\ttype\t"; the caller appends the text, which it
// has escaped (no tab or newline: a newline is the two characters \n,
// which Konata turns back into a newline), to kw.buf and ends it with
// labelEnd. The text is formatted in place, not copied.
func (kw *kanataWriter) labelStart(id []byte, typ byte) {
	l := append(kw.buf, 'L', '\t')
	l = append(l, id...)
	kw.buf = append(l, '\t', '0'+typ, '\t')
}

func (kw *kanataWriter) labelEnd() error {
	kw.buf = append(kw.buf, '\n')
	return kw.full()
}

// close writes what is left, stops the goroutine and closes the file; the
// first error wins.
func (kw *kanataWriter) close() error {
	if len(kw.buf) > 0 {
		kw.todo <- kw.buf
		kw.buf = nil
	}
	close(kw.todo)
	err := <-kw.done
	kw.recycle()
	if cerr := kw.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export: %s: %w", kw.path, err)
	}
	return nil
}

// recycle gives the chunks back for another export once the writing
// goroutine is done with them: all but the one being filled are in free.
func (kw *kanataWriter) recycle() {
	var cs kChunkSet
	n := 0
	if kw.buf != nil {
		cs[n], n = kw.buf[:0], n+1
		kw.buf = nil
	}
	for n < kChunks && len(kw.free) > 0 {
		c := <-kw.free
		cs[n], n = c.b[:0], n+1
	}
	if n == kChunks && cap(cs[0]) >= kChunk {
		kChunkSets.Put(&cs)
	}
}
