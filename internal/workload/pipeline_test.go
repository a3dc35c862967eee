package workload

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/ctracetest"
)

// TestPipelineExactCountAndOracle: the pipeline workload emits exactly the
// events asked for (also when that cuts an instruction short), deterministically,
// in a file the conformance oracle accepts.
func TestPipelineExactCountAndOracle(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for i, n := range []int{20_001, 20_001, 7} {
		path := filepath.Join(dir, "p"+string(rune('a'+i))+".ctrace")
		// No timed flushes: chunks of one seed fill the same way.
		res, err := Run("pipeline", path, n, 16, 3, chronon.WithAutoMetadata(false), chronon.WithFlushInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		if res.Written != uint64(n) || res.Dropped != 0 {
			t.Fatalf("%d events asked: %d written, %d dropped", n, res.Written, res.Dropped)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
		if i == 0 {
			if _, err := ctracetest.Oracle(); err != nil {
				t.Logf("!!!!! SKIPPING THE ORACLE CHECK: %v (needs %s with the zstandard module) !!!!!", err, ctracetest.Python)
				continue
			}
			out, err := ctracetest.RunOracle("check", path)
			if err != nil || !strings.HasPrefix(string(out), "OK events=20001 ") {
				t.Fatalf("oracle: %s %v", out, err)
			}
		}
	}
	// Blocks of different units may land in either order (the collector
	// numbers them as it finds them), but the blocks are the same: the
	// same size, and the same events.
	if len(files[0]) != len(files[1]) {
		t.Fatalf("two runs of seed 3 wrote %d and %d bytes", len(files[0]), len(files[1]))
	}
	if _, err := ctracetest.Oracle(); err == nil {
		var dumps [2][]string
		for i, name := range []string{"pa", "pb"} {
			out, err := ctracetest.RunOracle("dump", filepath.Join(dir, name+".ctrace"))
			if err != nil {
				t.Fatal(err)
			}
			dumps[i] = strings.Split(string(out), "\n")
			sort.Strings(dumps[i])
		}
		if !slices.Equal(dumps[0], dumps[1]) {
			t.Fatal("two runs of seed 3 wrote different events")
		}
	}
}

// TestPipelineUnitsMultipleOf8: the workload refuses a unit count that does
// not make whole cores, naming the rule.
func TestPipelineUnitsMultipleOf8(t *testing.T) {
	_, err := Run("pipeline", filepath.Join(t.TempDir(), "p.ctrace"), 100, 12, 1)
	if err == nil || !strings.Contains(err.Error(), "multiple of 8") {
		t.Fatalf("12 units: err = %v, want one naming the multiple of 8", err)
	}
}
