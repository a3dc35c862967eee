// Package rewrite writes new .ctrace files from the blocks of existing
// ones, read with mmapio.
//
// Complete writes a complete copy of what a Reader found: a recovered file
// (the writer was killed, the file was cut short, its footer was rejected
// and the file opened with mmapio.WithRepair) becomes a file with a
// correct footer, readable by the original C++ reader and accepted by the
// conformance oracle. Blocks are copied as they are; each is decoded and
// checked first, and one that fails is an error naming it (or, with
// WithRepair, left out and listed in Result.Dropped).
//
//	r, err := mmapio.Open("crashed.ctrace", mmapio.WithRepair())
//	...
//	res, err := rewrite.Complete(out, r, time.Now())
//
// Merge writes the files of a timeline (mmapio.OpenAll: the ranks of a
// parallel simulation) as one trace that reads back as the timeline: its
// units named "<label>/<unit>", formats deduplicated, categories merged
// by name (one table, each name one bit), each file's metadata kept under
// its label. Blocks whose unit, format and category ids stay are copied
// as they are (after a check, unless MergeOptions.NoVerify); the others
// are decoded, renumbered and compressed again, on every core.
//
// Inputs are read through their mappings: one that shrinks while it is
// copied is a *mmapio.FaultError naming it, not a crash. The output is
// written front to back; Merge seeks back once to write the header, which
// points at the footer. A failed write leaves an incomplete output, which
// the caller removes.
package rewrite
