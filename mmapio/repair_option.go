package mmapio

// WithRepair makes Open read a file whose footer fails validation (an entry
// listed twice, blocks that overlap, totals that disagree with the blocks, a
// footer that is not a FlatBuffer) as it reads a file without a footer: the
// blocks are found by walking their inline headers from the first one, each
// verified by decoding it, and Status is StateRecovered with Why naming the
// footer's fault. `trace_reader recover` opens with it, so that
// rewrite.Complete writes a correct footer for such a file (and leaves out
// the blocks that do not decode). Without it such a file fails to open.
// The header and schema must still be valid.
func WithRepair() Option {
	return func(o *options) error {
		o.repair = true
		return nil
	}
}
