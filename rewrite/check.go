package rewrite

import (
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/internal/tracefile"
)

// checkBlocks decodes every block of a complete file before Complete
// copies it: the footer was checked when the file was opened, but a block's
// bytes are only checked when it is read, and a copied block that does not
// decode (arguments past its end, an inline header that disagrees with the
// footer) would make the rewritten file unreadable. A recovered file's blocks
// were verified by the walk and are not decoded again. It returns each
// block's error (nil when good) and the units verification found in it.
func checkBlocks(f *tracefile.File, blocks []tracefile.Block) (errs []error, units [][]uint16) {
	errs = make([]error, len(blocks))
	units = make([][]uint16, len(blocks))
	if f.Status().Recovered {
		for i := range blocks {
			units[i] = blocks[i].Units
		}
		return errs, units
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(f.Options().Decoders, len(blocks), f.Verifiers(blocks)) {
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
				units[i], errs[i] = f.Verify(&b)
			}
		}()
	}
	wg.Wait()
	return errs, units
}
