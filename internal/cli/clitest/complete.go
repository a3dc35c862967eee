package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Script writes a completion script to a file for the functions below.
func Script(t *testing.T, script []byte, shell string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "completion."+shell)
	require.NoError(t, os.WriteFile(p, script, 0o644))
	return p
}

// needShell skips the test, saying so, when shell is not installed.
func needShell(t *testing.T, shell string) {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("SKIPPED: %s is not installed (make deps-cli, or apt-get install %s): the %s completion script is not checked", shell, shell, shell)
	}
}

// BashComplete sources the bash script and calls function fn as bash does
// when Tab is pressed at the end of words (COMP_WORDS, COMP_CWORD; a
// "--opt=" is the words "--opt", "=" as bash cuts it), in dir. It returns
// the completions, sorted.
func BashComplete(t *testing.T, script, fn, dir string, words ...string) []string {
	t.Helper()
	needShell(t, "bash")
	prog := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); ` + fn + `; printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", append([]string{"--norc", "--noprofile", "-c", prog, "bash", script}, words...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return sorted(strings.Fields(string(out)))
}

// FishComplete sources the fish script and completes line as Tab would
// (complete -C), in dir: the completions, sorted.
func FishComplete(t *testing.T, script, dir, line string) []string {
	t.Helper()
	needShell(t, "fish")
	cmd := exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C"$argv[2]"`, script, line)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if w, _, _ := strings.Cut(l, "\t"); w != "" {
			got = append(got, w)
		}
	}
	return sorted(got)
}

// zshSetup is sourced by the interactive zsh ZshComplete drives: compinit,
// the script, and a compadd that records what the completion adds (printed
// between markers when the completion ends).
const zshSetup = `PROMPT=''
autoload -Uz compinit
compinit -u -D
source "$CLITEST_SCRIPT"
typeset -ga _clitest
compadd() {
	local -a hits
	if (( ${@[(I)-[AOD]*]} )); then builtin compadd "$@"; return; fi
	builtin compadd -A hits "$@"
	_clitest+=("${hits[@]}")
}
_clitest_done() { print -rl -- CLITEST-BEGIN "${_clitest[@]}" CLITEST-END; _clitest=() }
comppostfuncs=(_clitest_done)
bindkey '^I' complete-word
`

// zshDriver types a command line and Tab into an interactive zsh on a
// pseudo-terminal (zpty), and prints what it prints.
const zshDriver = `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "source ${(q)CLITEST_SETUP}"
zpty -w z "$1"$'\t'
local out chunk
for i in {1..100}; do
	while zpty -r -t z chunk; do out+=$chunk; done
	[[ $out == *CLITEST-END* ]] && break
	sleep 0.05
done
print -r -- "${out//$'\r'/}"
zpty -d z
`

// ZshComplete completes line in an interactive zsh with the script
// loaded after compinit, as Tab would, in dir: the completions, sorted.
func ZshComplete(t *testing.T, script, dir, line string) []string {
	t.Helper()
	needShell(t, "zsh")
	tmp := t.TempDir()
	setup, driver := filepath.Join(tmp, "setup.zsh"), filepath.Join(tmp, "driver.zsh")
	require.NoError(t, os.WriteFile(setup, []byte(zshSetup), 0o644))
	require.NoError(t, os.WriteFile(driver, []byte(zshDriver), 0o644))
	cmd := exec.Command("zsh", "-f", driver, line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CLITEST_SCRIPT="+script, "CLITEST_SETUP="+setup)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	s := string(out)
	// The markers follow the echoed line on the terminal, not a newline.
	i, j := strings.LastIndex(s, "CLITEST-BEGIN\n"), strings.LastIndex(s, "\nCLITEST-END")
	require.True(t, i >= 0 && j > i, "zsh printed no completion for %q:\n%q", line, s)
	return sorted(strings.Fields(s[i+len("CLITEST-BEGIN\n") : j]))
}

// sorted sorts s and drops repeats (zsh's _files offers a file once per
// tag it tries); nil when empty.
func sorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}
