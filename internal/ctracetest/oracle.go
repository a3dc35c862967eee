package ctracetest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// The conformance oracle (an independent Python checker) lives outside the
// module, in ../shared/conformance relative to the repository root.

// Python is the interpreter the oracle needs (with the zstandard module).
const Python = "/usr/bin/python3"

var (
	oracleOnce sync.Once
	oraclePath string
	oracleErr  error
)

// Oracle returns the path of ctrace_oracle.py, or why it cannot run.
func Oracle() (string, error) {
	oracleOnce.Do(func() {
		// From the working directory (go test runs a test in its package's
		// directory), not runtime.Caller: under -trimpath, which make test
		// uses so that a fresh clone reuses the build cache, source paths
		// are module paths, not directories.
		root, err := os.Getwd()
		if err != nil {
			oracleErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(root)
			if parent == root {
				oracleErr = errors.New("repository root (go.mod) not found")
				return
			}
			root = parent
		}
		oraclePath = filepath.Join(root, "..", "shared", "conformance", "ctrace_oracle.py")
		if _, err := os.Stat(oraclePath); err != nil {
			oracleErr = fmt.Errorf("oracle not found: %w", err)
			return
		}
		if out, err := exec.Command(Python, "-c", "import zstandard").CombinedOutput(); err != nil {
			oracleErr = fmt.Errorf("%s cannot import zstandard: %v %s", Python, err, bytes.TrimSpace(out))
		}
	})
	return oraclePath, oracleErr
}

// RunOracle runs `ctrace_oracle.py cmd path` and returns its standard
// output; the error carries its standard error.
func RunOracle(cmd, path string) ([]byte, error) {
	oracle, err := Oracle()
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	c := exec.Command(Python, oracle, cmd, path)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("oracle %s %s: %v: %s", cmd, path, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.Bytes(), nil
}
