package zdec

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/bufpool"
)

// blockData is what a block holds: events with a little variety.
func blockData() []byte {
	data := bytes.Repeat([]byte("0123456789abcdefXYZ"), 3000)
	for i := range data {
		if i%7 == 0 {
			data[i] = byte(i)
		}
	}
	return data
}

func encode(t *testing.T, data []byte, crc, fcs bool) []byte {
	t.Helper()
	var enc *zstd.Encoder
	var err error
	if fcs {
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderCRC(crc), zstd.WithSingleSegment(true))
		require.NoError(t, err)
		return enc.EncodeAll(data, nil)
	}
	// A streaming encoder's frame: no content size.
	var out bytes.Buffer
	enc, err = zstd.NewWriter(&out, zstd.WithEncoderCRC(crc))
	require.NoError(t, err)
	_, err = enc.Write(data[:len(data)/2])
	require.NoError(t, err)
	require.NoError(t, enc.Flush()) // the size is not known when the frame starts
	_, err = enc.Write(data[len(data)/2:])
	require.NoError(t, err)
	require.NoError(t, enc.Close())
	return out.Bytes()
}

// A frame's content checksum is verified on both decoding paths (frames
// with their content size, and streamed ones without): every single-bit
// flip of a checksummed frame is an error, and one in the checksum itself
// says "checksum mismatch".
func TestDecodeVerifiesContentChecksum(t *testing.T) {
	data := blockData()
	for _, fcs := range []bool{true, false} {
		src := encode(t, data, true, fcs)
		var zh zstd.Header
		require.NoError(t, zh.Decode(src))
		require.True(t, zh.HasCheckSum)
		require.Equal(t, fcs, zh.HasFCS)
		out, buf, err := Decode(src, len(data), nil)
		require.NoError(t, err)
		require.Equal(t, data, out)
		putBuf(buf)

		c := bytes.Clone(src)
		c[len(c)-1] ^= 0x10
		_, _, err = Decode(c, len(data), nil)
		require.ErrorContains(t, err, "checksum mismatch", "fcs %v", fcs)

		// Every bit of the frame header and checksum, a sample of the
		// rest (a streamed frame costs a decoder and its window each).
		step := 11
		if !fcs {
			step = 499
		}
		if testing.Short() {
			step *= 8
		} else if raceEnabled {
			// One goroutine decodes: the race detector adds nothing to
			// the campaign but time. The bits flipped all (the header and
			// checksum of the frame with a content size) still are; the
			// rest is sampled a quarter as densely.
			step *= 4
		}
		for bit := 0; bit < 8*len(src); bit++ {
			if (!fcs || bit >= 8*16 && bit < 8*(len(src)-4)) && bit%step != 0 {
				continue
			}
			c := bytes.Clone(src)
			c[bit/8] ^= 1 << (bit % 8)
			out, buf, err := Decode(c, len(data), nil)
			if err == nil {
				// A flip that changes nothing decoded (an unused bit of a
				// header) is harmless; one that changes the data is not.
				require.Equal(t, data, out, "fcs %v: byte %d bit %d read as data", fcs, bit/8, bit%8)
			}
			putBuf(buf)
		}
	}
}

// A frame whose checksum flag is cleared ends 4 bytes before the block's
// data does (its checksum left over); one whose flag is set runs 4 bytes
// past. Both are errors, saying so.
func TestDecodeFrameMustFillTheData(t *testing.T) {
	data := blockData()
	src := encode(t, data, true, true)
	c := bytes.Clone(src)
	c[4] &^= 4 // Frame_Header_Descriptor: Content_Checksum_flag
	_, _, err := Decode(c, len(data), nil)
	require.ErrorContains(t, err, "4 bytes that are not a zstd frame follow")

	src = encode(t, data, false, true)
	c = bytes.Clone(src)
	c[4] |= 4
	_, _, err = Decode(c, len(data), nil)
	require.ErrorContains(t, err, "where its 4-byte checksum would be")
	_, _, err = Decode(append(bytes.Clone(src), 1, 2), len(data), nil)
	require.ErrorContains(t, err, "2 bytes that are not a zstd frame follow")
}

func putBuf(buf *[]byte) {
	if buf != nil {
		bufpool.Put(buf)
	}
}
