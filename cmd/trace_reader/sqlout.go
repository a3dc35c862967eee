package main

import (
	"bufio"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chronon-sim/chronon-go/tracetext"
)

// resultWriter prints query results: an aligned table (numbers to the
// right), CSV with a header row, or a JSON array of objects.
type resultWriter struct {
	w         io.Writer
	csv, json bool
}

// maxAligned is how many rows the table format holds to align them; the
// rest print with the widths of those (a wider value widens its column).
const maxAligned = 10000

func (o *resultWriter) write(rows *sql.Rows) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(o.w, 64<<10)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var emit func(cells []string, numeric []bool) error
	var finish func() error
	switch {
	case o.csv:
		cw := csv.NewWriter(bw)
		if err := cw.Write(cols); err != nil {
			return err
		}
		emit = func(cells []string, _ []bool) error {
			for i, v := range vals {
				if v == nil {
					cells[i] = "" // NULL: an empty field, as CSV readers expect
				}
			}
			return cw.Write(cells)
		}
		finish = func() error { cw.Flush(); return cw.Error() }
	case o.json:
		keys := make([][]byte, len(cols))
		for i, c := range cols {
			keys[i], _ = json.Marshal(c)
		}
		n := 0
		bw.WriteString("[")
		emit = func(cells []string, _ []bool) error {
			if n > 0 {
				bw.WriteString(",")
			}
			n++
			bw.WriteString("\n{")
			for i := range cells {
				if i > 0 {
					bw.WriteString(",")
				}
				bw.Write(keys[i])
				bw.WriteString(":")
				bw.WriteString(jsonValue(vals[i]))
			}
			bw.WriteString("}")
			return nil
		}
		finish = func() error { bw.WriteString("\n]\n"); return nil }
	default:
		t := &alignedTable{w: bw, header: cols}
		emit = t.add
		finish = t.flush
	}
	cells := make([]string, len(cols))
	numeric := make([]bool, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			cells[i], numeric[i] = textValue(v)
		}
		if err := emit(cells, numeric); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	return bw.Flush()
}

// textValue renders a value for the table and CSV formats (NULL as
// "NULL" in the table, empty in CSV: the table's caller sees numeric).
func textValue(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "NULL", false
	case string:
		return x, false
	case []byte:
		return string(x), false
	case bool:
		return strconv.FormatBool(x), false
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint, *big.Int:
		return fmt.Sprint(x), true
	case time.Time:
		return x.Format(time.RFC3339Nano), false
	}
	return fmt.Sprint(v), false
}

// jsonValue renders a value as JSON: numbers as numbers (exact integers),
// NaN and infinities as strings, other values as their text.
func jsonValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.Quote(strconv.FormatFloat(x, 'g', -1, 64))
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return jsonValue(float64(x))
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint, *big.Int:
		return fmt.Sprint(x)
	}
	s, _ := textValue(v)
	b, _ := json.Marshal(s)
	return string(b)
}

// alignedTable prints rows under a header, columns padded to their widest
// value (numbers right-aligned).
type alignedTable struct {
	w       *bufio.Writer
	header  []string
	rows    [][]string
	numeric []bool
	widths  []int
	flushed bool
}

func (t *alignedTable) add(cells []string, numeric []bool) error {
	if t.numeric == nil {
		t.numeric = append([]bool(nil), numeric...)
	}
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = tracetext.EscapeText(c) // one row, one line, nothing raw to the terminal
	}
	if t.flushed {
		t.line(row)
		return nil
	}
	t.rows = append(t.rows, row)
	if len(t.rows) >= maxAligned {
		return t.flush()
	}
	return nil
}

func (t *alignedTable) flush() error {
	if t.flushed {
		return nil
	}
	t.flushed = true
	t.widths = make([]int, len(t.header))
	for i, h := range t.header {
		t.widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
	t.line(t.header)
	sep := make([]string, len(t.header))
	for i, w := range t.widths {
		sep[i] = strings.Repeat("-", w)
	}
	t.line(sep)
	for _, r := range t.rows {
		t.line(r)
	}
	t.rows = nil
	return nil
}

func (t *alignedTable) line(cells []string) {
	for i, c := range cells {
		if i > 0 {
			t.w.WriteString("  ")
		}
		pad := max(0, t.widths[i]-utf8.RuneCountInString(c))
		right := t.numeric != nil && t.numeric[i]
		if right {
			t.w.WriteString(strings.Repeat(" ", pad))
		}
		t.w.WriteString(c)
		if !right && i < len(cells)-1 {
			t.w.WriteString(strings.Repeat(" ", pad))
		}
	}
	t.w.WriteString("\n")
}
