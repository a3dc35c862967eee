package mmapio

import "github.com/chronon-sim/chronon-go/internal/ctext"

// EscapeText returns s with control characters escaped as the reader's text
// outputs print them (\x1b, \n, ...; see the package documentation): s
// itself when there is nothing to escape. For tools printing names and
// strings from a trace.
func EscapeText(s string) string { return ctext.Escape(s) }
