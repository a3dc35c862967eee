package chronon

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEmitInlined checks the promise behind maxInlineArity: a call site of
// Emit for formats of up to that many arguments is inlined, so a disabled
// category or a cycle before the record-time window costs a load, a compare
// and a branch there (gate.go). It compiles a small program with -gcflags=-m
// and reads the compiler's inlining decisions.
func TestEmitInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a program: skipped with -short")
	}
	var b strings.Builder
	b.WriteString("package main\n\nimport \"github.com/chronon-sim/chronon-go/chronon\"\n\nfunc main() {\n\tt, _ := chronon.Create(\"/dev/null\")\n\tu, _ := t.NewUnit(\"u\")\n")
	for n := 0; n <= 8; n++ {
		types := strings.TrimSuffix(strings.Repeat("uint64, ", n), ", ")
		args := strings.Repeat(", 1", n)
		if n == 0 {
			fmt.Fprintf(&b, "\tchronon.MustFormat0(\"f0\").Emit(u, 1)\n")
			continue
		}
		fmt.Fprintf(&b, "\tchronon.MustFormat%d[%s](\"f%d\").Emit(u, 1%s) // arity %d\n", n, types, n, args, n)
	}
	b.WriteString("\tt.Close()\n}\n")
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("inlinecheck/main.go") // laid over this package's dir: no file in the tree
	if err != nil {
		t.Fatal(err)
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: src}})
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-overlay", ovPath, "-gcflags=-m", "-o", filepath.Join(dir, "bin"), "./inlinecheck").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// main.go:LINE:COL: inlining call to chronon.(*FormatN[...]).Emit
	if os.Getenv("CHRONON_INLINE_DEBUG") != "" {
		t.Logf("%s", out)
	}
	inlined := map[int]bool{}
	re := regexp.MustCompile(`main\.go:(\d+):\d+: inlining call to chronon\.\(\*Format(\d+)(\[[^\]]*\])?\)\.Emit`)
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		var n int
		fmt.Sscan(m[2], &n)
		inlined[n] = true
	}
	for n := 0; n <= 8; n++ {
		if n <= maxInlineArity && !inlined[n] {
			t.Errorf("Format%d.Emit is not inlined at the call site (maxInlineArity = %d)", n, maxInlineArity)
		}
	}
	if inlined[maxInlineArity+1] {
		t.Logf("Format%d.Emit is inlined too: maxInlineArity (%d) could be raised", maxInlineArity+1, maxInlineArity)
	}
}
