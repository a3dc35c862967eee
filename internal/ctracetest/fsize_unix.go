//go:build unix

package ctracetest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// fsizeChildEnv tells a test binary started by RunUnderFileSizeLimit that
// it is the child, and names the output.
const fsizeChildEnv = "CTRACETEST_FSIZE_CHILD"

// RunUnderFileSizeLimit runs a command whose writes fail part-way: the
// test t runs again in a child process whose files may not grow past
// limit bytes (RLIMIT_FSIZE: a write past it fails with EFBIG), and there
// calls run with an output path in t's temporary directory and exits with
// its status. In the parent it returns that path, the child's exit status
// and its stderr. Call it first in the test (the child returns nowhere).
// Unix only: Windows has no RLIMIT_FSIZE.
func RunUnderFileSizeLimit(t testing.TB, limit uint64, run func(out string) int) (out string, code int, stderr string) {
	if out := os.Getenv(fsizeChildEnv); out != "" {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			t.Fatal(err)
		}
		os.Exit(run(out))
	}
	out = filepath.Join(t.TempDir(), "big.ctrace")
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), fsizeChildEnv+"="+out)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the child under a file size limit: %v (want a non-zero exit); stderr: %s", err, errOut.String())
	}
	return out, ee.ExitCode(), errOut.String()
}
