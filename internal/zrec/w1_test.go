package zrec

import "encoding/binary"

// Test and benchmark workloads.

// splitmix64 is the W1 PRNG.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9E3779B97F4A7C15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// appendEvent appends one event: [args_size][cycle][format][category]
// [source][arg_count][5 zero bytes][args].
func appendEvent(b []byte, cycle uint64, format, category uint32, source uint16, argc uint8, args []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(args)))
	b = binary.LittleEndian.AppendUint64(b, cycle)
	b = binary.LittleEndian.AppendUint32(b, format)
	b = binary.LittleEndian.AppendUint32(b, category)
	b = binary.LittleEndian.AppendUint16(b, source)
	b = append(b, argc, 0, 0, 0, 0, 0)
	return append(b, args...)
}

// w1Blocks generates n W1 events over units simulator units and returns
// each unit's blocks (at most blockSize bytes each), in completion order,
// followed by the partial last block of every unit.
func w1Blocks(n, units, blockSize int, seed uint64) (blocks [][]byte, events []int) {
	rng := splitmix64(seed)
	cur := make([][]byte, units)
	cnt := make([]int, units)
	cycle := uint64(1000)
	var ev, args []byte
	for i := 0; i < n; i++ {
		if rng.next()%3 == 0 {
			cycle += rng.next() % 5
		}
		unit := 1 + i%units
		args = args[:0]
		var format uint32
		var argc uint8
		if i%2 == 0 {
			format, argc = 1, 2
			pc := uint64(0x400000 + (i*4)%65536)
			args = binary.LittleEndian.AppendUint64(args, pc)
			args = append(args, byte(rng.next()&1))
		} else {
			format, argc = 2, 3
			uop := uint32(rng.next())
			srcs := uint8(rng.next())
			dst := int16(rng.next())
			args = binary.LittleEndian.AppendUint32(args, uop)
			args = append(args, srcs)
			args = binary.LittleEndian.AppendUint16(args, uint16(dst))
		}
		ev = appendEvent(ev[:0], cycle, format, 2, uint16(unit), argc, args)
		u := unit - 1
		if len(cur[u])+len(ev) > blockSize {
			blocks = append(blocks, cur[u])
			events = append(events, cnt[u])
			cur[u], cnt[u] = nil, 0
		}
		if cur[u] == nil {
			cur[u] = make([]byte, 0, blockSize)
		}
		cur[u] = append(cur[u], ev...)
		cnt[u]++
	}
	for u := range cur {
		if len(cur[u]) > 0 {
			blocks = append(blocks, cur[u])
			events = append(events, cnt[u])
		}
	}
	return blocks, events
}

// w1Interleaved returns n W1-style events of all units in one buffer (one
// block holding several formats and sources), truncated to max bytes.
func w1Interleaved(n, units int, seed uint64) []byte {
	rng := splitmix64(seed)
	cycle := uint64(1000)
	var out, args []byte
	for i := 0; i < n; i++ {
		if rng.next()%3 == 0 {
			cycle += rng.next() % 5
		}
		args = args[:0]
		if i%2 == 0 {
			args = binary.LittleEndian.AppendUint64(args, uint64(0x400000+(i*4)%65536))
			args = append(args, byte(rng.next()&1))
			out = appendEvent(out, cycle, 1, 2, uint16(1+i%units), 2, args)
		} else {
			args = binary.LittleEndian.AppendUint32(args, uint32(rng.next()))
			args = append(args, uint8(rng.next()))
			args = binary.LittleEndian.AppendUint16(args, uint16(rng.next()))
			out = appendEvent(out, cycle, 2, 2, uint16(1+i%units), 3, args)
		}
	}
	return out
}

// mixedBlock returns events of many formats with fixed and variable sizes
// (string args), several categories and sources, and occasional bursts.
func mixedBlock(n int, seed uint64) []byte {
	rng := splitmix64(seed)
	cycle := uint64(5)
	var out, args []byte
	words := []string{"load", "store", "branch-mispredict", "", "x", "a rather long string argument that repeats"}
	for i := 0; i < n; i++ {
		cycle += rng.next() % 3
		r := rng.next()
		format := uint32(r%7) + 10
		if r%97 == 0 {
			format = uint32(rng.next()) // rare or unique format ids, incl. slot collisions
		}
		args = args[:0]
		var argc uint8
		switch format {
		case 10, 11:
			args = binary.LittleEndian.AppendUint64(args, 0x1000+uint64(i)*8)
			argc = 1
		case 12:
			w := words[rng.next()%uint64(len(words))]
			args = binary.LittleEndian.AppendUint16(args, uint16(len(w)))
			args = append(args, w...)
			argc = 1
		case 13:
			args = binary.LittleEndian.AppendUint32(args, uint32(rng.next()))
			args = binary.LittleEndian.AppendUint32(args, uint32(i))
			argc = 2
		case 14:
			// no args
		case 15:
			n := int(rng.next() % 300)
			for j := 0; j < n; j++ {
				args = append(args, byte(j*7))
			}
			argc = 1
		default:
			k := int(rng.next() % 40)
			for j := 0; j < k; j++ {
				args = append(args, byte(rng.next()))
			}
			argc = uint8(k)
		}
		out = appendEvent(out, cycle, format, uint32(r>>40)%4, uint16(r>>50)%3, argc, args)
	}
	return out
}

// randomBytes returns n pseudo-random bytes.
func randomBytes(n int, seed uint64) []byte {
	rng := splitmix64(seed)
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], rng.next())
		copy(b[i:], w[:])
	}
	return b
}
