package mmapio

import (
	"errors"

	"github.com/chronon-sim/chronon-go/schema"
)

// WithRepair makes Open read a file whose footer fails validation (an entry
// listed twice, blocks that overlap, totals that disagree with the blocks, a
// footer that is not a FlatBuffer) as it reads a file without a footer: the
// blocks are found by walking their inline headers from the first one, each
// verified by decoding it, and Status is StateRecovered with Why naming the
// footer's fault. `trace_reader recover` opens with it, so WriteComplete
// writes a correct footer for such a file. Without it such a file fails to
// open. The header and schema must still be valid.
func WithRepair() Option {
	return func(o *options) error {
		o.repair = true
		return nil
	}
}

// repairFooter replaces the footer that loadFooter rejected with err by the
// block walk. The footer's own bytes follow the last block: they are where
// the walk ends, not a torn tail.
func (r *Reader) repairFooter(err error) error {
	why := err.Error()
	var fe *schema.FormatError
	if errors.As(err, &fe) {
		why = fe.Section + " at byte " + itoa(int(fe.Offset)) + ": " + fe.Reason
	}
	r.blocks, r.footer = blockTable{}, nil
	if err := r.recoverBlocks("the footer is rejected: "+why, false); err != nil {
		return err
	}
	st := &r.status
	h := r.hdr
	if st.TornBytes > 0 && uint64(st.TornOffset) == h.FooterOffset && h.FooterOffset+h.FooterSize == uint64(len(r.data)) {
		st.TornBytes, st.TornReason = 0, ""
	}
	return nil
}
