// Package readme checks that the Go code the README shows compiles as
// written: a reader copies the first snippet into a file and expects it to
// build.
package readme

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

func TestReadmeSnippetsCompile(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlock.FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	// Every block that is a whole program (package main) must build. The
	// first block must be one: it is what a new user copies.
	if !regexp.MustCompile(`(?m)^package main$`).Match(blocks[0][1]) {
		t.Fatalf("README's first Go snippet is not a whole program (no 'package main'):\n%s", blocks[0][1])
	}
	// The snippet is laid over a directory of this module with -overlay, so
	// it builds against this checkout without writing into the tree.
	abs, err := filepath.Abs("snippet")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, b := range blocks {
		if !regexp.MustCompile(`(?m)^package main$`).Match(b[1]) {
			continue
		}
		src := filepath.Join(dir, "main.go")
		if err := os.WriteFile(src, b[1], 0o644); err != nil {
			t.Fatal(err)
		}
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(abs, "main.go"): src}})
		ovPath := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-overlay", ovPath, "-o", filepath.Join(dir, "snippet"), "./snippet")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README Go block %d does not build: %v\n%s\n--- the block:\n%s", i+1, err, out, b[1])
		}
	}
}

var cppBlock = regexp.MustCompile("(?s)```cpp\n(.*?)```")

// TestReadmeCppCompiles: the C++ program the README shows compiles against
// the header in this checkout (syntax and types; linking is cgo's tests').
func TestReadmeCppCompiles(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := cppBlock.FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```cpp block")
	}
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("SKIPPED LOUDLY: g++ is not installed (make deps installs it); the README's C++ is not checked")
	}
	inc, err := filepath.Abs("../../cgo/include")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		src := filepath.Join(t.TempDir(), "sim.cpp")
		if err := os.WriteFile(src, b[1], 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(cxx, "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-I", inc, src).CombinedOutput(); err != nil {
			t.Errorf("README C++ block %d does not compile: %v\n%s\n--- the block:\n%s", i+1, err, out, b[1])
		}
	}
}
