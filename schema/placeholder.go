package schema

import "strconv"

// Placeholder is one `{...}` in a format string: Text[Start:End] is the whole
// placeholder including the braces.
type Placeholder struct {
	Start, End int
	Hex        bool // the spec between the braces contains 'x' or 'X'
}

// Placeholders scans a format string exactly as the original reader does when
// it rebuilds a message: a '{' that is not the last byte opens a placeholder
// that runs to the next '}'; the spec between them selects hex when it holds
// an 'x' or 'X'. There is no escape for a literal brace. The number of
// placeholders is the number of arguments the format takes.
func Placeholders(format string) []Placeholder {
	var out []Placeholder
	for i := 0; i < len(format); i++ {
		if format[i] != '{' || i+1 >= len(format) {
			continue
		}
		j := i + 1
		for j < len(format) && format[j] != '}' {
			j++
		}
		if j >= len(format) {
			break // no closing brace: the rest is text
		}
		p := Placeholder{Start: i, End: j + 1}
		for k := i + 1; k < j; k++ {
			if format[k] == 'x' || format[k] == 'X' {
				p.Hex = true
			}
		}
		out = append(out, p)
		i = j
	}
	return out
}

// ArgNames derives a name for each argument of a format from the text just
// before its placeholder, so that exporters can label values: in
// "fetch pc=0x{:x} taken={}" the names are "pc" and "taken". An argument with
// no word before it is named "argN"; repeated names get a numeric suffix.
func ArgNames(format string) []string {
	ph := Placeholders(format)
	names := make([]string, len(ph))
	seen := make(map[string]int, len(ph))
	prevEnd := 0
	for i, p := range ph {
		name := nameBefore(format[prevEnd:p.Start])
		if name == "" {
			name = "arg" + strconv.Itoa(i)
		}
		if n := seen[name]; n > 0 {
			seen[name] = n + 1
			name += "_" + strconv.Itoa(n)
		} else {
			seen[name] = 1
		}
		names[i] = name
		prevEnd = p.End
	}
	return names
}

// nameBefore returns the identifier that ends text, skipping the separators
// people put between a name and its value ("=", ":", "0x", spaces).
func nameBefore(text string) string {
	end := len(text)
	for {
		trimmed := end
		for trimmed > 0 && (text[trimmed-1] == ' ' || text[trimmed-1] == '=' || text[trimmed-1] == ':' || text[trimmed-1] == '#') {
			trimmed--
		}
		if trimmed >= 2 && text[trimmed-2] == '0' && (text[trimmed-1] == 'x' || text[trimmed-1] == 'X') &&
			(trimmed == 2 || !isIdent(text[trimmed-3])) {
			trimmed -= 2
		}
		if trimmed == end {
			break
		}
		end = trimmed
	}
	start := end
	for start > 0 && isIdent(text[start-1]) {
		start--
	}
	return text[start:end]
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
