//go:build linux

package tracefile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Hostile-review finding: under `ulimit -v` a trace that does not fit in
// what is left of the address space failed with "mmap FILE: cannot
// allocate memory", which reads as a lack of memory. The error names the
// limit and what to do. The limit is set in a child process (this test
// binary run again), which maps a sparse 256 GiB file under 64 GiB.
func TestMappingUnderAnAddressSpaceLimitSaysSo(t *testing.T) {
	if path := os.Getenv("TRACEFILE_RLIMIT_CHILD"); path != "" {
		require.NoError(t, unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: 64 << 30, Max: unix.RLIM_INFINITY}))
		_, err := openMapping(path)
		require.Error(t, err)
		os.Stdout.WriteString(err.Error())
		return
	}
	path := filepath.Join(t.TempDir(), "huge.ctrace")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(256<<30))
	require.NoError(t, f.Close())
	cmd := exec.Command(os.Args[0], "-test.run=^TestMappingUnderAnAddressSpaceLimitSaysSo$")
	cmd.Env = append(os.Environ(), "TRACEFILE_RLIMIT_CHILD="+path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), path+": cannot map its 274877906944 bytes: the address-space limit (ulimit -v, RLIMIT_AS) is 68719476736 bytes")
	require.Contains(t, string(out), "raise the limit")
}
