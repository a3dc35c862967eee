//go:build cgo

package tracesql

import (
	"encoding/binary"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// chunk is the output chunk of one call of a table function: its vectors
// and their memory, written directly. Column i of the chunk is the i-th
// column the execution reads (scanner.start's cols).
type chunk struct {
	raw   mapping.DataChunk
	vecs  []mapping.Vector
	data  []unsafe.Pointer
	valid []unsafe.Pointer // nil until a NULL is written
}

// vectorSize is the rows a chunk holds at most (DuckDB's STANDARD_VECTOR_SIZE).
var vectorSize = int(mapping.VectorSize())

func (c *chunk) reset(raw mapping.DataChunk) {
	c.raw = raw
	n := int(mapping.DataChunkGetColumnCount(raw))
	if cap(c.vecs) < n {
		c.vecs, c.data, c.valid = make([]mapping.Vector, n), make([]unsafe.Pointer, n), make([]unsafe.Pointer, n)
	}
	c.vecs, c.data, c.valid = c.vecs[:n], c.data[:n], c.valid[:n]
	for i := range n {
		c.vecs[i] = mapping.DataChunkGetVector(raw, mapping.IdxT(i))
		c.data[i] = mapping.VectorGetData(c.vecs[i])
		c.valid[i] = nil
	}
}

func (c *chunk) setSize(n int) { mapping.DataChunkSetSize(c.raw, mapping.IdxT(n)) }

// column returns column i's memory as a slice of T (the type must be the
// column's physical type).
func column[T any](c *chunk, i int) []T {
	return unsafe.Slice((*T)(c.data[i]), vectorSize)
}

// setNull makes row of column i NULL.
func (c *chunk) setNull(i, row int) {
	if c.valid[i] == nil {
		mapping.VectorEnsureValidityWritable(c.vecs[i])
		c.valid[i] = mapping.VectorGetValidity(c.vecs[i])
	}
	mask := unsafe.Slice((*uint64)(c.valid[i]), (vectorSize+63)/64)
	mask[row/64] &^= 1 << (row % 64)
}

// stringInline is the longest string DuckDB stores inside its 16-byte
// string_t (longer ones point into the vector's own heap).
const stringInline = 12

// setString writes b into row of VARCHAR column i: a string of up to 12
// bytes in place (DuckDB's inlined string_t: length, then the bytes,
// zero-padded), a longer one through the C API, which copies it into the
// vector's heap.
func (c *chunk) setString(i, row int, b []byte) {
	if len(b) > stringInline {
		mapping.VectorAssignStringElementLen(c.vecs[i], mapping.IdxT(row), b)
		return
	}
	s := (*[16]byte)(unsafe.Add(c.data[i], row*16))
	*s = [16]byte{}
	binary.LittleEndian.PutUint32(s[:4], uint32(len(b)))
	copy(s[4:], b)
}

// constant makes column i hold v on every row (a constant vector). v is
// the caller's (DuckDB copies it).
func (c *chunk) constant(i int, v mapping.Value) {
	mapping.VectorReferenceValue(c.vecs[i], v)
}

// constString makes VARCHAR column i hold s on every row.
func (c *chunk) constString(i int, s []byte) {
	v := mapping.CreateVarcharLength(unsafe.String(unsafe.SliceData(s), len(s)), mapping.IdxT(len(s)))
	c.constant(i, v)
	mapping.DestroyValue(&v)
}

// dictionary makes VARCHAR column i a dictionary vector: row r holds
// values[idx[r]] for r < len(idx). The distinct values are written once.
// The selection is a new one each time: the dictionary vector shares its
// data (DuckDB's SelectionData is reference-counted, so destroying our
// handle at once is safe) and must not see it change.
func (c *chunk) dictionary(i int, values [][]byte, idx []uint32) {
	for k, v := range values {
		c.setString(i, k, v)
	}
	sv := mapping.CreateSelectionVector(mapping.IdxT(len(idx)))
	sel := unsafe.Slice((*uint32)(unsafe.Pointer(mapping.SelectionVectorGetDataPtr(sv))), len(idx))
	copy(sel, idx)
	mapping.SliceVector(c.vecs[i], sv, mapping.IdxT(len(idx)))
	mapping.DestroySelectionVector(&sv)
}
