package ctext

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// gValues are doubles whose %g is easy to get wrong: rounding at the sixth
// digit, the switch to exponent notation at 1e-5 and 1e6, exact ties,
// subnormals, extremes, and floats promoted to double.
func gValues() []float64 {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.5, 1.5, 2.5, 100000, 999999, 999999.5, 1e6, 1e6 - 0.5,
		123456.5, 1234565, 1234575, 0.0001, 0.00001, 0.000123456789, 1e-5, 9.999995e-5, 1e21, 1e22, 6e21, 2.25e-5,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308,
		math.Pi, math.E, 1.0 / 3, 2.0 / 3, 425.985, -144.947, 6744.86, 0.000999999, 99999.95, 99999.85,
		float64(float32(0.1)), float64(float32(3.4028235e38)), float64(math.SmallestNonzeroFloat32)}
	rng := ctracetest.SplitMix64{State: 42}
	for range 3000 {
		v := math.Float64frombits(rng.Next())
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
		f := float64(math.Float32frombits(uint32(rng.Next())))
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			vals = append(vals, f)
		}
		// Numbers of everyday size, with six-digit rounding at stake.
		vals = append(vals, float64(int64(rng.Next()%2000000)-1000000)/float64(uint64(1)<<(rng.Next()%40)))
	}
	return vals
}

// C's printf("%g") (glibc) and Python's "%g" both round the exact binary
// value correctly; Python is the reference here for every finite value.
func TestAppendCFloatMatchesC(t *testing.T) {
	if _, err := exec.LookPath(ctracetest.Python); err != nil {
		t.Skipf("!!!!! SKIPPING THE %%g COMPARISON WITH C: %s not found !!!!!", ctracetest.Python)
	}
	vals := gValues()
	var in strings.Builder
	for _, v := range vals {
		fmt.Fprintf(&in, "%016x\n", math.Float64bits(v))
	}
	cmd := exec.Command(ctracetest.Python, "-c", `
import struct, sys
for line in sys.stdin:
    (v,) = struct.unpack("<d", struct.pack("<Q", int(line, 16)))
    print("%g" % v)
`)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i, v := range vals {
		require.True(t, sc.Scan())
		require.Equal(t, sc.Text(), string(AppendCFloat(nil, v)), "%%g of %v (bits %016x)", v, math.Float64bits(v))
		_ = i
	}
}

func TestAppendCFloatSpecials(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
		{math.Copysign(math.NaN(), -1), "-nan"}, {math.Copysign(0, -1), "-0"},
		{1e6, "1e+06"}, {123456, "123456"}, {1234567, "1.23457e+06"}, {0.0001, "0.0001"}, {1e-5, "1e-05"},
		{1e100, "1e+100"}, {5e-324, "4.94066e-324"},
	} {
		require.Equal(t, c.want, string(AppendCFloat(nil, c.v)), "%v", c.v)
	}
}

func TestIntegerFormatting(t *testing.T) {
	rng := ctracetest.SplitMix64{State: 5}
	vals := []uint64{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000, 1e9 - 1, 1e9, 1e10 - 1, 1e10,
		1<<32 - 1, 1 << 32, 1e19 - 1, 1e19, math.MaxUint64, 1 << 63}
	for range 20000 {
		v := rng.Next()
		vals = append(vals, v, v>>(v%64), v%1000)
	}
	// A plain comparison per value: testify's on 540,000 pairs was most of
	// the test's time.
	eq := func(what string, v uint64, want string, got []byte) {
		if string(got) != want {
			t.Fatalf("%s(%d) = %q, want %q", what, v, got, want)
		}
	}
	for _, v := range vals {
		eq("appendUint", v, strconv.FormatUint(v, 10), appendUint(nil, v))
		eq("appendInt", v, strconv.FormatInt(int64(v), 10), appendInt(nil, int64(v)))
		eq("appendHex", v, strconv.FormatUint(v, 16), appendHex(nil, v))
		eq("AppendCycle", v, fmt.Sprintf("[%10d]", v), AppendCycle(nil, v))
		b := make([]byte, 64)
		eq("putUint", v, strconv.FormatUint(v, 10), b[3:putUint(b, 3, v)])
		eq("putHex", v, strconv.FormatUint(v, 16), b[3:putHex(b, 3, v)])
		eq("putCycle", v, fmt.Sprintf("[%10d]", v), b[1:putCycle(b, 1, v)])
		i32 := int32(v)
		eq("putInt32", v, strconv.FormatInt(int64(i32), 10), b[0:putInt32(b, 0, i32, false)])
		eq("putInt32 hex", v, strconv.FormatUint(uint64(uint32(i32)), 16), b[0:putInt32(b, 0, i32, true)])
	}
}
