//go:build !amd64 || noasm

package zrec

// seqLoop writes the sequences' bitstream: seqLoopGo, the portable loop.
func seqLoop(out []byte, pos, limit int, seqs []seq, tabs *seqTables, st *seqState) int {
	return seqLoopGo(out, pos, limit, seqs, tabs, st)
}
