package mmapio

import (
	"sync"
	"sync/atomic"
)

// checkBlocks decodes every block of a complete file before WriteComplete
// copies it: the footer was checked when the file was opened, but a block's
// bytes are only checked when it is read, and a copied block that does not
// decode (arguments past its end, an inline header that disagrees with the
// footer) would make the rewritten file unreadable. A recovered file's blocks
// were verified by the walk and are not decoded again. It returns each
// block's error (nil when good) and the units verification found in it.
func (r *Reader) checkBlocks(blocks []Block) (errs []error, units [][]uint16) {
	errs = make([]error, len(blocks))
	units = make([][]uint16, len(blocks))
	if r.f.Status().Recovered {
		for i := range blocks {
			units[i] = blocks[i].Units
		}
		return errs, units
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(r.opts.decoders, len(blocks), r.f.Verifiers(blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(blocks) {
					return
				}
				b := blocks[i]
				b.Units = nil // the copy records the units found, whatever the footer said
				units[i], errs[i] = r.f.Verify(&b)
			}
		}()
	}
	wg.Wait()
	return errs, units
}
