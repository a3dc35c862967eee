package schema

// CompleteSpanEnd returns the end cycle of a complete span (KindSpanComplete)
// that begins at cycle begin and lasts dur cycles, dur being its RoleDuration
// argument of type t as a uint64 (a signed one sign-extended). ok is false
// for a span that cannot be: its end is past the last cycle, 2^64-1 (what
// end-start stores when end is before start), or a signed duration is
// negative. Readers leave such a span out and report it rather than read a
// span of about 1.8e19 cycles.
func CompleteSpanEnd(begin, dur uint64, t ArgType) (end uint64, ok bool) {
	signed := t == ArgInt8 || t == ArgInt16 || t == ArgInt32 || t == ArgInt64
	if signed && int64(dur) < 0 || begin+dur < begin {
		return 0, false
	}
	return begin + dur, true
}
