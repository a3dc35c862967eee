package capi

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A content-addressed cache of what gcc and g++ compile for these tests,
// ccache's direct mode in miniature: most of the package's CPU was the
// same C and C++ sources compiled again on every run.
//
// The key hashes the compiler's identity, the arguments (the output and
// the temporary directories left out), the source's bytes and the bytes of
// every header in the directories the compile searches first (each -I and
// the source's own). The entry keeps the other files the compile read (the
// system headers, from the compiler's -MD list) with their sha256; it is a
// hit only while each still has it. A change to any input is a miss.
//
// Entries live in $CHRONON_CC_CACHE, else in os.UserCacheDir()/chronon-go/cc
// ($XDG_CACHE_HOME/chronon-go/cc); each is written to a temporary file and
// renamed, carries the sha256 of its content and is verified when read.
// Anything wrong with the cache (unreadable, corrupt, unwritable) is a miss
// and a log line, never a test failure.

// ccMaxAge: entries not used for this long are removed (once a run).
const ccMaxAge = 7 * 24 * time.Hour

const ccMagic = "chronon-cc 1\n"

type ccCache struct {
	dir  string                                           // "" without a cache directory: every compile runs
	exec func(dir string, argv ...string) ([]byte, error) // runs the compiler (the tests of the cache give a fake)
	tmp  []string                                         // temporary directories, as placeholders in keys and entries

	pruned sync.Once
	mu     sync.Mutex
	ids    map[string]string // compiler -> identity
}

// ccEntry is what a compile left.
type ccEntry struct {
	Deps   []ccDep // the files it read outside the key, placeholders for temporary directories
	Failed bool
	Output []byte // its diagnostics, placeholders for temporary directories
	Object []byte // the -o file; nil without one (-fsyntax-only)
}

type ccDep struct {
	Path string
	Sum  [sha256.Size]byte
}

var ccc = newCCCache()

func newCCCache() *ccCache {
	dir := os.Getenv("CHRONON_CC_CACHE")
	if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "chronon-go", "cc")
		}
	}
	return &ccCache{dir: dir, ids: map[string]string{},
		exec: func(dir string, argv ...string) ([]byte, error) { return command(dir, nil, argv...) }}
}

// errCachedFailure is a compile that failed when it was cached; its output
// says why.
var errCachedFailure = errors.New("the compiler failed (cached result)")

// compile runs `compiler flags [-o out] src` in dir, or takes its result
// from the cache. how is "cached" or the compile's seconds; logf hears
// about trouble with the cache. out is "" with -fsyntax-only.
func (c *ccCache) compile(logf func(string, ...any), dir, compiler string, flags []string, src, out string) (output []byte, how string, err error) {
	t0 := time.Now()
	tmp := append([]string{}, c.tmp...)
	if under(dir, os.TempDir()) {
		tmp = append(tmp, dir)
	}
	args := append([]string{}, flags...)
	if slices.Contains(flags, "-c") {
		for _, d := range tmp {
			if under(src, d) || d == dir { // keeps temporary paths (in no key) out of the object: __FILE__, debug info
				args = append(args, "-ffile-prefix-map="+d+"=.")
			}
		}
	}
	key, err := c.key(tmp, dir, compiler, args, src)
	if err != nil {
		logf("C compile cache: %v: compiling", err)
	}
	var path string
	if c.dir != "" && err == nil {
		path = filepath.Join(c.dir, key[:2], key)
		c.pruned.Do(func() { c.prune(logf) })
		if e, err := c.load(path, tmp); err == nil {
			if out == "" || os.WriteFile(out, e.Object, 0o644) == nil {
				now := time.Now()
				os.Chtimes(path, now, now) // used: not pruned
				output = restore(e.Output, tmp)
				if e.Failed {
					return output, "cached", errCachedFailure
				}
				return output, "cached", nil
			}
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errStale) {
			logf("C compile cache: %v: compiling", err)
		}
	}
	argv := append(append([]string{compiler}, args...), src)
	var depfile string
	if path != "" {
		if f, err := os.CreateTemp("", "chronon-cc-*.d"); err == nil {
			depfile = f.Name()
			f.Close()
			defer os.Remove(depfile)
			argv = append(argv[:len(argv)-1], "-MD", "-MF", depfile, src)
		}
	}
	if out != "" {
		argv = append(argv[:len(argv)-1], "-o", out, src)
	}
	output, runErr := c.exec(dir, argv...)
	how = fmt.Sprintf("%.1fs", time.Since(t0).Seconds())
	var exit *exec.ExitError
	if depfile == "" || (runErr != nil && !(errors.As(runErr, &exit) && exit.ExitCode() == 1)) ||
		bytes.Contains(output, []byte("fatal error:")) { // a missing header, which may appear: not kept
		return output, how, runErr
	}
	e := ccEntry{Failed: runErr != nil, Output: normalize(output, tmp)}
	if runErr == nil && out != "" {
		e.Object, err = os.ReadFile(out)
	}
	if err == nil {
		e.Deps, err = c.deps(depfile, src, tmp)
	}
	if err == nil {
		err = c.store(path, &e)
	}
	if err != nil {
		logf("C compile cache: %v: not stored", err)
	}
	return output, how, runErr
}

// key hashes everything the compile's result depends on but the system
// headers.
func (c *ccCache) key(tmp []string, dir, compiler string, args []string, src string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s%s\n", ccMagic, c.identity(compiler))
	fmt.Fprintf(h, "cwd %q\n", normalize([]byte(dir), tmp))
	for _, a := range args {
		fmt.Fprintf(h, "arg %q\n", normalize([]byte(a), tmp))
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "src %q %d\n%s", normalize([]byte(src), tmp), len(b), b)
	dirs := []string{filepath.Dir(src)}
	for i, a := range args {
		if d, ok := strings.CutPrefix(a, "-I"); ok {
			if d == "" && i+1 < len(args) {
				d = args[i+1]
			}
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || !isHeader(p) {
				return err
			}
			b, err := os.ReadFile(p)
			fmt.Fprintf(h, "header %q %d\n%s", normalize([]byte(p), tmp), len(b), b)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

func isHeader(p string) bool {
	switch filepath.Ext(p) {
	case ".h", ".hh", ".hpp", ".hxx", ".inc", ".gch":
		return true
	}
	return false
}

// identity names the compiler: its resolved path, version and target, and
// the size and time of the programs that do the work (cc1, cc1plus, as),
// which a package upgrade replaces without always changing the version.
func (c *ccCache) identity(compiler string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.ids[compiler]; ok {
		return id
	}
	var b strings.Builder
	v, _ := c.exec("", compiler, "-dumpfullversion", "-dumpmachine")
	fmt.Fprintf(&b, "%s %s", resolved(compiler), v)
	for _, prog := range []string{"cc1", "cc1plus", "as"} {
		p, _ := c.exec("", compiler, "-print-prog-name="+prog)
		b.WriteString(resolved(strings.TrimSpace(string(p))))
	}
	c.ids[compiler] = b.String()
	return c.ids[compiler]
}

func resolved(prog string) string {
	p, err := exec.LookPath(prog)
	if err != nil {
		return prog + " (not found)\n"
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	st, err := os.Stat(p)
	if err != nil {
		return p + "\n"
	}
	return fmt.Sprintf("%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
}

// deps reads the compiler's -MD list: every file the compile read but the
// source, with its sha256 now.
func (c *ccCache) deps(depfile, src string, tmp []string) ([]ccDep, error) {
	b, err := os.ReadFile(depfile)
	if err != nil {
		return nil, err
	}
	_, list, ok := strings.Cut(strings.ReplaceAll(string(b), "\\\n", " "), ": ")
	if !ok {
		return nil, fmt.Errorf("%s: no dependency list", depfile)
	}
	var deps []ccDep
	seen := map[string]bool{src: true}
	for _, p := range strings.Fields(strings.ReplaceAll(list, `\ `, "\x00")) {
		p = strings.ReplaceAll(p, "\x00", " ")
		if seen[p] {
			continue
		}
		seen[p] = true
		sum, err := fileSum(p)
		if err != nil {
			return nil, err
		}
		deps = append(deps, ccDep{string(normalize([]byte(p), tmp)), sum})
	}
	return deps, nil
}

func fileSum(path string) ([sha256.Size]byte, error) {
	b, err := os.ReadFile(path)
	return sha256.Sum256(b), err
}

var errStale = errors.New("a file the compile read has changed")

// load reads and verifies an entry: its checksum, then that every file the
// compile read is still as it was.
func (c *ccCache) load(path string, tmp []string) (*ccEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	body, ok := bytes.CutPrefix(b, []byte(ccMagic))
	if !ok || len(body) < sha256.Size || sha256.Sum256(body[sha256.Size:]) != [sha256.Size]byte(body[:sha256.Size]) {
		return nil, fmt.Errorf("%s: corrupt entry (checksum)", path)
	}
	var e ccEntry
	if err := gob.NewDecoder(bytes.NewReader(body[sha256.Size:])).Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: corrupt entry: %v", path, err)
	}
	for _, d := range e.Deps {
		if sum, err := fileSum(string(restore([]byte(d.Path), tmp))); err != nil || sum != d.Sum {
			return nil, errStale
		}
	}
	return &e, nil
}

// store writes an entry whole or not at all: a temporary file renamed.
func (c *ccCache) store(path string, e *ccEntry) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(e); err != nil {
		return err
	}
	sum := sha256.Sum256(body.Bytes())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(append([]byte(ccMagic), sum[:]...), body.Bytes()...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// prune removes the entries not used for ccMaxAge (and temporary files a
// killed run left): only files the cache writes, dir/ab/ab<62 hex> and
// dir/ab/.tmp-*, since $CHRONON_CC_CACHE may name a directory that holds
// other files too.
func (c *ccCache) prune(logf func(string, ...any)) {
	old := time.Now().Add(-ccMaxAge)
	n := 0
	subs, _ := os.ReadDir(c.dir)
	for _, sub := range subs {
		if !sub.IsDir() || len(sub.Name()) != 2 || !isHex(sub.Name()) {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(c.dir, sub.Name()))
		for _, de := range files {
			name := de.Name()
			ours := strings.HasPrefix(name, ".tmp-") || (len(name) == 2*sha256.Size && strings.HasPrefix(name, sub.Name()) && isHex(name))
			if !ours || !de.Type().IsRegular() {
				continue
			}
			p := filepath.Join(c.dir, sub.Name(), name)
			if info, err := de.Info(); err == nil && info.ModTime().Before(old) && os.Remove(p) == nil {
				n++
			}
		}
	}
	if n > 0 {
		logf("C compile cache %s: removed %d entries unused for %v", c.dir, n, ccMaxAge)
	}
}

// isHex reports whether s is lower-case hexadecimal, as the keys are.
func isHex(s string) bool {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

func under(path, dir string) bool {
	return dir != "" && strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// normalize replaces the temporary directories with placeholders; restore
// puts the current ones back.
func normalize(b []byte, tmp []string) []byte {
	for i := len(tmp) - 1; i >= 0; i-- {
		b = bytes.ReplaceAll(b, []byte(tmp[i]), []byte(fmt.Sprintf("\x00tmp%d\x00", i)))
	}
	return b
}

func restore(b []byte, tmp []string) []byte {
	for i, d := range tmp {
		b = bytes.ReplaceAll(b, []byte(fmt.Sprintf("\x00tmp%d\x00", i)), []byte(d))
	}
	return b
}
