package tracefile

// UnitCheck says whether an event's unit is one its block's footer entry
// lists. A unit query skips the blocks whose entry does not list a wanted
// unit and takes every event of a block whose listed units are all wanted,
// so an entry that lies loses or adds events silently: decoding a block
// checks each event against the entry. Most blocks hold one unit (the
// writer's default), checked by one comparison.
type UnitCheck struct {
	n   int // units listed; 0: the entry lists none, nothing is checked
	one uint16
	set []uint64 // bit per listed unit when n > 1
}

// NewUnitCheck checks against units, a block's footer entry's list (nil:
// none, nothing is checked).
func NewUnitCheck(units []uint16) UnitCheck {
	c := UnitCheck{n: len(units)}
	switch {
	case c.n == 1:
		c.one = units[0]
	case c.n > 1:
		c.set = make([]uint64, int(maxUnit(units))/64+1)
		for _, u := range units {
			c.set[u/64] |= 1 << (u % 64)
		}
	}
	return c
}

func maxUnit(units []uint16) uint16 {
	var m uint16
	for _, u := range units {
		m = max(m, u)
	}
	return m
}

// OK reports whether unit u is listed (always, when none are).
func (c *UnitCheck) OK(u uint16) bool {
	switch {
	case c.n == 0:
		return true
	case c.n == 1:
		return u == c.one
	}
	i := int(u / 64)
	return i < len(c.set) && c.set[i]&(1<<(u%64)) != 0
}
