package testplan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const root = "../.."

// stage5 reads the full=( ... ) list of scripts/test.sh: package -> tests.
func stage5(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "scripts", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nfull=\((.*?)\n\)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("scripts/test.sh: no full=( ... ) list")
	}
	list := map[string][]string{}
	for _, line := range regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(m[1], -1) {
		f := strings.Fields(string(line[1]))
		if len(f) < 2 {
			t.Fatalf("scripts/test.sh: stage 5 line %q names no test", line[1])
		}
		list[f[0]] = append(list[f[0]], f[1:]...)
	}
	return list
}

// pkgFuncs parses the test files of every package: per package directory
// ("./chronon"), each top-level function's name, whether it reads
// raceEnabled, and the names its body mentions.
type fn struct {
	race  bool
	names map[string]bool
	test  bool
}

func pkgFuncs(t *testing.T) map[string]map[string]*fn {
	t.Helper()
	pkgs := map[string]map[string]*fn{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		key := "./" + filepath.ToSlash(rel)
		if pkgs[key] == nil {
			pkgs[key] = map[string]*fn{}
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			x := &fn{names: map[string]bool{}}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					if n.Name == "raceEnabled" {
						x.race = true
					}
					x.names[n.Name] = true
				case *ast.SelectorExpr:
					x.names[n.Sel.Name] = true // a method of a helper type
				}
				return true
			})
			name := fd.Name.Name
			x.test = fd.Recv == nil && strings.HasPrefix(name, "Test") && name != "TestMain"
			if fd.Recv != nil {
				name = "." + name // methods: reached through a selector
			}
			pkgs[key][name] = x
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// racy returns the package's tests that read raceEnabled, directly or
// through the package's helpers (a name mentioned in a body that is a
// function or method of the package's tests).
func racy(funcs map[string]*fn) []string {
	tainted := map[string]bool{}
	for name, f := range funcs {
		if f.race {
			tainted[name] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for name, f := range funcs {
			if tainted[name] {
				continue
			}
			for m := range f.names {
				if tainted[m] || tainted["."+m] {
					tainted[name], changed = true, true
					break
				}
			}
		}
	}
	var tests []string
	for name := range tainted {
		if funcs[name].test {
			tests = append(tests, name)
		}
	}
	sort.Strings(tests)
	return tests
}

func TestStage5NamesEveryTestThatShrinksUnderRace(t *testing.T) {
	list, pkgs := stage5(t), pkgFuncs(t)
	total := 0
	for pkg, funcs := range pkgs {
		listed := map[string]bool{}
		for _, n := range list[pkg] {
			listed[n] = true
		}
		for _, name := range racy(funcs) {
			total++
			if !listed[name] {
				t.Errorf("%s %s runs smaller under the race detector (it reads raceEnabled) but scripts/test.sh's stage 5 does not run it at full size: add it to the package's line of full=( ... )", pkg, name)
			}
		}
	}
	if total == 0 {
		t.Fatal("no test reads raceEnabled: the parse found nothing, so it checks nothing")
	}
	for pkg, names := range list {
		for _, n := range names {
			if f := pkgs[pkg][n]; f == nil || !f.test {
				t.Errorf("scripts/test.sh's stage 5 names %s %s, which is no test there", pkg, n)
			}
		}
	}
}
