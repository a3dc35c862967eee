package ctext

// Escaping of text taken from the file.
//
// Unit names, format strings and string arguments are the file's bytes;
// printed raw, a trace could move the terminal's cursor, recolor it, set its
// title (ESC sequences), or forge whole lines (CR, LF: a fake event, a fake
// "Status: complete"). Every text output escapes them so one event is one
// line:
//   - bytes below 0x20 and DEL (0x7f) print as \n, \r, \t or \xHH;
//   - C1 controls written as UTF-8 (U+0080..U+009F, bytes C2 80..C2 9F;
//     U+009B is a one-byte CSI to some terminals) print as \u0080..\u009f.
//
// Everything else passes through unchanged, so a file without control
// characters prints byte-identical to the original tool: printable UTF-8,
// invalid UTF-8 (a terminal in UTF-8 mode shows it as U+FFFD and executes
// nothing) and backslashes (escaping them would change such files' output;
// so "\x1b" in the output is either an escaped ESC or those four
// characters in the file, never an ESC).

// escClass marks the bytes that may start something to escape.
var escClass = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t[0x7f], t[0xc2] = true, true
	return t
}()

// NeedsEscape reports whether s holds anything AppendEscaped changes; the
// common case (nothing) is one table lookup per byte.
func NeedsEscape[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if escClass[s[i]] && escapeAt(s, i) {
			return true
		}
	}
	return false
}

// escapeAt reports whether the byte at i (one escClass marks) is escaped.
func escapeAt[S ~string | ~[]byte](s S, i int) bool {
	return s[i] != 0xc2 || i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f
}

// AppendEscaped appends s with control characters escaped (see above).
func AppendEscaped[S ~string | ~[]byte](dst []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !escClass[c] || !escapeAt(s, i) {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case 0xc2: // U+0080..U+009F
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[s[i+1]>>4], hexDigits[s[i+1]&15])
			i++
		default:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		}
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// Escape returns s with control characters escaped (see above): s itself
// when there is nothing to escape.
func Escape(s string) string {
	if !NeedsEscape(s) {
		return s
	}
	return string(AppendEscaped(make([]byte, 0, len(s)+16), s))
}
