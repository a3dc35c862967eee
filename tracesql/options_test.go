package tracesql

import "testing"

// --cycles reads as every other trace_reader command reads it: A-B, A-, A,
// decimal or 0x hex (a leading zero decimal).
func TestParseCyclesForms(t *testing.T) {
	for in, want := range map[string][2]uint64{
		"5-9": {5, 9}, "5-": {5, 1<<64 - 1}, "5": {5, 1<<64 - 1}, "0x10-0X20": {16, 32}, "010-020": {10, 20},
	} {
		a, b, err := ParseCycles(in)
		if err != nil || a != want[0] || b != want[1] {
			t.Errorf("%q: %d-%d %v, want %d-%d", in, a, b, err, want[0], want[1])
		}
	}
	for _, bad := range []string{"", "x", "9-5", "0o7", "1_0", "5-y"} {
		if _, _, err := ParseCycles(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
