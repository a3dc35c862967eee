package workload

import (
	"fmt"

	"github.com/chronon-sim/chronon-go/chronon"
)

// runGrowing registers its units and formats while it writes: one unit and
// one format per batch of events, with a flush after each batch, so every
// registration comes after blocks are on disk and the schema outgrows the
// default 4 KiB reserve many times (chronon appends it in schema frames,
// docs/format.md). Each batch's events go to the new unit and to the first
// one, so old units use new formats. scripts/oracle.sh checks such files.
func runGrowing(t *chronon.Tracer, events, units int, seed uint64) error {
	units = max(units, 1)
	rng := SplitMix64{State: seed}
	var first *chronon.Unit
	done := 0
	for i := range units {
		f, err := chronon.NewFormat2[uint64, uint32](fmt.Sprintf("growing format %d with a long text addr=0x{:x} n={}", i))
		if err != nil {
			return err
		}
		u, err := t.NewUnit(fmt.Sprintf("cluster%d.core%d.growing.unit.%d", i%4, i%16, i))
		if err != nil {
			return err
		}
		if first == nil {
			first = u
		}
		end := events * (i + 1) / units
		for ; done < end; done++ {
			v := rng.Next()
			target := u
			if v&1 == 0 {
				target = first
			}
			f.Emit(target, uint64(done), v, uint32(i))
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}
	return nil
}
