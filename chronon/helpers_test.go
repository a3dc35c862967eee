package chronon_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/schema"
)

// The formats the tests emit with, registered once for the test binary.
// Between them they cover all 13 argument types.
var (
	fmtOnce sync.Once
	fmts    testFormats
)

type testFormats struct {
	none    *chronon.Format0
	u64b    *chronon.Format2[uint64, bool]
	ints    *chronon.Format7[int8, int16, int32, int64, uint8, uint16, uint32]
	mixed   *chronon.Format6[uint64, float32, float64, uintptr, string, bool]
	str     *chronon.Format1[string]
	strs    *chronon.Format3[string, uint32, string]
	named   *chronon.Format2[int, uint]
	cat4    *chronon.Format1[uint32]
	emitter []emitFunc
}

// emitFunc emits one random event of some format and returns what the file
// must then hold for it, encoded independently of the runtime.
type emitFunc func(u *chronon.Unit, cycle uint64, rng *rand.Rand) rbEvent

func formats(t testing.TB) *testFormats {
	fmtOnce.Do(func() {
		f := &fmts
		f.none = chronon.MustFormat0("tick")
		f.u64b = chronon.MustFormat2[uint64, bool]("fetch pc=0x{:x} taken={}", chronon.WithCategory(2))
		f.ints = chronon.MustFormat7[int8, int16, int32, int64, uint8, uint16, uint32]("i8={} i16={:x} i32={} i64={:x} u8={} u16={} u32={:x}")
		f.mixed = chronon.MustFormat6[uint64, float32, float64, uintptr, string, bool]("u64={} f={} d={} p={} s={} b={}")
		f.str = chronon.MustFormat1[string]("msg {}")
		f.strs = chronon.MustFormat3[string, uint32, string]("a={} n={} b={}")
		f.named = chronon.MustFormat2[int, uint]("int={} uint={}")
		f.cat4 = chronon.MustFormat1[uint32]("cat4 {}", chronon.WithCategory(4))
		f.emitter = []emitFunc{
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				f.none.Emit(u, c)
				return ev(c, f.none.ID(), 1, u, 0, nil)
			},
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				pc, tk := r.Uint64(), r.IntN(2) == 1
				f.u64b.Emit(u, c, pc, tk)
				return ev(c, f.u64b.ID(), 2, u, 2, cat(u64(pc), boolb(tk)))
			},
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				a, b, cc, d := int8(r.Uint32()), int16(r.Uint32()), int32(r.Uint32()), int64(r.Uint64())
				e, g, h := uint8(r.Uint32()), uint16(r.Uint32()), r.Uint32()
				f.ints.Emit(u, c, a, b, cc, d, e, g, h)
				return ev(c, f.ints.ID(), 1, u, 7, cat([]byte{byte(a)}, le16(uint16(b)), le32(uint32(cc)), u64(uint64(d)), []byte{e}, le16(g), le32(h)))
			},
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				a, fl, d, p := r.Uint64(), float32(r.NormFloat64()), r.ExpFloat64(), uintptr(r.Uint64())
				s := randString(r, 40)
				b := r.IntN(2) == 0
				f.mixed.Emit(u, c, a, fl, d, p, s, b)
				return ev(c, f.mixed.ID(), 1, u, 6, cat(u64(a), le32(math.Float32bits(fl)), u64(math.Float64bits(d)), u64(uint64(p)), []byte(s), []byte{0}, boolb(b)))
			},
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				s := randString(r, 300)
				f.str.Emit(u, c, s)
				return ev(c, f.str.ID(), 1, u, 1, cat([]byte(s), []byte{0}))
			},
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				a, n, b := randString(r, 10), r.Uint32(), randString(r, 10)
				f.strs.Emit(u, c, a, n, b)
				return ev(c, f.strs.ID(), 1, u, 3, cat([]byte(a), []byte{0}, le32(n), []byte(b), []byte{0}))
			},
			func(u *chronon.Unit, c uint64, r *rand.Rand) rbEvent {
				i, n := int(r.Uint64()), uint(r.Uint64())
				f.named.Emit(u, c, i, n)
				return ev(c, f.named.ID(), 1, u, 2, cat(u64(uint64(i)), u64(uint64(n))))
			},
		}
	})
	return &fmts
}

func ev(cycle uint64, id uint32, category uint32, u *chronon.Unit, argc uint8, args []byte) rbEvent {
	return rbEvent{rec: schema.Record{Cycle: cycle, FormatID: id, Category: category, SourceID: u.ID(), ArgCount: argc}, args: string(args)}
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func boolb(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

// randString returns printable text without NUL, of length 0..max.
func randString(r *rand.Rand, max int) string {
	n := r.IntN(max + 1)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteByte(byte('a' + r.IntN(26)))
	}
	return sb.String()
}

func create(t testing.TB, opts ...chronon.Option) (*chronon.Tracer, string) {
	t.Helper()
	path := t.TempDir() + "/t.ctrace"
	tr, err := chronon.Create(path, append([]chronon.Option{chronon.WithAutoMetadata(false)}, opts...)...)
	require.NoError(t, err)
	return tr, path
}

func units(t testing.TB, tr *chronon.Tracer, n int) []*chronon.Unit {
	t.Helper()
	us := make([]*chronon.Unit, n)
	for i := range us {
		u, err := tr.NewUnit("u" + itoa(i))
		require.NoError(t, err)
		us[i] = u
	}
	return us
}

func itoa(i int) string { return strconv.Itoa(i) }
