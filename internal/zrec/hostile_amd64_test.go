//go:build amd64 && !noasm

package zrec

// encodeVariants encodes src with fresh encoders under every choice of
// loops this build has: the assembly match loop or the Go one, and the
// BMI2 sequence and Huffman loops or the plain ones.
func encodeVariants(src []byte, opts ...Option) [][]byte {
	bmi2 := hasBMI2
	defer func() { useMatchAsm, hasBMI2 = true, bmi2 }()
	var frames [][]byte
	for _, asm := range []bool{true, false} {
		for _, b := range []bool{bmi2, false} {
			useMatchAsm, hasBMI2 = asm, b
			frames = append(frames, newTestEncoder(opts...).EncodeAll(src, nil))
		}
	}
	return frames
}
