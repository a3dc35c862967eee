package chronon

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The control block is part of the C ABI: docs/ring.md gives these offsets
// and cgo/chronon.h asserts the same ones with _Static_assert.
func TestRingHeaderLayout(t *testing.T) {
	var h ringHdr
	want := map[string][2]uintptr{
		"head":       {unsafe.Offsetof(h.head), 0},
		"tail":       {unsafe.Offsetof(h.tail), 64},
		"mask":       {unsafe.Offsetof(h.mask), 128},
		"lim":        {unsafe.Offsetof(h.lim), 136},
		"off":        {unsafe.Offsetof(h.off), 140},
		"chunk":      {unsafe.Offsetof(h.chunk), 144},
		"head_local": {unsafe.Offsetof(h.headLocal), 152},
		"has_chunk":  {unsafe.Offsetof(h.hasChunk), 160},
		"flags":      {unsafe.Offsetof(h.flags), 164},
		"dropped":    {unsafe.Offsetof(h.dropped), 168},
		"waits":      {unsafe.Offsetof(h.waits), 176},
		"src_word":   {unsafe.Offsetof(h.srcWord), 184},
		"chunk_size": {unsafe.Offsetof(h.chunkSize), 192},
		"n_chunks":   {unsafe.Offsetof(h.nChunks), 196},
		"max_args":   {unsafe.Offsetof(h.maxArgs), 200},
		"policy":     {unsafe.Offsetof(h.policy), 204},
		"data_off":   {unsafe.Offsetof(h.dataOff), 208},
		"handle":     {unsafe.Offsetof(h.handle), 216},
		"magic":      {unsafe.Offsetof(h.magic), 224},
		"version":    {unsafe.Offsetof(h.version), 228},
		"win_lo":     {unsafe.Offsetof(h.winLo), 232},
		"win_span":   {unsafe.Offsetof(h.winSpan), 240},
		"lock":       {unsafe.Offsetof(h.lock), 248},
		"shared":     {unsafe.Offsetof(h.shared), 252},
	}
	for name, o := range want {
		require.Equal(t, o[1], o[0], name)
	}
	require.Equal(t, uintptr(ringHdrSize), unsafe.Sizeof(h))
	r := newRing(4096, 4)
	require.Equal(t, uintptr(0), uintptr(unsafe.Pointer(r.hdr))%8, "8-byte aligned atomics")
	require.Equal(t, uint64(320), r.hdr.dataOff, "lens follow the header; data is 64-aligned")
	require.Equal(t, uint32(ringMagic), r.hdr.magic)
}
