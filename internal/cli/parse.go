package cli

import (
	"fmt"
	"strings"
)

// UsageError is a command line the tool cannot run (exit status 2).
// Unknown is the argument when it is an option no row of the table has.
type UsageError struct {
	Msg     string
	Unknown string
}

func (e *UsageError) Error() string { return e.Msg }

// Parse reads args with opts. Each option found is handed to set with its
// row's index in opts, the spelling used and its value ("" for a switch);
// the operands are returned in order. The syntax:
//
//	--name value, --name=value   a long option and its value
//	-x value                     a short alias (-o FILE)
//	--switch, -x                 an option without a value
//	--                           every later argument is an operand
//	-                            an operand (standard input or output)
//
// Options and operands may come in any order. When old is non-nil, Go's
// flag syntax of the tools' first releases is accepted too (-name and
// -name=value for --name, -x=value for -x) and old is called with the
// spelling used and the one to write instead, for a deprecation note.
func Parse(args []string, opts []*Option, set func(row int, name, value string) error, old func(used, instead string)) ([]string, error) {
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(operands, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			name, value, hasValue = strings.Cut(a, "=")
		}
		row := find(opts, name)
		if row < 0 && old != nil {
			n, v, hv := strings.Cut(a, "=")
			if r := find(opts, "-"+n); r >= 0 && !strings.HasPrefix(n, "--") {
				row, name, value, hasValue = r, "-"+n, v, hv
				old(a, instead(name, value, hv))
			} else if r := find(opts, n); r >= 0 && hv {
				row, name, value, hasValue = r, n, v, hv
				old(a, instead(name, value, hv))
			}
		}
		if row < 0 {
			return nil, &UsageError{Msg: fmt.Sprintf("unknown option %q", a), Unknown: name}
		}
		o := opts[row]
		switch {
		case o.Arg == "" && hasValue:
			return nil, &UsageError{Msg: fmt.Sprintf("option %s takes no value", name)}
		case o.Arg != "" && !hasValue:
			if i+1 >= len(args) {
				return nil, &UsageError{Msg: fmt.Sprintf("option %s needs a value (%s)", name, o.Arg)}
			}
			i++
			value = args[i]
		}
		if err := set(row, name, value); err != nil {
			return nil, err
		}
	}
	return operands, nil
}

// instead is how a deprecated spelling is written now.
func instead(name, value string, hasValue bool) string {
	if !hasValue {
		return name
	}
	if strings.HasPrefix(name, "--") {
		return name + "=" + value
	}
	return name + " " + value
}

func find(opts []*Option, name string) int {
	for i, o := range opts {
		for _, n := range o.Names {
			if n == name {
				return i
			}
		}
	}
	return -1
}

// Deprecated is the note for an old spelling Parse accepted.
func Deprecated(tool, used, instead string) string {
	return fmt.Sprintf("%s: %s is deprecated and will stop working in the next release: write %s", tool, used, instead)
}

// Flag is an option with what it sets in a tool's configuration C.
type Flag[C any] struct {
	Option
	Set func(c C, value string) error
}

// Options returns the Option of each flag.
func Options[C any](flags []*Flag[C]) []*Option {
	opts := make([]*Option, len(flags))
	for i, f := range flags {
		opts[i] = &f.Option
	}
	return opts
}

// ParseFlags is Parse with a table of flags: each one found sets c.
func ParseFlags[C any](c C, args []string, flags []*Flag[C], old func(used, instead string)) ([]string, error) {
	return Parse(args, Options(flags), func(row int, _, value string) error { return flags[row].Set(c, value) }, old)
}
