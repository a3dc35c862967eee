package tracesql

import "strings"

// QuoteTables returns query with the table names in reserved (a set of
// lower-case names) double-quoted where they follow FROM, JOIN, DESCRIBE,
// SUMMARIZE or TABLE: a format's table is named by its first word, and
// some first words (fetch) are SQL keywords that a parser refuses as a bare
// table name. String literals, quoted identifiers and comments are left as
// they are.
func QuoteTables(query string, reserved map[string]bool) string {
	if len(reserved) == 0 {
		return query
	}
	var b strings.Builder
	prev := "" // the previous word, lower-cased
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(query) {
				if query[j] == c {
					if j+1 < len(query) && query[j+1] == c { // doubled: an escaped quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(query))
			b.WriteString(query[i:j])
			prev, i = "", j
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j
		case c == '/' && i+1 < len(query) && query[i+1] == '*':
			j := strings.Index(query[i+2:], "*/")
			end := len(query)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(query[i:end])
			i = end
		case isWordByte(c):
			j := i
			for j < len(query) && isWordByte(query[j]) {
				j++
			}
			w := query[i:j]
			lw := strings.ToLower(w)
			if reserved[lw] && (prev == "from" || prev == "join" || prev == "describe" || prev == "summarize" || prev == "table") {
				b.WriteString(`"` + w + `"`)
			} else {
				b.WriteString(w)
			}
			prev, i = lw, j
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				prev = ""
			}
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
