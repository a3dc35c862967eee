package export

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// validateKanata checks a Kanata log against the format description
// (Konata's docs/kanata-log-format.md, version 0004) and against what makes
// Konata's parser (onikiri_parser) warn or fail, and returns what it read.
// It is stricter than Konata where the export promises more:
//
//   - The first line is "Kanata\t0004"; every line ends with \n, none is
//     empty; fields are tab-separated and each command has exactly its
//     fields (a tab in a label or stage name would add one).
//   - C= comes once, before any other command; C steps forward by a
//     positive whole number of cycles (the time never goes back).
//   - I ids are assigned 0, 1, 2 ... in order of appearance (Konata's older
//     parser indexes an array by them); no id is defined twice.
//   - Every L, S, E, R and W names an instruction after its I and before
//     its R (Konata warns: "Command appears after op was retired").
//   - L types 0 and 1 (2 needs a current stage); label text has no control
//     characters: a newline is the two characters \n.
//   - S and E are balanced per instruction and lane: S on a lane whose
//     stage is closed, E of the lane's open stage by name; every lane is
//     closed when the instruction's R comes.
//   - Exactly one R per I, type 0 (retire) or 1 (flush); retire ids of
//     retired instructions count 0, 1, 2 ... (Konata indexes by them).
//   - W names a live consumer (after its I, before its R) and a producer
//     defined before the W line (Konata's parser indexes its instruction
//     array by it), not the consumer itself, type 0 (wake up, the only one
//     defined); a consumer names a producer once.
type kLog struct {
	insts []*kLogInst
	first uint64 // the C= cycle
	last  uint64 // cycle at the end
}

type kLogInst struct {
	sim, thread    uint64
	label, detail  string
	stages         []kLogStage
	retired, flush bool
	end            uint64 // cycle of R
	open           map[uint64]int
	deps           []kLogDep // W lines naming it as the consumer
}

type kLogDep struct {
	producer, cycle uint64
}

type kLogStage struct {
	lane       uint64
	name       string
	start, end uint64
}

func validateKanata(data []byte) (*kLog, error) { return validateKanataInFlight(data, false) }

// validateKanataInFlight is validateKanata; with inFlight, an instruction
// may end the log without an R (still in flight: Konata shows it to the
// end) when none of its stages is left open.
func validateKanataInFlight(data []byte, inFlight bool) (*kLog, error) {
	if !bytes.HasPrefix(data, []byte("Kanata\t0004\n")) {
		return nil, fmt.Errorf("line 1: want the header Kanata\\t0004")
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return nil, fmt.Errorf("the last line has no newline")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	lg := &kLog{}
	cycle, haveC := uint64(0), false
	nextRID := uint64(0)
	num := func(n int, s string) (uint64, error) {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("line %d: %q is not a whole number", n, s)
		}
		return v, nil
	}
	for i, line := range lines[1:] {
		n := i + 2
		if line == "" {
			return nil, fmt.Errorf("line %d: empty", n)
		}
		if strings.ContainsAny(line, "\r") {
			return nil, fmt.Errorf("line %d: a carriage return", n)
		}
		f := strings.Split(line, "\t")
		want := map[string]int{"C=": 2, "C": 2, "I": 4, "L": 4, "S": 4, "E": 4, "R": 4, "W": 4}[f[0]]
		if want == 0 {
			return nil, fmt.Errorf("line %d: unknown command %q", n, f[0])
		}
		if len(f) != want {
			return nil, fmt.Errorf("line %d: %s has %d fields, want %d", n, f[0], len(f), want)
		}
		switch f[0] {
		case "C=":
			if haveC || len(lg.insts) > 0 {
				return nil, fmt.Errorf("line %d: C= after other commands", n)
			}
			v, err := num(n, f[1])
			if err != nil {
				return nil, err
			}
			cycle, lg.first, haveC = v, v, true
			continue
		case "C":
			v, err := num(n, f[1])
			if err != nil {
				return nil, err
			}
			if v == 0 {
				return nil, fmt.Errorf("line %d: C 0 does not step", n)
			}
			cycle += v
			continue
		}
		if !haveC {
			return nil, fmt.Errorf("line %d: %s before C=", n, f[0])
		}
		id, err := num(n, f[1])
		if err != nil {
			return nil, err
		}
		if f[0] == "I" {
			if id != uint64(len(lg.insts)) {
				return nil, fmt.Errorf("line %d: I %d, want the next id %d", n, id, len(lg.insts))
			}
			sim, err := num(n, f[2])
			if err != nil {
				return nil, err
			}
			thread, err := num(n, f[3])
			if err != nil {
				return nil, err
			}
			lg.insts = append(lg.insts, &kLogInst{sim: sim, thread: thread, open: map[uint64]int{}})
			continue
		}
		if id >= uint64(len(lg.insts)) {
			return nil, fmt.Errorf("line %d: %s for instruction %d before its I", n, f[0], id)
		}
		in := lg.insts[id]
		if in.retired || in.flush {
			return nil, fmt.Errorf("line %d: %s for instruction %d after its R", n, f[0], id)
		}
		a, err := num(n, f[2])
		if err != nil {
			return nil, err
		}
		switch f[0] {
		case "L":
			for _, c := range []byte(f[3]) {
				if c < 0x20 || c == 0x7f {
					return nil, fmt.Errorf("line %d: control character %#x in a label", n, c)
				}
			}
			switch a {
			case 0:
				in.label += f[3]
			case 1:
				in.detail += f[3]
			default:
				return nil, fmt.Errorf("line %d: label type %d", n, a)
			}
		case "S", "E":
			name := strings.TrimSpace(f[3])
			if name == "" {
				return nil, fmt.Errorf("line %d: empty stage name", n)
			}
			k, open := in.open[a]
			if f[0] == "S" {
				if open {
					return nil, fmt.Errorf("line %d: S %s on lane %d of instruction %d while %s is open", n, name, a, id, in.stages[k].name)
				}
				in.open[a] = len(in.stages)
				in.stages = append(in.stages, kLogStage{lane: a, name: name, start: cycle})
			} else {
				if !open || in.stages[k].name != name {
					return nil, fmt.Errorf("line %d: E %s on lane %d of instruction %d, which has no such open stage", n, name, a, id)
				}
				in.stages[k].end = cycle
				delete(in.open, a)
			}
		case "R":
			typ, err := num(n, f[3])
			if err != nil {
				return nil, err
			}
			if len(in.open) > 0 {
				return nil, fmt.Errorf("line %d: R of instruction %d with %d stages open", n, id, len(in.open))
			}
			switch typ {
			case 0:
				if a != nextRID {
					return nil, fmt.Errorf("line %d: retire id %d, want %d", n, a, nextRID)
				}
				nextRID++
				in.retired = true
			case 1:
				in.flush = true
			default:
				return nil, fmt.Errorf("line %d: R type %d", n, typ)
			}
			in.end = cycle
		case "W":
			if a >= uint64(len(lg.insts)) {
				return nil, fmt.Errorf("line %d: W names producer %d, not defined", n, a)
			}
			if a == id {
				return nil, fmt.Errorf("line %d: W makes instruction %d depend on itself", n, id)
			}
			if f[3] != "0" {
				return nil, fmt.Errorf("line %d: W type %s", n, f[3])
			}
			for _, d := range in.deps {
				if d.producer == a {
					return nil, fmt.Errorf("line %d: W %d %d again", n, id, a)
				}
			}
			in.deps = append(in.deps, kLogDep{producer: a, cycle: cycle})
		}
	}
	for id, in := range lg.insts {
		if !in.retired && !in.flush && (!inFlight || len(in.open) > 0) {
			return nil, fmt.Errorf("instruction %d has no R", id)
		}
	}
	lg.last = cycle
	return lg, nil
}
