// Package catmap matches the category bits of several files by name.
//
// A category is a name for bits of a format's 64-bit category mask; an
// event carries the low 32 bits of its format's mask. Two runs of one
// simulator may register the same categories in another order, so the
// same bit means "stall" in one file and "exec" in the other. Whatever
// compares or joins files (a merge, a diff) maps each file's bits to one
// numbering first: a bit is known by the names of the categories whose
// masks hold it, and a bit no category names by its number.
//
// The first file added keeps its numbering. A later file's bit takes the
// bit its names already have, else its own number when that is free, else
// the lowest free bit (among the low 32 for a low bit, which events
// carry).
package catmap

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/schema"
)

// Map translates the category bits of one file into the table's
// numbering. The zero Map keeps every bit.
type Map struct {
	to    [64]uint64 // the output bit of each input bit (a single bit), when moved
	moved bool
}

// Identity reports whether every bit keeps its number.
func (m *Map) Identity() bool { return !m.moved }

// Mask translates a 64-bit category mask (a format's, a category's).
func (m *Map) Mask(v uint64) uint64 {
	if !m.moved {
		return v
	}
	var out uint64
	for v != 0 {
		i := bits.TrailingZeros64(v)
		v &= v - 1
		out |= m.to[i]
	}
	return out
}

// Field translates an event's 32-bit category field.
func (m *Map) Field(v uint32) uint32 { return uint32(m.Mask(uint64(v))) }

// Table is the numbering the files are mapped into, built by adding them
// in order.
type Table struct {
	bitOf map[string]int // a bit's key (keys) -> its output bit
	owner [64]string     // key of each output bit; "" free
	cats  []schema.Category
	names map[string]bool
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{bitOf: map[string]int{}, names: map[string]bool{}} }

// keys returns the key of each bit of a file with categories cats: the
// names of the categories whose masks hold it, numbered among the bits
// with the same names ("a" of mask 0b11 is two bits: "=a/0" and "=a/1"),
// or "#N" for bit N that no category names.
func keys(cats []schema.Category) [64]string {
	var k [64]string
	seen := map[string]int{}
	for i := range 64 {
		var names []string
		for _, c := range cats {
			if c.Mask&(1<<i) != 0 && !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
		if len(names) == 0 {
			k[i] = "#" + strconv.Itoa(i)
			continue
		}
		slices.Sort(names)
		base := "=" + strings.Join(names, "\x00")
		k[i] = base + "/" + strconv.Itoa(seen[base])
		seen[base]++
	}
	return k
}

// Add maps a file with categories cats whose formats have the category
// masks masks into the table, and adds its categories (those of a name
// the table has are the first file's). It fails only when the files have
// more distinct bits than a mask holds (or than the low 32 bits hold, for
// the bits events carry).
func (t *Table) Add(cats []schema.Category, masks []uint64) (Map, error) {
	var m Map
	k := keys(cats)
	var mentioned uint64
	for _, c := range cats {
		mentioned |= c.Mask
	}
	for _, v := range masks {
		mentioned |= v
	}
	// The bits the file mentions claim their output bits; a bit it does not
	// mention (no category names it, no format's mask holds it: only
	// events of the original writer, whose formats have no masks, can
	// carry it) keeps its number.
	for i := range 64 {
		if mentioned&(1<<i) == 0 {
			m.to[i] = 1 << i
			continue
		}
		if b, ok := t.bitOf[k[i]]; ok {
			m.to[i] = 1 << b
			continue
		}
		b := t.free(i)
		if b < 0 {
			return Map{}, fmt.Errorf("the files use more than %d distinct category bits", map[bool]int{true: 32, false: 64}[i < 32])
		}
		t.bitOf[k[i]], t.owner[b] = b, k[i]
		m.to[i] = 1 << b
	}
	for i := range 64 {
		m.moved = m.moved || m.to[i] != 1<<i
	}
	for _, c := range cats {
		if !t.names[c.Name] {
			t.names[c.Name] = true
			c.Mask = m.Mask(c.Mask)
			t.cats = append(t.cats, c)
		}
	}
	return m, nil
}

// free returns the output bit for input bit i: i when free, else the
// lowest free bit (a low bit stays among the low 32, which events carry);
// -1 when none is.
func (t *Table) free(i int) int {
	if t.owner[i] == "" {
		return i
	}
	hi := 64
	if i < 32 {
		hi = 32
	}
	for b := range hi {
		if t.owner[b] == "" {
			return b
		}
	}
	return -1
}

// Categories returns the table's categories: each name once, with its
// mask in the table's numbering, in the order the files named them.
func (t *Table) Categories() []schema.Category { return t.cats }
