package tracetext

import "fmt"

// ImpossibleSpanCause says what a complete span that ends before it begins
// is, for the warnings of the commands that leave such spans out.
const ImpossibleSpanCause = "begin + duration past the last cycle: a writer stored end-start with end before start"

// ImpossibleSpan describes a complete span that ends before it begins, as
// stats, the exports and SQL name the first they left out: "span exec on
// core0 at cycle 200, duration -50" (names escaped as in a dump, the
// duration as recorded read as signed).
func ImpossibleSpan(span, unit string, cycle, dur uint64) string {
	return fmt.Sprintf("span %s on %s at cycle %d, duration %d", EscapeText(span), EscapeText(unit), cycle, int64(dur))
}
