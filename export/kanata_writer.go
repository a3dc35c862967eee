package export

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

// kanataWriter writes the commands of a Kanata log (version 0004), one per
// line, tab-separated: the header, then cycle steps (C= once, then C with
// the cycles elapsed) before the commands of each new cycle. The time only
// moves forward: step refuses to go back, which the export never asks.
type kanataWriter struct {
	path    string
	f       *os.File
	w       *bufio.Writer
	line    []byte
	cycle   uint64 // cycle of the commands being written
	started bool   // C= written
}

func newKanataWriter(path string) (*kanataWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	kw := &kanataWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20), line: make([]byte, 0, 256)}
	_, err = kw.w.WriteString("Kanata\t0004\n")
	return kw, err
}

// step moves the log's time to cycle c.
func (kw *kanataWriter) step(c uint64) error {
	switch {
	case !kw.started:
		kw.started, kw.cycle = true, c
		return kw.write(append(strconv.AppendUint(append(kw.line[:0], "C=\t"...), c, 10), '\n'))
	case c > kw.cycle:
		d := c - kw.cycle
		kw.cycle = c
		return kw.write(append(strconv.AppendUint(append(kw.line[:0], "C\t"...), d, 10), '\n'))
	case c < kw.cycle:
		return fmt.Errorf("export: kanata: cycle %d after %d", c, kw.cycle) // a bug, not bad input
	}
	return nil
}

func (kw *kanataWriter) write(b []byte) error {
	_, err := kw.w.Write(b)
	return err
}

// cmd writes "X\tid\ta\tb\n" where a and b are numbers.
func (kw *kanataWriter) cmd(x byte, id, a, b uint64) error {
	l := append(kw.line[:0], x, '\t')
	l = strconv.AppendUint(l, id, 10)
	l = strconv.AppendUint(append(l, '\t'), a, 10)
	l = strconv.AppendUint(append(l, '\t'), b, 10)
	kw.line = append(l, '\n')
	return kw.write(kw.line)
}

// stage writes S or E: "X\tid\tlane\tname\n".
func (kw *kanataWriter) stage(x byte, id uint64, lane uint8, name string) error {
	l := append(kw.line[:0], x, '\t')
	l = strconv.AppendUint(l, id, 10)
	l = append(l, '\t', '0'+lane, '\t')
	l = append(l, name...)
	kw.line = append(l, '\n')
	return kw.write(kw.line)
}

// label writes "L\tid\ttype\t" and text, which the caller has escaped (no
// tab or newline: a newline is the two characters \n, which Konata turns
// back into a newline).
func (kw *kanataWriter) label(id uint64, typ byte, text []byte) error {
	l := append(kw.line[:0], 'L', '\t')
	l = strconv.AppendUint(l, id, 10)
	l = append(l, '\t', '0'+typ, '\t')
	l = append(l, text...)
	kw.line = append(l, '\n')
	return kw.write(kw.line)
}

// close flushes and closes the file; the first error wins.
func (kw *kanataWriter) close() error {
	err := kw.w.Flush()
	if cerr := kw.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export: %s: %w", kw.path, err)
	}
	return nil
}
