package mmapio

import "fmt"

// ReadBlock calls fn with the uncompressed bytes of block i (the i-th of
// Blocks, file order), checked as an iteration checks them: the inline
// header agrees with the index, a zstd frame decodes to the declared size,
// the events fill the block, are as many as declared and lie in its cycle
// range. The bytes are the block's events back to back, as stored
// ([args_size][record][args], schema.DecodeEvent), in file order; they
// alias the mapping or a pooled buffer and are valid only during fn.
//
// Tools that compare or copy whole blocks (trace_reader diff) use it
// instead of an iteration, which decodes every event into an Event.
func (r *Reader) ReadBlock(i int, fn func(data []byte) error) (err error) {
	if !r.rlockMap() {
		return ErrClosed
	}
	defer r.mapMu.RUnlock()
	defer r.guardFault(&err, panicOnFault())
	if i < 0 || i >= r.blocks.len() {
		return fmt.Errorf("%s: no block %d (the file has %d)", r.path, i, r.blocks.len())
	}
	b := r.blocks.at(int32(i))
	data, buf, err := r.blockBytes(&b)
	if err != nil {
		return err
	}
	defer func() {
		if buf != nil {
			bufs.put(buf)
		}
	}()
	var bd blockData
	if err := r.scanEvents(&b, data, nil, &bd); err != nil {
		return err
	}
	return fn(data)
}
