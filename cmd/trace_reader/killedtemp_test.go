//go:build cgo && unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const tempChildEnv = "CHRONON_TEMP_CHILD"

// TestTempChild is the child of TestKilledExportTempsRemoved: it makes the
// temporary directory an export into $CHRONON_TEMP_CHILD makes (createTemp,
// as every export does), writes a part into it, prints its path and waits
// to be killed.
func TestTempChild(t *testing.T) {
	target := os.Getenv(tempChildEnv)
	if target == "" {
		t.Skip("only runs as the child of TestKilledExportTempsRemoved")
	}
	_, tmp, err := createTemp(target, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "part-0.parquet"), []byte("half"), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(tmp + "\n")
	time.Sleep(time.Minute)
}

// exportingChild starts a process that makes an export's temporary
// directory for target, and returns it with the directory's path.
func exportingChild(t *testing.T, target string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTempChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), tempChildEnv+"="+target)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	tmp := strings.TrimSpace(line)
	require.DirExists(t, tmp)
	return cmd, tmp
}

// An export killed with SIGKILL leaves its hidden temporary directory
// (.OUT.tmp-*, a dataset's .LABEL.tmp-*); the next export into the same
// place removes it, and says so with -v. It never removes a live export's
// (its writer holds the directory's lock), a directory of that name
// without the marker (another program's, an older trace_reader's), nor
// one another host marked (its lock may be invisible from here).
func TestKilledExportTempsRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: starts and kills child processes")
	}
	for _, tc := range []struct{ name, flag, format, out string }{
		{"parquet", "-o", "parquet", "out"},
		{"dataset", "--dataset", "parquet", "ds"},
		{"perfetto", "-o", "perfetto", "out.pftrace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			place := dir // where the temporaries are: beside -o, inside --dataset
			target := filepath.Join(dir, tc.out)
			if tc.flag == "--dataset" {
				require.NoError(t, os.Mkdir(target, 0o777))
				place = target
				target = filepath.Join(target, "mixed-small.ctrace") // the file's label
			}
			foreign := filepath.Join(place, "."+filepath.Base(target)+".tmp-abc")
			require.NoError(t, os.Mkdir(foreign, 0o777))
			// Another machine's export on shared storage: its lock may not
			// be seen from here.
			remote := filepath.Join(place, "."+filepath.Base(target)+".tmp-def")
			require.NoError(t, os.Mkdir(remote, 0o777))
			require.NoError(t, os.WriteFile(filepath.Join(remote, tempMarker), []byte("other-host."+thisHost+" 1\n"), 0o666))
			live, liveTmp := exportingChild(t, target)
			killed, killedTmp := exportingChild(t, target)
			require.NoError(t, killed.Process.Signal(syscall.SIGKILL))
			require.Error(t, killed.Wait(), "the child must have died by the signal")
			require.DirExists(t, killedTmp, "SIGKILL leaves the temporary")

			export := func() string {
				out := filepath.Join(dir, tc.out)
				if tc.flag == "-o" {
					os.RemoveAll(out)
				}
				code, _, stderr := runTool("export", "-v", "--format", tc.format, tc.flag, out, ref("mixed-small.ctrace"))
				require.Equal(t, 0, code, stderr)
				return stderr
			}
			stderr := export()
			require.NoDirExists(t, killedTmp, "the killed export's temporary is removed")
			require.Contains(t, stderr, "export: removed "+killedTmp+", the temporary directory of an export that was killed")
			require.DirExists(t, liveTmp, "a live export's temporary stays")
			require.DirExists(t, foreign, "a directory without the marker stays")
			require.DirExists(t, remote, "another host's stays")

			// Once the live one is killed too, the next export removes it.
			require.NoError(t, live.Process.Signal(syscall.SIGKILL))
			live.Wait()
			export()
			require.NoDirExists(t, liveTmp)
			require.DirExists(t, foreign)
			require.DirExists(t, remote)
			for _, n := range names(t, place) {
				require.False(t, strings.Contains(n, ".tmp-") && n != filepath.Base(foreign) && n != filepath.Base(remote), "left: %s", n)
			}
			if tc.format == "parquet" && tc.flag == "-o" {
				_, err := os.Stat(filepath.Join(dir, tc.out, tempMarker))
				require.True(t, os.IsNotExist(err), "the marker is not part of the export")
			}
		})
	}
}
