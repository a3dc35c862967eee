package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// A new run that opens the followed path with O_TRUNC and has written more
// than the old size by the next poll leaves a file that neither shrank nor
// was replaced, yet is not the one read. A writer only appends behind the
// first block, so the bytes just before the read point never change while
// the same run writes: the follower keeps the last of them it read (a
// block's tail: for a zstd block, its content checksum) and compares them at
// every poll. Equal bytes mean the follow may go on: what comes next belongs
// after what was printed.

// witnessBytes is how many bytes before the read point are compared.
const witnessBytes = 64

// remember keeps the bytes of raw (read from the file at start) just before
// the read point.
func (fl *follower) remember(raw []byte, start int64) {
	k := min(witnessBytes, fl.next-start)
	if k <= 0 || fl.next-start > int64(len(raw)) {
		return
	}
	fl.witOff = fl.next - k
	fl.witness = append(fl.witness[:0], raw[fl.witOff-start:fl.next-start]...)
}

// checkRewritten ends the follow when the bytes before the read point are
// no longer those read.
func (fl *follower) checkRewritten() error {
	if len(fl.witness) == 0 {
		return nil
	}
	var b [witnessBytes]byte
	n, err := fl.f.ReadAt(b[:len(fl.witness)], fl.witOff)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: at offset %d: %w", fl.path, fl.witOff, err)
	}
	if !bytes.Equal(b[:n], fl.witness) {
		return fmt.Errorf("%s: rewritten while followed: the bytes before offset %d are no longer those read (a new run?): follow it again", fl.path, fl.witOff+int64(len(fl.witness)))
	}
	return nil
}
