package capi

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// TestO3CoreExample runs examples/o3_core.cpp, the C++ adapter pattern for
// an out-of-order core, and reads its trace as a pipeline: every
// instruction's stages in order and back to back, each instruction retired
// (in order), squashed (younger than a mispredicted branch, when the branch
// resolves) or still in flight, as many of each as the core counted; each
// dependency arrow from an older instruction that had its result when the
// younger one began executing; each L1D fill inside its load's execute
// stage; the ROB occupancy recorded only when it changes. The Kanata export
// shows the same, and the dump is the golden one.
func TestO3CoreExample(t *testing.T) {
	tc := setup(t)
	src, err := os.ReadFile(filepath.Join(tc.root, "cgo", "examples", "o3_core.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	exe := tc.compileCxx(t, "o3_core", string(src))
	out := filepath.Join(t.TempDir(), "o3.ctrace")
	stdout, _ := run(t, nil, exe, out)
	var cycles, fetched, retired, squashed, inflight int
	if _, err := fmt.Sscanf(stdout, "%d cycles: %d instructions fetched, %d retired, %d squashed, %d in flight", &cycles, &fetched,
		&retired, &squashed, &inflight); err != nil || retired == 0 || squashed == 0 || inflight == 0 {
		t.Fatalf("o3_core: %v: %s", err, stdout)
	}
	t.Log(strings.TrimSpace(stdout))
	tc.oracleCheck(t, out)
	r, err := mmapio.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tc.golden(t, "o3_core.dump", tc.dumpSymbols(t, out, r.Schema().Symbols))
	if tb := r.Schema().TimeBase; tb != chronon.Hz(4_000_000_000) {
		t.Errorf("time base %v, want 4 GHz", tb)
	}
	type span struct {
		stage      string
		start, end uint64
	}
	type instr struct {
		stages         []span
		retire, squash []uint64 // cycles
		fills          []span
	}
	stageNames := []string{"fetch", "decode", "dispatch", "schedule", "execute", "commit"}
	isStage := map[string]int{}
	for i, n := range stageNames {
		isStage[n] = i
	}
	flows := map[uint64]*instr{}
	get := func(f uint64) *instr {
		if flows[f] == nil {
			flows[f] = &instr{}
		}
		return flows[f]
	}
	type dep struct{ cycle, flow, producer uint64 }
	var deps []dep
	var retires []struct{ cycle, flow uint64 }
	mispredicts := map[uint64]uint64{} // flow -> cycle fetched
	var rob []int64
	l1d := r.UnitsNamed("core0.l1d")
	for ev := range r.Events(mmapio.Query{}) {
		f := ev.Format()
		arg := func(role schema.ArgRole) uint64 {
			i := f.RoleIndex(role)
			if i < 0 {
				t.Fatalf("%s: no %v argument", f.Format.Format, role)
			}
			a, _ := ev.Arg(i)
			return a.Uint()
		}
		switch {
		case f.Kind == schema.KindSpanComplete && f.Name == "l1d.fill":
			if len(l1d) != 1 || ev.UnitID != l1d[0] {
				t.Errorf("fill on unit %d", ev.UnitID)
			}
			in := get(arg(schema.RoleFlow))
			in.fills = append(in.fills, span{"fill", ev.Cycle, ev.Cycle + arg(schema.RoleDuration)})
		case f.Kind == schema.KindSpanComplete:
			if _, ok := isStage[f.Name]; !ok {
				t.Fatalf("span %q", f.Name)
			}
			in := get(arg(schema.RoleFlow))
			in.stages = append(in.stages, span{f.Name, ev.Cycle, ev.Cycle + arg(schema.RoleDuration)})
		case f.Kind == schema.KindRetire:
			fl := arg(schema.RoleFlow)
			get(fl).retire = append(get(fl).retire, ev.Cycle)
			retires = append(retires, struct{ cycle, flow uint64 }{ev.Cycle, fl})
		case f.Kind == schema.KindFlush:
			get(arg(schema.RoleFlow)).squash = append(get(arg(schema.RoleFlow)).squash, ev.Cycle)
		case f.Kind == schema.KindCounter:
			a, _ := ev.Arg(0)
			rob = append(rob, a.Int())
		case f.RoleIndex(schema.RoleDepends) >= 0:
			deps = append(deps, dep{ev.Cycle, arg(schema.RoleFlow), arg(schema.RoleDepends)})
		case strings.HasPrefix(f.Format.Format, "mispredict"):
			mispredicts[arg(schema.RoleFlow)] = ev.Cycle
		default:
			t.Errorf("unexpected event %s", f.Format.Format)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var nRetired, nSquashed, nInflight int
	for fl, in := range flows {
		sort.Slice(in.stages, func(i, j int) bool { return isStage[in.stages[i].stage] < isStage[in.stages[j].stage] })
		// Recorded when it leaves a stage: an instruction in flight has its
		// open stage unrecorded; all have at least fetch once decoded.
		for i, s := range in.stages {
			if s.stage != stageNames[i] || (i > 0 && s.start != in.stages[i-1].end) || s.end < s.start {
				t.Errorf("flow %d: stages %v: not in order, back to back", fl, in.stages)
				break
			}
		}
		last := uint64(0)
		if n := len(in.stages); n > 0 {
			last = in.stages[n-1].end
		}
		switch {
		case len(in.retire) == 1 && len(in.squash) == 0:
			nRetired++
			if len(in.stages) != len(stageNames) || in.retire[0] != last {
				t.Errorf("flow %d retired at %v after stages %v", fl, in.retire, in.stages)
			}
		case len(in.squash) == 1 && len(in.retire) == 0:
			nSquashed++
			if len(in.stages) > 0 && in.squash[0] != last {
				t.Errorf("flow %d squashed at %v, its stage ended at %d", fl, in.squash, last)
			}
			// A younger instruction than a mispredicted branch whose
			// execution ends now.
			found := false
			for b := range mispredicts {
				bi := flows[b]
				found = found || b < fl && bi != nil && len(bi.stages) >= 5 && bi.stages[4].end == in.squash[0]
			}
			if !found {
				t.Errorf("flow %d squashed at %d: no mispredicted branch older than it resolved then", fl, in.squash[0])
			}
		case len(in.squash)+len(in.retire) == 0:
			nInflight++
		default:
			t.Errorf("flow %d: retired at %v, squashed at %v", fl, in.retire, in.squash)
		}
		// A stage begins when the one before it ends (recorded as that one
		// leaves); the stage an instruction is in at the end is not
		// recorded, nor the rest of an execute cut short by a squash.
		for _, fill := range in.fills {
			if len(in.stages) < 4 || fill.start < in.stages[3].end ||
				len(in.stages) >= 5 && len(in.squash) == 0 && fill.end > in.stages[4].end {
				t.Errorf("flow %d: fill %v outside its execute stage (stages %v)", fl, fill, in.stages)
			}
		}
	}
	// Instructions in flight before their first stage ended have no event
	// at all: the count the core reports includes them.
	if nRetired != retired || nSquashed != squashed || nInflight > inflight || nRetired+nSquashed+inflight != fetched {
		t.Errorf("retired %d squashed %d in flight %d (with events), the core says %d %d %d", nRetired, nSquashed, nInflight, retired,
			squashed, inflight)
	}
	for i := 1; i < len(retires); i++ {
		if retires[i].flow <= retires[i-1].flow || retires[i].cycle < retires[i-1].cycle {
			t.Fatalf("retirement out of order: %v then %v", retires[i-1], retires[i])
		}
	}
	if len(deps) == 0 {
		t.Error("no dependencies recorded")
	}
	for _, d := range deps {
		p, c := flows[d.producer], flows[d.flow]
		if d.producer >= d.flow || p == nil || c == nil {
			t.Errorf("dependency %+v: producer not older, or unknown", d)
			continue
		}
		if len(c.stages) < 4 || c.stages[3].end != d.cycle {
			t.Errorf("dependency %+v: the consumer does not begin executing then (%v)", d, c.stages)
		}
		if len(p.stages) < 5 || p.stages[4].end > d.cycle {
			t.Errorf("dependency %+v: the producer had no result yet (%v)", d, p.stages)
		}
	}
	for i := 1; i < len(rob); i++ {
		if rob[i] == rob[i-1] {
			t.Errorf("rob.occupancy recorded %d twice in a row", rob[i])
		}
	}

	if tc.reader == "" {
		t.Log("##### trace_reader does not build: the Kanata export is not checked #####")
		return
	}
	k := filepath.Join(t.TempDir(), "o3.kanata")
	run(t, nil, tc.reader, "export", "--format", "kanata", out, "-o", k)
	text, err := os.ReadFile(k)
	if err != nil {
		t.Fatal(err)
	}
	rows, kRetired, kFlushed, arrows := 0, 0, 0, 0
	for _, l := range strings.Split(string(text), "\n") {
		fs := strings.Split(l, "\t")
		switch {
		case fs[0] == "I":
			rows++
		case fs[0] == "R" && len(fs) == 4 && fs[3] == "0":
			kRetired++
		case fs[0] == "R" && len(fs) == 4 && fs[3] == "1":
			kFlushed++
		case fs[0] == "W":
			arrows++
		}
	}
	if rows != len(flows) || kRetired != retired || kFlushed != squashed || arrows != len(deps) {
		t.Errorf("Kanata: %d rows, %d retired, %d flushed, %d arrows; want %d, %d, %d, %d", rows, kRetired, kFlushed, arrows, len(flows),
			retired, squashed, len(deps))
	}
}

// dumpSymbols is dump for a file with symbol arguments: trace_reader prints
// a symbol's string where the oracle (the original reader) prints its
// number, so a line may differ from the oracle's by exactly that.
func (tc *toolchain) dumpSymbols(t *testing.T, path string, symbols []string) []string {
	t.Helper()
	if tc.reader == "" || tc.oracle == "" {
		return tc.dump(t, path)
	}
	rd, _ := run(t, nil, tc.reader, "dump", path)
	or, _ := run(t, nil, python, tc.oracle, "dump", path)
	reader, oracle := sortedLines(rd), sortedLines(or)
	// Sorted separately the lines could pair up differently: compare the
	// reader's lines with the symbols numbered, sorted again.
	numbered := make([]string, len(reader))
	for i, l := range reader {
		for id, s := range symbols {
			l = strings.ReplaceAll(l, "="+s, fmt.Sprintf("=%d", id))
		}
		numbered[i] = l
	}
	sort.Strings(numbered)
	if d := firstDiff(numbered, oracle); d != "" {
		t.Fatalf("%s: trace_reader dump (symbols numbered) and the oracle's dump differ: %s", path, d)
	}
	return reader
}
