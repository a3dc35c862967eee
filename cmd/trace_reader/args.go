package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/chronon-sim/chronon-go/export"
)

// config is a parsed command line.
type config struct {
	command    string
	file       string
	hasCycles  bool
	start, end uint64
	unit       string
	hasUnit    bool
	limit      int
	output     string
	verbose    bool
	help       bool

	format       string  // export
	nsPerCycle   float64 // export
	maxFileBytes int64   // export
	json         bool    // stats
}

// usageError is a command line the tool cannot run: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

var commands = map[string]bool{"info": true, "dump": true, "filter": true, "convert": true, "recover": true, "export": true, "stats": true}

// parseArgs parses `<command> [options] <file.ctrace>`; options and the file
// may come in any order after the command, as in the original tool. Options
// take their value as the next argument or after '=' (--limit=10).
func parseArgs(args []string) (*config, error) {
	c := &config{format: export.FormatPerfetto, nsPerCycle: 1, maxFileBytes: export.DefaultMaxFileBytes}
	if len(args) == 0 {
		return nil, usagef("missing command")
	}
	if args[0] == "-h" || args[0] == "--help" {
		c.help = true
		return c, nil
	}
	c.command = args[0]
	if !commands[c.command] {
		return nil, usagef("unknown command %q", c.command)
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			if k, v, ok := strings.Cut(a, "="); ok {
				name, value, hasValue = k, v, true
			}
		}
		needValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(rest) {
				return "", usagef("option %s needs a value", name)
			}
			i++
			return rest[i], nil
		}
		switch name {
		case "-h", "--help":
			c.help = true
		case "-v", "--verbose":
			c.verbose = true
		case "--cycles":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			if c.start, c.end, err = parseCycles(v); err != nil {
				return nil, err
			}
			c.hasCycles = true
		case "--unit":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			c.unit, c.hasUnit = v, true
		case "--limit":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return nil, usagef("--limit %q: want a number of events (0 = no limit)", v)
			}
			c.limit = int(min(n, math.MaxInt))
		case "-o", "--output":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			c.output = v
		case "--format":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			if v != export.FormatPerfetto && v != export.FormatChromeJSON {
				return nil, usagef("--format %q: want perfetto or chrome-json", v)
			}
			c.format = v
		case "--ns-per-cycle":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f > 0) || f > 1e9 {
				return nil, usagef("--ns-per-cycle %q: want a number of nanoseconds in (0, 1e9]", v)
			}
			c.nsPerCycle = f
		case "--max-file-size":
			v, err := needValue()
			if err != nil {
				return nil, err
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, usagef("--max-file-size %q: want bytes (0 = never split)", v)
			}
			c.maxFileBytes = n
		case "--json":
			c.json = true
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				return nil, usagef("unknown option %q", a)
			}
			if c.file != "" {
				return nil, usagef("more than one file: %q and %q", c.file, a)
			}
			c.file = a
		}
	}
	if c.help {
		return c, nil
	}
	if c.file == "" {
		return nil, usagef("missing trace file")
	}
	if (c.command == "recover" || c.command == "export") && c.output == "" {
		return nil, usagef("%s needs -o OUT", c.command)
	}
	return c, nil
}

// parseCycles parses START-END (inclusive) or START (from there on).
func parseCycles(s string) (uint64, uint64, error) {
	bad := usagef("--cycles %q: want START-END or START", s)
	lo, hi, hasHi := strings.Cut(s, "-")
	start, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
	if err != nil {
		return 0, 0, bad
	}
	end := uint64(math.MaxUint64)
	if hasHi {
		if end, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil {
			return 0, 0, bad
		}
		if end < start {
			return 0, 0, usagef("--cycles %q: end before start", s)
		}
	}
	return start, end, nil
}
