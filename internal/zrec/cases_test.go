package zrec

import "bytes"

type namedInput struct {
	name string
	src  []byte
}

// coverageInputs returns inputs that together exercise every encoding path
// (see TestFeatureCoverage); the libzstd cross-check decodes them all.
func coverageInputs() []namedInput {
	blocks, _ := w1Blocks(50_000, 16, 64<<10, 1)
	in := []namedInput{
		{"w1-fetch", blocks[0]},
		{"w1-decode", blocks[1]},
		{"empty", nil},
		{"one-byte", []byte{42}},
		{"random-100", randomBytes(100, 1)},
		{"random-300k", randomBytes(300_000, 1)},
		{"mixed-multiblock", mixedBlock(30_000, 2)},
		{"inter-400", w1Interleaved(400, 16, 1)},
		{"inter-40", w1Interleaved(40, 16, 1)},
		{"inter-5", w1Interleaved(5, 16, 1)},
		{"inter-1m", w1Interleaved(70_000, 16, 1)[:1<<20]},
		{"truncated", w1Interleaved(3000, 16, 3)[:60_001]},
		{"garbage-tail", append(w1Interleaved(2000, 4, 1), randomBytes(10_000, 2)...)},
		// Zero "events" plus a 20-byte unparseable tail: 46 zero literals, RLE.
		{"zeros-rle-lits", make([]byte, 26*100+20)},
		{"zeros-big", make([]byte, 300_000)},
	}
	var same, alt []byte
	for i := 0; i < 3000; i++ { // identical events: RLE sequence modes
		same = appendEvent(same, 7, 3, 0, 0, 1, []byte{1, 2, 3, 4, 5})
	}
	for i := 0; i < 2000; i++ { // two formats, two sizes: repeat offsets
		alt = appendEvent(alt, uint64(i), 1, 0, 0, 1, []byte{byte(i), 9, 9, 9, 9, 9})
		alt = appendEvent(alt, uint64(i), 2, 0, 0, 1, []byte{byte(i >> 3), 8, 8, 8})
	}
	var few []byte
	for i := 0; i < 12; i++ { // few sequences, varied offsets: predefined tables
		few = appendEvent(few, uint64(i*i), uint32(i%3), 0, 0, 1, []byte{byte(i), 1, 2, 3, byte(i * 7)}[:2+i%4])
	}
	// A new format each time, with growing sizes: each event only matches
	// the previous one, at a new distance with a new offset code.
	var grow []byte
	for i, n := range []int{0, 10, 40, 100, 250, 600, 1300} {
		grow = appendEvent(grow, 77, uint32(100+i), 1, 1, 1, make([]byte, n))
	}
	// Events with 100 random arg bytes: incompressible literals stored raw
	// with a 2-byte header, while the records still match.
	var noisy []byte
	for i := 0; i < 10; i++ {
		noisy = appendEvent(noisy, uint64(i), 7, 0, 0, 1, randomBytes(100, uint64(i)))
	}
	var lits []byte // a few hundred skewed literals: single-stream Huffman
	for i := 0; i < 30; i++ {
		lits = appendEvent(lits, uint64(i*31), 5, 0, 0, 1, []byte{byte(i % 4), byte(i % 3), 3, 3, 3, 3})
	}
	in = append(in,
		namedInput{"identical", same},
		namedInput{"alternating", alt},
		namedInput{"few-predefined", few},
		namedInput{"growing", grow},
		namedInput{"noisy", noisy},
		namedInput{"small-huffman", lits},
		namedInput{"ones", bytes.Repeat([]byte{1}, 200_000)},
		namedInput{"big-events", appendEvent(appendEvent(nil, 1, 1, 1, 1, 1, randomBytes(65535, 1)), 2, 1, 1, 1, 1, randomBytes(65535, 1))},
	)
	return in
}
