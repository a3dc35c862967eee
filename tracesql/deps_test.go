package tracesql_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSimulatorPackagesDoNotImportDuckDB: chronon and mmapio, which a
// simulator links, stay free of DuckDB (and of cgo through it), whatever
// this package does.
func TestSimulatorPackagesDoNotImportDuckDB(t *testing.T) {
	for _, pkg := range []string{"../chronon", "../mmapio"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		if !strings.Contains(string(out), "github.com/chronon-sim/chronon-go/schema") {
			t.Fatalf("go list -deps %s lists no dependency of ours: %s", pkg, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "duckdb") || strings.Contains(dep, "tracesql") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
