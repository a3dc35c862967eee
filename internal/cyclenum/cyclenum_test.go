package cyclenum

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "010": 10, " 42 ": 42, "0x10": 16, "0X1f": 31, "18446744073709551615": 1<<64 - 1} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "0o7", "0b1", "1_000", "0x", "18446744073709551616"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestRange(t *testing.T) {
	for in, want := range map[string][2]uint64{
		"5-9": {5, 9}, "5-": {5, 1<<64 - 1}, "5": {5, 1<<64 - 1}, "0x10-0X20": {16, 32}, "010-020": {10, 20}, " 3 - 4 ": {3, 4},
	} {
		a, b, err := Range(in)
		if err != nil || a != want[0] || b != want[1] {
			t.Errorf("Range(%q) = %d-%d, %v; want %d-%d", in, a, b, err, want[0], want[1])
		}
	}
	for in, want := range map[string]error{"": ErrSyntax, "x": ErrSyntax, "5-y": ErrSyntax, "0o7": ErrSyntax, "9-5": ErrOrder} {
		if _, _, err := Range(in); !errors.Is(err, want) {
			t.Errorf("Range(%q): %v, want %v", in, err, want)
		}
	}
}
