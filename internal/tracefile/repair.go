package tracefile

import (
	"errors"

	"github.com/chronon-sim/chronon-go/schema"
)

// repairFooter replaces the footer that loadFooter rejected with err by the
// block walk. The footer's own bytes follow the last block: they are where
// the walk ends, not a torn tail.
func (f *File) repairFooter(err error) error {
	why := err.Error()
	var fe *schema.FormatError
	if errors.As(err, &fe) {
		why = fe.Section + " at byte " + itoa(int(fe.Offset)) + ": " + fe.Reason
	}
	f.blocks, f.footer = blockTable{}, nil
	if err := f.recoverBlocks("the footer is rejected: "+why, false); err != nil {
		return err
	}
	st := &f.status
	h := f.hdr
	if st.TornBytes > 0 && uint64(st.TornOffset) == h.FooterOffset && h.FooterOffset+h.FooterSize == uint64(len(f.data)) {
		st.TornBytes, st.TornReason = 0, ""
	}
	return nil
}
