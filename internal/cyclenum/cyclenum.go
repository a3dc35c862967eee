// Package cyclenum reads the cycle numbers and cycle ranges that users
// type: CHRONON_TRACE's cycles= (chronon), trace_reader's --cycles and the
// SQL tables' cycles parameter (tracesql) all read them here, so that one
// spelling means one thing everywhere.
package cyclenum

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Parse reads a decimal or 0x hex cycle, spaces around it ignored. Not
// strconv's base 0: a leading zero stays decimal (010 is ten), and 0o, 0b
// and _ are refused.
func Parse(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}

// Errors of Range, which callers word for their syntax.
var (
	ErrSyntax = errors.New("want START-END, START- or START (decimal or 0x hex)")
	ErrOrder  = errors.New("end before start")
)

// Range reads START-END (inclusive), START- or START, each number as Parse
// reads it; a missing END is MaxUint64 (START alone means from START on).
func Range(s string) (start, end uint64, err error) {
	lo, hi, hasHi := strings.Cut(s, "-")
	if start, err = Parse(lo); err != nil {
		return 0, 0, ErrSyntax
	}
	end = math.MaxUint64
	if hi = strings.TrimSpace(hi); hasHi && hi != "" {
		if end, err = Parse(hi); err != nil {
			return 0, 0, ErrSyntax
		}
		if end < start {
			return 0, 0, ErrOrder
		}
	}
	return start, end, nil
}
