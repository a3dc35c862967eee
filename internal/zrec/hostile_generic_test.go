//go:build !amd64 || noasm

package zrec

// encodeVariants: this build has only the Go loops.
func encodeVariants(src []byte, opts ...Option) [][]byte {
	return [][]byte{newTestEncoder(opts...).EncodeAll(src, nil)}
}
