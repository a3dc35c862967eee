package schema

import (
	"errors"
	"math/rand/v2"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"
)

// requireIndexAgrees checks every accessor of x against DecodeFooter's copy.
func requireIndexAgrees(t *testing.T, want *Footer, x *FooterIndex) {
	t.Helper()
	require.Equal(t, len(want.Blocks), x.Len())
	require.Nil(t, x.Footer.Blocks)
	require.Equal(t, want.TotalEvents, x.TotalEvents)
	require.Equal(t, want.MinCycle, x.MinCycle)
	require.Equal(t, want.MaxCycle, x.MaxCycle)
	require.Equal(t, want.CreatedTimestamp, x.CreatedTimestamp)
	require.Equal(t, want.UnitStats, x.UnitStats)
	scratch := make([]uint16, 0, 4)
	for i, w := range want.Blocks {
		got := x.Block(i)
		require.Nil(t, got.Units)
		got.Units = w.Units
		require.Equal(t, w, got, "block %d", i)
		require.Equal(t, w.MinCycle, x.BlockMinCycle(i))
		require.Equal(t, w.MaxCycle, x.BlockMaxCycle(i))
		require.Equal(t, w.DataOffset, x.BlockDataOffset(i))
		require.Equal(t, w.UncompressedSize, x.BlockUncompressedSize(i))
		units, ok := x.BlockUnits(i, scratch)
		require.Equal(t, w.Units != nil, ok, "block %d", i)
		if ok {
			require.NotNil(t, units)
			require.Equal(t, []uint16(w.Units), append([]uint16{}, units...))
		}
		units, ok = x.BlockUnits(i, nil)
		require.Equal(t, w.Units != nil, ok)
		require.Equal(t, w.Units == nil, units == nil, "a recorded empty list is not nil")
	}
	if want.Blocks == nil {
		require.Nil(t, x.Blocks())
	} else {
		require.Equal(t, want.Blocks, x.Blocks())
	}
	// Out-of-range entries read as zero, never panic.
	require.Equal(t, BlockIndex{}, x.Block(x.Len()))
	require.Zero(t, x.BlockMinCycle(-1))
	u, ok := x.BlockUnits(x.Len(), nil)
	require.False(t, ok)
	require.Nil(t, u)
}

func TestFooterIndexAgreesWithDecodeFooter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		f := &Footer{TotalEvents: rng.Uint64(), MinCycle: rng.Uint64(), MaxCycle: rng.Uint64(), CreatedTimestamp: rng.Uint64()}
		for i := range rng.IntN(40) {
			b := BlockIndex{Index: uint32(i), EventCount: rng.Uint32(), MinCycle: rng.Uint64(), MaxCycle: rng.Uint64(),
				UncompressedSize: rng.Uint32(), CompressedSize: rng.Uint32(), DataOffset: rng.Uint64()}
			switch rng.IntN(3) {
			case 0: // no unit list, as the original writer
			case 1:
				b.Units = []uint16{}
			default:
				for range 1 + rng.IntN(5) {
					b.Units = append(b.Units, uint16(rng.Uint32()))
				}
			}
			f.Blocks = append(f.Blocks, b)
		}
		if trial%5 == 0 {
			f.UnitStats = []UnitStat{{UnitID: 7, Emitted: 3, Written: 2, Dropped: 1}}
		}
		buf := BuildFooter(flatbuffers.NewBuilder(0), f)
		want, err := DecodeFooter(buf, 4096)
		require.NoError(t, err)
		x, err := DecodeFooterIndex(buf, 4096, nil)
		require.NoError(t, err)
		requireIndexAgrees(t, want, x)

		// The visitor sees every entry once, in order, as decoded.
		seen := 0
		_, err = DecodeFooterIndex(buf, 4096, func(i, n int, e *BlockIndex, hasUnits bool) error {
			require.Equal(t, seen, i)
			require.Equal(t, len(want.Blocks), n)
			w := want.Blocks[i]
			require.Equal(t, w.Units != nil, hasUnits)
			require.Nil(t, e.Units)
			w.Units = nil
			require.Equal(t, w, *e)
			seen++
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, len(want.Blocks), seen)
		if len(want.Blocks) > 2 {
			stop := errors.New("stop")
			_, err = DecodeFooterIndex(buf, 4096, func(i, n int, e *BlockIndex, hasUnits bool) error {
				if i == 2 {
					return stop
				}
				return nil
			})
			require.Same(t, stop, err)
		}
	}
}

func TestFooterIndexOfReferenceFile(t *testing.T) {
	b := readRef(t, "mixed-small.ctrace")
	h, err := ParseHeader(b, int64(len(b)))
	require.NoError(t, err)
	sec := b[h.FooterOffset : h.FooterOffset+h.FooterSize]
	want, err := DecodeFooter(sec, int64(h.FooterOffset))
	require.NoError(t, err)
	x, err := DecodeFooterIndex(sec, int64(h.FooterOffset), nil)
	require.NoError(t, err)
	requireIndexAgrees(t, want, x)
}

// Verification is shared: every truncation and every single-byte change of
// a footer fails in DecodeFooterIndex exactly when, and as, DecodeFooter
// fails; when both succeed they agree.
func TestFooterIndexVerifiesLikeDecodeFooter(t *testing.T) {
	f := &Footer{Blocks: []BlockIndex{
		{Index: 0, EventCount: 5, MinCycle: 1, MaxCycle: 9, UncompressedSize: 200, CompressedSize: 100, DataOffset: 128, Units: []uint16{3}},
		{Index: 1, EventCount: 6, MinCycle: 9, MaxCycle: 20, UncompressedSize: 220, CompressedSize: 220, DataOffset: 256, Units: []uint16{}},
		{Index: 2, EventCount: 1, MinCycle: 30, MaxCycle: 30, UncompressedSize: 26, CompressedSize: 26, DataOffset: 504},
	}, UnitStats: []UnitStat{{UnitID: 1}}}
	buf := BuildFooter(flatbuffers.NewBuilder(0), f)
	try := func(b []byte) {
		want, werr := DecodeFooter(b, 1000)
		x, xerr := DecodeFooterIndex(b, 1000, nil)
		if werr != nil {
			require.Error(t, xerr)
			require.Equal(t, werr.Error(), xerr.Error())
			return
		}
		require.NoError(t, xerr)
		requireIndexAgrees(t, want, x)
	}
	for n := 0; n <= len(buf); n++ {
		try(buf[:n])
	}
	for i := range buf {
		for _, v := range []byte{0, 1, 0x7f, 0xff, buf[i] ^ 0x10} {
			c := append([]byte(nil), buf...)
			c[i] = v
			try(c)
		}
	}
}
